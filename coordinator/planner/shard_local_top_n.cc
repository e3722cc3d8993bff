#include "coordinator/planner/shard_local_top_n.h"

namespace granite::coordinator {

void PlanShardLocalTopN(QueryPlan* plan) {
  granite::worker::v1::Fragment& fragment = plan->fragment;
  if (!fragment.finalize_on_worker()) return;
  if (!plan->settings.shard_local_top_n) return;
  if (plan->has_having) *fragment.mutable_local_having() = plan->having;
  // LIMIT 0 returns nothing; shipping every group keeps that case simple.
  if (!plan->has_limit || plan->limit == 0) return;
  for (const core::SortColumn& key : plan->order) {
    *fragment.add_local_order() = plan->final_exprs[key.column];
    fragment.add_local_order_descending(key.descending);
  }
  fragment.set_local_limit(plan->limit + plan->offset);
}

}  // namespace granite::coordinator
