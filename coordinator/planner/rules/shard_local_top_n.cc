#include "coordinator/planner/rules/shard_local_top_n.h"

namespace granite::coordinator {

bool PlanShardLocalTopN(QueryPlan* plan) {
  core::plan::Fragment& fragment = plan->fragment;
  if (!fragment.aggregate || !fragment.aggregate->finalize_on_worker) return false;
  if (!plan->settings.shard_local_top_n) return false;
  core::plan::LocalCut& cut = fragment.aggregate->local_cut;
  if (plan->has_having) cut.having = plan->having;
  // LIMIT 0 returns nothing; shipping every group keeps that case simple.
  if (plan->has_limit && plan->limit > 0) {
    for (const core::SortColumn& key : plan->order) {
      cut.order.push_back(plan->final_exprs[key.column]);
      cut.descending.push_back(key.descending);
      cut.nulls_first.push_back(key.nulls_first);
    }
    cut.limit = plan->limit + plan->offset;
  }
  return cut.active();
}

bool ApplyShardLocalTopN(QueryPlan* plan, const RuleContext&) { return PlanShardLocalTopN(plan); }

}  // namespace granite::coordinator
