// The "skip the final merge" planner rule. An aggregation normally ends on the coordinator: every
// worker streams partial states by bucket and BucketedMerger merges the states of each group from
// all workers. When INSERT routed rows by a sharding key (coordinator/sharding_key.h) and the
// GROUP BY keys include every sharding-key column as a plain column, rows with equal group keys
// have equal sharding-key values and so were all sent to one worker: each group lives on exactly
// one worker. Then workers finalize their own groups (Fragment.finalize_on_worker) and the
// coordinator only concatenates them before HAVING / ORDER BY / LIMIT / OFFSET.
//
// The rule fires only when all of these hold:
//   - the fragment aggregates and has GROUP BY keys (or SELECT DISTINCT keys);
//   - it reads one table (not numbers(N), not a system table) and that table has a sharding key;
//   - the table's shard_count (the worker count at CREATE) equals the current worker count, since
//     rows were routed by hash % shard_count;
//   - for every sharding-key column some group key is that column itself — an expression of it
//     (k % 10, toString(k)) can put rows of different workers into one group.
#pragma once

#include <cstddef>
#include <string>

#include "granite/worker/v1/plan.pb.h"
#include "granite/worker/v1/worker.pb.h"

namespace granite::coordinator {

// What the rule decided and why (the reason is for logs and tests).
struct ShardLocalDecision {
  bool fire = false;
  std::string reason;
};

// Applies the rule to a bound fragment reading `schema`'s table on `worker_count` workers.
ShardLocalDecision DecideShardLocalAggregation(const granite::worker::v1::Fragment& fragment,
                                               const granite::worker::v1::TableSchema& schema,
                                               size_t worker_count);

}  // namespace granite::coordinator
