#include "coordinator/planner/group_limit_hash_filter.h"

#include <string>

#include "absl/strings/numbers.h"
#include "core/aggregation/hash_limit_filter.h"
#include "core/block_sort.h"
#include "core/error.h"

namespace granite::coordinator {

absl::StatusOr<uint64_t> DecideGroupLimitHashFilter(const QueryPlan& plan) {
  const granite::worker::v1::Fragment& fragment = plan.fragment;
  uint64_t max_limit = plan.settings.group_by_limit_hash_filter;
  if (!fragment.aggregate() || fragment.group_keys_size() == 0 || fragment.finalize_on_worker()) {
    return 0;
  }
  if (!plan.has_limit || plan.limit == 0 || plan.has_having || !plan.order.empty()) return 0;
  uint64_t groups = plan.limit + plan.offset;
  if (groups < plan.limit || groups > max_limit) return 0;  // overflow, or past the cap (0 = off)
  return groups;
}

core::Block KeepBottomGroups(const QueryPlan& plan, core::Block stage) {
  uint64_t limit = plan.fragment.group_limit_hash_filter();
  if (limit == 0 || stage.rows() <= limit) return stage;
  std::vector<uint32_t> rows = core::BottomGroupsByHash(
      stage, static_cast<size_t>(plan.fragment.group_keys_size()), static_cast<size_t>(limit));
  return core::TakeRows(stage, rows);
}

}  // namespace granite::coordinator
