#include "coordinator/planner/rules/merge_rules.h"

namespace granite::coordinator {

namespace {

// True when the coordinator merges partial states by bucket over at least one GROUP BY key.
bool BucketMergeWithKeys(const QueryPlan& plan) {
  const std::optional<core::plan::Aggregate>& aggregate = plan.fragment.aggregate;
  return plan.source == SourceKind::kWorkers && aggregate && !aggregate->keys.empty() &&
         !aggregate->finalize_on_worker && aggregate->hash_limit == 0;
}

}  // namespace

bool ApplyMergeGroupLimit(QueryPlan* plan, const RuleContext&) {
  if (!plan->settings.merge_group_limit || !BucketMergeWithKeys(*plan)) return false;
  if (!plan->has_limit || plan->limit == 0 || plan->has_having || !plan->order.empty()) {
    return false;
  }
  plan->merge_group_limit = plan->limit + plan->offset;
  return true;
}

bool ApplyPieceCut(QueryPlan* plan, const RuleContext&) {
  if (!plan->settings.top_n_piece_cut || !BucketMergeWithKeys(*plan)) return false;
  if (plan->order.empty() || !plan->has_limit || plan->limit == 0) return false;
  plan->piece_cut = true;
  return true;
}

bool ApplyLateFinalization(QueryPlan* plan, const RuleContext&) {
  if (!plan->piece_cut || !plan->settings.late_aggregate_finalization) return false;
  plan->late_finalization = true;
  return true;
}

bool ApplyLateMaterialization(QueryPlan* plan, const RuleContext&) {
  core::plan::Fragment& fragment = plan->fragment;
  // A RIGHT / FULL join adds rows after the scan that no late read could materialize.
  if (plan->source != SourceKind::kWorkers || !fragment.scan.is_table() ||
      fragment.aggregating() || fragment.emits_unmatched()) {
    return false;
  }
  if (fragment.limit == 0 || fragment.limit > plan->settings.late_materialization_max_limit) {
    return false;
  }
  fragment.late_materialization = true;
  return true;
}

}  // namespace granite::coordinator
