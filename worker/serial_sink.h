// SerialSink: the result stream of one fragment shared by the pool threads that scan it — rows
// streamed while the scan runs (row_streamer.h) and its progress (scan_progress.h) — one chunk at
// a time. A send that waits for the coordinator (gRPC flow control) holds the others back.
#pragma once

#include <functional>

#include "core/mutex.h"
#include "core/plan/fragment_result.h"

namespace granite::worker {

// Thread-safety: Send() from any thread; sends are serialized.
class SerialSink {
 public:
  using Sink = std::function<bool(core::plan::ResultChunk&&)>;
  // REQUIRES: `sink` outlives this and is not called by anyone else while the scan runs.
  explicit SerialSink(const Sink* sink) : sink_(sink) {}

  // Sends `chunk`; false when the receiver is gone.
  bool Send(core::plan::ResultChunk&& chunk) {
    core::MutexLock lock(mu_);
    return (*sink_)(std::move(chunk));
  }

 private:
  const Sink* const sink_;
  core::Mutex mu_{"fragment_sink"};
};

}  // namespace granite::worker
