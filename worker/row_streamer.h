// RowStreamer: sends a projecting fragment's rows to the coordinator while the scan still runs,
// instead of holding them all until the end (FragmentExecutor::Run). Only a fragment whose rows
// may leave in any order qualifies: no ORDER BY, no aggregation, no late materialization. Each
// pool thread hands over its rows once it holds kRowsPerChunk of them, and the rest at the end;
// a thread whose send waits for the coordinator (gRPC flow control) waits with it, so a slow
// client slows the scan instead of filling the worker's memory. An ordered source (numbers)
// is scanned by one thread, so its rows still leave in order.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "core/block_codec.h"
#include "core/fragment_pipeline.h"
#include "core/mutex.h"
#include "core/plan/fragment.h"
#include "core/plan/fragment_result.h"
#include "worker/serial_sink.h"

namespace granite::worker {

// Thread-safety: Drain() runs concurrently on pool threads, each with its own state; chunks go
// through the SerialSink one at a time.
class RowStreamer {
 public:
  static constexpr size_t kRowsPerChunk = 65536;

  // Returns a streamer for `fragment`, or null when its rows must be finished as a whole.
  // REQUIRES: `sink` outlives the streamer.
  static std::unique_ptr<RowStreamer> Plan(const core::plan::Fragment& fragment,
                                           const core::FragmentPipeline& pipeline, bool late,
                                           core::WireCompression compression, SerialSink* sink);

  // Sends the rows `state` holds once they reach kRowsPerChunk, or all of them with `flush`.
  // Fails with QUERY_WAS_CANCELLED when the sink is gone.
  absl::Status Drain(core::FragmentPipeline::LocalState& state, bool flush);

  // True once LIMIT rows were sent: the scan may stop.
  bool enough() const { return enough_.load(std::memory_order_relaxed); }

 private:
  RowStreamer(uint64_t limit, core::WireCompression compression, SerialSink* sink)
      : limit_(limit), compression_(compression), sink_(sink) {}

  // Constant after construction.
  const uint64_t limit_;  // 0 = none
  const core::WireCompression compression_;
  SerialSink* const sink_;

  std::atomic<bool> enough_{false};
  std::atomic<uint64_t> sent_rows_{0};
};

}  // namespace granite::worker
