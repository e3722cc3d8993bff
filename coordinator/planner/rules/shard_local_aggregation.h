// The "skip the final merge" planner rule. An aggregation normally ends on the coordinator: every
// worker streams partial states by bucket and BucketedMerger merges the states of each group from
// all workers. When INSERT routed rows by a sharding key (coordinator/cluster/sharding_key.h) and the
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
//     (k % 10, toString(k)) can put rows of different workers into one group; with joins, a
//     column of the table read (the probe side), and no RIGHT / FULL join;
//   - the query does not say SETTINGS shard_local_aggregation = 0 (for A/B measurements);
//   - (checked by the binder) the GROUP BY ... LIMIT key-hash filter (group_limit_hash_filter.h)
//     did not fire: it aggregates far fewer groups, so it is preferred.
//
// It also fires for a fragment whose first join is shuffled (BroadcastJoin::shuffle: every row
// travels to the worker owning the hash of its join key, worker/exchange.h) when the GROUP BY keys
// include every probe key expression of that join: equal keys hash alike, so each group's rows
// meet on one worker. Only for INNER, LEFT, SEMI and ANTI joins over non-Nullable probe keys (a
// RIGHT / FULL join's unmatched build rows carry default probe keys on every worker, and a NULL
// key's stored value is not fixed). The shape: a dimension joined to its fact table by a key it
// then groups by (rows per customer, per supplier).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "coordinator/planner/rules/rule.h"
#include "core/plan/fragment.h"
#include "core/settings/settings.h"
#include "core/table_schema.h"

namespace granite::coordinator {

// The query setting shard_local_aggregation = 0 turns the rule off.

// What the rule decided and why (the reason is for logs and tests).
struct ShardLocalDecision {
  bool fire = false;
  std::string reason;
};

// The shuffled-join form of the rule (see the file comment), for a bound fragment.
ShardLocalDecision DecideShuffledLocalAggregation(const core::plan::Fragment& fragment,
                                                  const core::Settings& settings);

// Applies the rule to a bound fragment reading `schema`'s table on `worker_count` workers.
ShardLocalDecision DecideShardLocalAggregation(const core::plan::Fragment& fragment,
                                               const core::TableSchema& schema,
                                               size_t worker_count,
                                               const core::Settings& settings);

// True when `column` alone is `schema`'s whole sharding key and the table was sharded for
// `worker_count` workers (shard_count == worker_count > 0). Then INSERT sent every row with a given
// `column` value to one worker, so the sets of `column` values on different workers are disjoint
// (e.g. count(DISTINCT column) is the sum of the workers' distinct counts).
// The planner rule: sets Aggregate::finalize_on_worker when DecideShardLocalAggregation fires
// for the table read, or DecideShuffledLocalAggregation (and the key-hash filter did not fire).
bool ApplyShardLocalAggregation(QueryPlan* plan, const RuleContext& context);

bool IsWholeShardingKey(const core::TableSchema& schema, std::string_view column,
                        size_t worker_count);

}  // namespace granite::coordinator
