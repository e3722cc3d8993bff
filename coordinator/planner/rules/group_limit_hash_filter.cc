#include "coordinator/planner/rules/group_limit_hash_filter.h"

#include <string>

#include "absl/strings/numbers.h"
#include "core/aggregation/hash_limit_filter.h"
#include "core/block_sort.h"
#include "core/error.h"

namespace granite::coordinator {

absl::StatusOr<uint64_t> DecideGroupLimitHashFilter(const QueryPlan& plan) {
  const core::plan::Fragment& fragment = plan.fragment;
  uint64_t max_limit = plan.settings.group_by_limit_hash_filter;
  if (!fragment.aggregate || fragment.aggregate->keys.empty() ||
      fragment.aggregate->finalize_on_worker) {
    return 0;
  }
  if (!plan.has_limit || plan.limit == 0 || plan.has_having || !plan.order.empty()) return 0;
  uint64_t groups = plan.limit + plan.offset;
  if (groups < plan.limit || groups > max_limit) return 0;  // overflow, or past the cap (0 = off)
  return groups;
}

bool ApplyGroupLimitHashFilter(QueryPlan* plan, const RuleContext&) {
  absl::StatusOr<uint64_t> groups = DecideGroupLimitHashFilter(*plan);
  if (!groups.ok() || *groups == 0) return false;
  plan->fragment.aggregate->hash_limit = *groups;
  return true;
}

core::Block KeepBottomGroups(const QueryPlan& plan, core::Block stage) {
  if (!plan.fragment.aggregate) return stage;
  uint64_t limit = plan.fragment.aggregate->hash_limit;
  if (limit == 0 || stage.rows() <= limit) return stage;
  std::vector<uint32_t> rows = core::BottomGroupsByHash(
      stage, plan.fragment.aggregate->keys.size(), static_cast<size_t>(limit));
  return core::TakeRows(stage, rows);
}

}  // namespace granite::coordinator
