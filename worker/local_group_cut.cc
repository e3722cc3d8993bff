#include "worker/local_group_cut.h"

#include <memory>
#include <utility>
#include <vector>

#include "core/block_sort.h"
#include "core/error.h"
#include "core/expression.h"
#include "core/status_macros.h"

namespace granite::worker {

namespace pb = granite::worker::v1;

bool WantsLocalGroupCut(const pb::Fragment& fragment) {
  return fragment.has_local_having() || fragment.local_limit() > 0;
}

absl::StatusOr<core::Block> CutLocalGroups(const pb::Fragment& fragment, core::Block groups) {
  if (fragment.local_order_size() != fragment.local_order_descending_size()) {
    return core::Error(core::ErrorCode::kIncorrectData,
                       "Fragment has " + std::to_string(fragment.local_order_size()) +
                           " local_order keys but " +
                           std::to_string(fragment.local_order_descending_size()) + " directions");
  }
  if (fragment.has_local_having() && groups.rows() > 0) {
    ASSIGN_OR_RETURN(auto having, core::Expression::FromProto(fragment.local_having()));
    ASSIGN_OR_RETURN(core::ColumnPtr mask, having->Evaluate(groups));
    const uint8_t* keep = mask->Data<uint8_t>();
    size_t kept = 0;
    for (size_t i = 0; i < groups.rows(); ++i) kept += keep[i] != 0;
    if (kept < groups.rows()) {
      core::Block filtered;
      filtered.rows_without_columns = kept;
      for (const auto& column : groups.columns) {
        filtered.columns.push_back(std::make_shared<core::Column>(column->Filter(keep)));
      }
      groups = std::move(filtered);
    }
  }
  const size_t limit = fragment.local_limit();
  if (limit == 0 || groups.rows() <= limit) return groups;
  if (fragment.local_order_size() == 0) return core::SliceRows(groups, 0, limit);
  core::Block keys;
  keys.rows_without_columns = groups.rows();
  std::vector<core::SortColumn> order;
  for (int i = 0; i < fragment.local_order_size(); ++i) {
    ASSIGN_OR_RETURN(auto expr, core::Expression::FromProto(fragment.local_order(i)));
    ASSIGN_OR_RETURN(core::ColumnPtr column, expr->Evaluate(groups));
    keys.columns.push_back(std::move(column));
    order.push_back({static_cast<size_t>(i), fragment.local_order_descending(i)});
  }
  return core::TakeRows(groups, core::SortPermutation(keys, order, limit));
}

}  // namespace granite::worker
