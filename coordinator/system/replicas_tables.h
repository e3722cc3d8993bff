// system.clusters and system.replicas: the cluster's topology (S shards x R replicas,
// coordinator/cluster/worker_set.h) and each replica's health and replication state.
//   clusters   one row per worker process, ClickHouse's columns where they apply (cluster is
//              'default'; shard_num and replica_num count from 1; errors_count counts the reads
//              that failed over from it), plus worker, state and last_error
//   replicas   one row per replicated table and replica, from the last repair pass
//              (coordinator/cluster/replica_repair.h): is_active, blocks it holds, blocks_behind
//              (blocks its peers have and it lacks: the lag), retained_blocks, repaired_blocks,
//              last_error. Empty without replicas.
#pragma once

#include "coordinator/cluster/worker_set.h"
#include "coordinator/planner/binder.h"

namespace granite::coordinator {

LocalTable BuildClustersTable(const WorkerSet& workers);
LocalTable BuildReplicasTable(const WorkerSet& workers);

}  // namespace granite::coordinator
