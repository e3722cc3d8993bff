// InsertSink: where ExecuteInsert sends an insert's rows, chunk by chunk, then commits or aborts —
// the workers of a cluster without replicas (insert_executor.cc's ChunkedInsert), or every replica
// of each shard with a quorum (replicated_insert.h).
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/block.h"

namespace granite::coordinator {

// Thread-safety: one insert, one thread.
class InsertSink {
 public:
  virtual ~InsertSink() = default;
  // Sends the rows of `full` (all table columns, in order); `last`: no chunk follows.
  virtual absl::Status Send(const core::Block& full, bool last) = 0;
  // Discards everything sent (best effort).
  virtual void Abort() = 0;
  // Makes everything sent visible; returns the rows inserted.
  virtual absl::StatusOr<uint64_t> Commit() = 0;
};

}  // namespace granite::coordinator
