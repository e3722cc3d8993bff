#include "coordinator/planner/rules/shard_local_aggregation.h"

#include <algorithm>

namespace granite::coordinator {


ShardLocalDecision DecideShardLocalAggregation(const core::plan::Fragment& fragment,
                                               const core::TableSchema& schema,
                                               size_t worker_count,
                                               const core::Settings& settings) {
  auto no = [](std::string reason) { return ShardLocalDecision{false, std::move(reason)}; };
  if (!fragment.aggregate || fragment.aggregate->keys.empty()) return no("no GROUP BY keys");
  if (!settings.shard_local_aggregation) {
    return no("turned off by SETTINGS shard_local_aggregation = 0");
  }
  const core::plan::Scan& source = fragment.scan;
  if (!source.is_table() || source.table != schema.name) return no("not a table");
  if (schema.sharding_key.size() == 0) return no("table has no sharding key");
  if (schema.shard_count != worker_count) {
    return no("table was sharded for " + std::to_string(schema.shard_count) + " workers, not " +
              std::to_string(worker_count));
  }
  for (const std::string& key : schema.sharding_key) {
    bool grouped = false;
    for (const core::plan::Expr& group_key : fragment.aggregate->keys) {
      // A plain column reference: the node is a column index into the source columns.
      grouped = grouped || (group_key.is_column() && group_key.column < source.columns.size() &&
                            source.columns[group_key.column] == key);
    }
    if (!grouped) return no("sharding key column " + key + " is not a GROUP BY key");
  }
  return ShardLocalDecision{true, "every group lives on one worker"};
}

ShardLocalDecision DecideShuffledLocalAggregation(const core::plan::Fragment& fragment,
                                                  const core::Settings& settings) {
  auto no = [](std::string reason) { return ShardLocalDecision{false, std::move(reason)}; };
  if (!fragment.aggregate || fragment.aggregate->keys.empty()) return no("no GROUP BY keys");
  if (!settings.shard_local_aggregation) {
    return no("turned off by SETTINGS shard_local_aggregation = 0");
  }
  if (!fragment.shuffling()) return no("no shuffled join");
  using Kind = core::plan::BroadcastJoin::Kind;
  const core::plan::BroadcastJoin& join = fragment.joins[0];
  if (join.kind == Kind::kRight || join.kind == Kind::kFull) {
    return no("a RIGHT or FULL join's unmatched build rows are on every worker");
  }
  for (const core::plan::Expr& probe_key : join.probe_keys) {
    if (core::IsNullable(probe_key.type)) return no("a Nullable join key");
    const auto& keys = fragment.aggregate->keys;
    if (std::find(keys.begin(), keys.end(), probe_key) == keys.end()) {
      return no("a join key is not a GROUP BY key");
    }
  }
  return ShardLocalDecision{true, "the shuffle put every group on one worker"};
}

bool ApplyShardLocalAggregation(QueryPlan* plan, const RuleContext& context) {
  core::plan::Fragment& fragment = plan->fragment;
  // GROUP BY ... LIMIT without ORDER BY: the key-hash filter aggregates only a few groups, far
  // cheaper than finalizing every group on the workers, so it wins when both rules apply.
  if (!fragment.aggregate || fragment.aggregate->hash_limit > 0) return false;
  // A RIGHT / FULL join's unmatched build rows carry default probe keys on every worker.
  for (const core::plan::BroadcastJoin& join : fragment.joins) {
    using Kind = core::plan::BroadcastJoin::Kind;
    if (join.kind == Kind::kRight || join.kind == Kind::kFull) return false;
  }
  const bool sharded =
      context.table != nullptr &&
      DecideShardLocalAggregation(fragment, *context.table, context.worker_count, plan->settings)
          .fire;
  if (!sharded && !DecideShuffledLocalAggregation(fragment, plan->settings).fire) return false;
  fragment.aggregate->finalize_on_worker = true;
  return true;
}

bool IsWholeShardingKey(const core::TableSchema& schema, std::string_view column,
                        size_t worker_count) {
  return worker_count > 0 && schema.shard_count == worker_count &&
         schema.sharding_key.size() == 1 && schema.sharding_key[0] == column;
}

}  // namespace granite::coordinator
