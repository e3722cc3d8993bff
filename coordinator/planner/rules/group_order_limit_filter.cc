#include "coordinator/planner/rules/group_order_limit_filter.h"

#include "core/aggregation/key_order_code.h"

namespace granite::coordinator {

bool ApplyGroupOrderLimitFilter(QueryPlan* plan, const RuleContext&) {
  const core::Settings& settings = plan->settings;
  if (!settings.enable_group_by_top_k_optimization) return false;
  if (!plan->fragment.aggregate || plan->fragment.aggregate->keys.empty()) return false;
  core::plan::Aggregate& aggregate = *plan->fragment.aggregate;
  // (The key-hash filter needs an empty ORDER BY, so the two never fire together.)
  if (!plan->has_limit || plan->limit == 0 || plan->has_having || plan->order.empty()) {
    return false;
  }
  const uint64_t groups = plan->limit + plan->offset;
  const uint64_t cap = settings.query_plan_max_limit_for_top_k_optimization;
  if (groups < plan->limit || (cap > 0 && groups > cap)) return false;  // overflow, or past it
  // The final stage's expressions run over the stage block: the keys, then the aggregates.
  const core::SortColumn& first = plan->order.front();
  if (first.column >= plan->final_exprs.size()) return false;
  const core::plan::Expr& sorted = plan->final_exprs[first.column];
  if (!sorted.is_column() || sorted.column >= aggregate.keys.size()) return false;
  if (!core::HasOrderCode(aggregate.keys[sorted.column].type)) return false;
  aggregate.order_limit = groups;
  aggregate.order_key = sorted.column;
  aggregate.order_descending = first.descending;
  return true;
}

}  // namespace granite::coordinator
