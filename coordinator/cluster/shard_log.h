// ShardLog: each shard's log of committed insert blocks, kept by the coordination service when
// the coordinator has one (etcd: coordinator/coord/etcd_shard_log.h), the way ClickHouse keeps a
// ReplicatedMergeTree's block ids in Keeper. A replicated INSERT records its blocks once the
// quorum committed them and before it is acknowledged (exec/replicated_insert.h); the repair
// loop (replica_repair.h) measures each replica against the log, so a replica is behind even by
// a block only an unreachable peer holds, and trims the log to the table's
// replicated_deduplication_window most recent blocks per shard. Without one, WorkerSet's log is
// null and the replicas are compared with each other only.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace granite::coordinator {

// Returns the name the replicas list block `id` under (storage/block_log.h: the hex XXH3-128 of
// the id, high half first).
std::string BlockNameOf(const std::string& id);

// Thread-safety: implementations are safe for concurrent use.
class ShardLog {
 public:
  virtual ~ShardLog() = default;
  // Records the blocks (shard, block name) of one INSERT into `table`, all at once.
  // Errors: KEEPER_EXCEPTION (999) when the service does not answer.
  virtual absl::Status Record(const std::string& table,
                              const std::vector<std::pair<size_t, std::string>>& blocks) = 0;
  // Returns the names of the blocks recorded for `table` on `shard`, oldest first.
  virtual absl::StatusOr<std::vector<std::string>> List(const std::string& table,
                                                        size_t shard) = 0;
  // Deletes the records of `names` (trimming: the oldest beyond the window).
  virtual absl::Status Forget(const std::string& table, size_t shard,
                              const std::vector<std::string>& names) = 0;
};

}  // namespace granite::coordinator
