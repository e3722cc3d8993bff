// ChunkCoalescer: puts a fragment's statistics chunks together on their way into its Execute
// stream (worker_service.cc). A small fragment answers with a few chunks — the rows the scan will
// read (sent as it starts), perhaps a block of rows, the closing statistics — and with gRPC's sync
// API every chunk is a send of its own on the worker and a read on the coordinator, each paid
// once per worker a query reaches. Here the opening statistics wait for the next chunk: a
// statistics chunk (progress or the closing one) takes their counts in, anything else is
// preceded by them. The closing statistics (the chunk with elapsed_us) wait for the end and go
// out with the call's status in one send (gRPC's last-message write). A point query's shard with
// no matching row thus answers with one message instead of two, sent with its status. Buckets
// encoded together (ResultChunk::more_follow) are written with gRPC's buffer hint but the last
// of them, so a window of small buckets goes out in one send rather than one per bucket.
#pragma once

#include <grpcpp/grpcpp.h>

#include <functional>

#include "core/plan/fragment_result.h"
#include "granite/worker/v1/worker.pb.h"

namespace granite::worker {

// Adds every count of `from` to `to` (all FragmentStats fields are sums).
void AddStats(const granite::worker::v1::FragmentStats& from,
              granite::worker::v1::FragmentStats* to);

// Thread-safety: one thread at a time (the fragment's SerialSink serializes its callers).
class ChunkCoalescer {
 public:
  // Sends one message with the given options; false when the receiver is gone.
  using Write = std::function<bool(const granite::worker::v1::FragmentChunk&, grpc::WriteOptions)>;
  explicit ChunkCoalescer(Write write) : write_(std::move(write)) {}

  // Takes the fragment's next chunk; false when the receiver is gone.
  bool Add(core::plan::ResultChunk&& chunk);
  // Sends what is still held, the closing statistics as the last message when `ok` (the call
  // ends with its status right after). Returns false when the receiver is gone.
  bool Finish(bool ok);

 private:
  // Sends `opening_` first if held.
  bool SendOpening();

  const Write write_;
  granite::worker::v1::FragmentChunk message_;
  granite::worker::v1::FragmentChunk opening_;  // valid if has_opening_
  granite::worker::v1::FragmentChunk closing_;  // valid if has_closing_
  bool has_opening_ = false;
  bool has_closing_ = false;
  bool any_ = false;  // a chunk came already
};

}  // namespace granite::worker
