// InsertSink: where ExecuteInsert sends an insert's rows, chunk by chunk, then commits or aborts —
// the workers of a cluster without replicas (insert_executor.cc's ChunkedInsert), or every replica
// of each shard with a quorum (replicated_insert.h).
// Sending a chunk has two steps: Encode (split by worker, encode, compress), which needs no other
// chunk and may run for several chunks at once on a pool, then SendEncoded, in chunk order.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/plan/fragment_result.h"

namespace granite::coordinator {

// One chunk's rows made ready to send by InsertSink::Encode.
struct EncodedChunk {
  uint64_t rows = 0;
  core::Block full;                              // the rows, for a sink that encodes when it sends
  std::vector<core::plan::EncodedBlock> slices;  // per worker, when encoded ahead
};

// Thread-safety: Encode may run on any threads at once; the rest: one insert, one thread.
class InsertSink {
 public:
  virtual ~InsertSink() = default;
  // Prepares the rows of `full` (all table columns, in order) for SendEncoded. The default keeps
  // the block for SendEncoded to encode.
  virtual absl::StatusOr<EncodedChunk> Encode(const core::Block& full) const {
    EncodedChunk chunk;
    chunk.rows = full.rows();
    chunk.full = full;
    return chunk;
  }
  // Sends one chunk from Encode; `last`: no chunk follows. Chunks are sent in row order.
  virtual absl::Status SendEncoded(EncodedChunk chunk, bool last) = 0;
  // Encodes and sends the rows of `full`.
  absl::Status Send(const core::Block& full, bool last) {
    absl::StatusOr<EncodedChunk> chunk = Encode(full);
    if (!chunk.ok()) return chunk.status();
    return SendEncoded(*std::move(chunk), last);
  }
  // Discards everything sent (best effort).
  virtual void Abort() = 0;
  // Makes everything sent visible; returns the rows inserted.
  virtual absl::StatusOr<uint64_t> Commit() = 0;
};

}  // namespace granite::coordinator
