#include "coordinator/planner/rules/rule.h"

#include "coordinator/planner/rules/distinct_planner.h"
#include "coordinator/planner/rules/group_limit_hash_filter.h"
#include "coordinator/planner/rules/group_order_limit_filter.h"
#include "coordinator/planner/rules/merge_rules.h"
#include "coordinator/planner/rules/shard_local_aggregation.h"
#include "coordinator/planner/rules/shard_local_top_n.h"
#include "coordinator/planner/rules/skip_unused_shards.h"
#include "coordinator/planner/rules/string_size_reads.h"

namespace granite::coordinator {

const std::vector<PlannerRule>& PlannerRules() {
  static const std::vector<PlannerRule>* rules = new std::vector<PlannerRule>{
      // Worker fragment: scan and aggregation layout.
      {"string_size_reads", "optimize_functions_to_subcolumns", ApplyStringSizeReads},
      {"direct_key", "use_value_ranges", ApplyDirectKey},
      {"distinct_bitmap", "use_value_ranges", ApplyDistinctBitmap},
      {"disjoint_distinct", "use_value_ranges", ApplyDisjointDistinct},
      // Which groups are aggregated, and where they are finalized.
      {"group_limit_hash_filter", "group_by_limit_hash_filter", ApplyGroupLimitHashFilter},
      {"group_order_limit_filter", "enable_group_by_top_k_optimization",
       ApplyGroupOrderLimitFilter},
      {"shard_local_aggregation", "shard_local_aggregation", ApplyShardLocalAggregation, true},
      {"shard_local_top_n", "shard_local_top_n", ApplyShardLocalTopN},
      {"late_materialization", "late_materialization_max_limit", ApplyLateMaterialization},
      // Which shards run the fragment.
      {"skip_unused_shards", "optimize_skip_unused_shards", ApplySkipUnusedShards, true},
      // The coordinator's merge.
      {"merge_group_limit", "merge_group_limit", ApplyMergeGroupLimit, true},
      {"piece_cut", "top_n_piece_cut", ApplyPieceCut, true},
      {"late_finalization", "late_aggregate_finalization", ApplyLateFinalization, true},
  };
  return *rules;
}

void ApplyPlannerRules(QueryPlan* plan, const RuleContext& context) {
  for (const PlannerRule& rule : PlannerRules()) {
    if (plan->fragment.joining() && !rule.with_joins) continue;
    if (rule.apply(plan, context)) plan->rules_fired.emplace_back(rule.name);
  }
}

}  // namespace granite::coordinator
