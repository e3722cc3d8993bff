// Inserts into a cluster of replicated shards (S shards x R replicas, worker_set.h).
//
// Each chunk is split across shards as without replicas (sharding key, else even slices — whose
// rotation then follows the chunk's contents, so a retried insert splits the same way), and each
// shard's slice goes to every replica of the shard as PrepareInsert under the insert's token, with
// `retain` so each replica keeps the block's chunks for peers that miss it. A replica that fails
// drops out of the insert; while at least `insert_quorum` replicas of every touched shard remain,
// the insert goes on. The last chunk's PrepareInsert carries each shard's block id, so a replica
// writes the id's record with that chunk and its commit only renames it into place. Then
// CommitInsert with the shard's block id on the remaining replicas: the insert is acknowledged
// when at least the quorum committed it (or already had it).
//   - fewer than the quorum prepared: nothing is committed anywhere, TOO_FEW_LIVE_REPLICAS (285)
//     naming the shard and each replica's error;
//   - the quorum prepared but fewer committed (replicas died in between): UNKNOWN_STATUS_OF_INSERT
//     (319); the replicas that committed keep the block and it reaches the others by repair, and
//     a retry with the same contents or token is deduplicated.
// Block id of a shard's share: "t:<insert_deduplication_token>" when set, else "c:" + a 128-bit
// hash of the share's encoded rows (ClickHouse's content deduplication); with
// insert_deduplicate = 0, a unique id (repair still needs one). Replicas that missed a block get
// it from a peer's retained copy through the coordinator's background repair
// (coordinator/cluster/replica_repair.h).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "coordinator/cluster/worker_set.h"
#include "coordinator/exec/insert_executor.h"
#include "coordinator/exec/insert_sink.h"
#include "core/table_schema.h"

namespace granite::coordinator {

// Returns the quorum that `setting` (insert_quorum) asks of `replicas`: "auto" a majority,
// 0 one replica, N N replicas. BAD_ARGUMENTS for other text; TOO_FEW_LIVE_REPLICAS when
// N > replicas.
absl::StatusOr<size_t> QuorumOf(const std::string& setting, size_t replicas);

// REQUIRES: workers.replica_count() > 1; `schema` and `workers` outlive the sink.
absl::StatusOr<std::unique_ptr<InsertSink>> MakeReplicatedInsert(
    const core::TableSchema& schema, const WorkerSet& workers, const ReplicationOptions& options);

}  // namespace granite::coordinator
