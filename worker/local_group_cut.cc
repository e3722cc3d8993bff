#include "worker/local_group_cut.h"

#include <memory>
#include <utility>
#include <vector>

#include "core/block_sort.h"
#include "core/error.h"
#include "core/expression.h"
#include "core/status_macros.h"

namespace granite::worker {

absl::StatusOr<core::Block> CutLocalGroups(const core::plan::LocalCut& cut, core::Block groups) {
  if (cut.order.size() != cut.descending.size()) {
    return core::Error(core::ErrorCode::kIncorrectData,
                       "Fragment has " + std::to_string(cut.order.size()) +
                           " local_order keys but " + std::to_string(cut.descending.size()) +
                           " directions");
  }
  if (cut.having && groups.rows() > 0) {
    ASSIGN_OR_RETURN(auto having, core::Expression::Compile(*cut.having));
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
  const size_t limit = cut.limit;
  if (limit == 0 || groups.rows() <= limit) return groups;
  if (cut.order.empty()) return core::SliceRows(groups, 0, limit);
  core::Block keys;
  keys.rows_without_columns = groups.rows();
  std::vector<core::SortColumn> order;
  for (size_t i = 0; i < cut.order.size(); ++i) {
    ASSIGN_OR_RETURN(auto expr, core::Expression::Compile(cut.order[i]));
    ASSIGN_OR_RETURN(core::ColumnPtr column, expr->Evaluate(groups));
    keys.columns.push_back(std::move(column));
    order.push_back({i, cut.descending[i], i < cut.nulls_first.size() && cut.nulls_first[i]});
  }
  return core::TakeRows(groups, core::SortPermutation(keys, order, limit));
}

}  // namespace granite::worker
