#include "coordinator/exec/set_operations.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "core/join/row_keys.h"
#include "core/block_sort.h"
#include "core/error.h"
#include "core/functions/cast_column.h"
#include "core/functions/type_rules.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using core::ErrorCode;
using sql::SetOperator;

std::string RowKey(const core::Block& block, size_t row) {
  std::vector<const core::Column*> columns;
  for (const auto& column : block.columns) columns.push_back(column.get());
  std::string key;
  core::AppendRowKey(columns, row, &key);
  return key;
}

// Returns the rows of `block` whose mask is set.
core::Block KeepRows(const core::Block& block, const std::vector<uint8_t>& mask) {
  core::Block out;
  size_t kept = 0;
  for (uint8_t m : mask) kept += m != 0;
  out.rows_without_columns = kept;
  for (const auto& column : block.columns) {
    out.columns.push_back(std::make_shared<core::Column>(column->Filter(mask.data())));
  }
  return out;
}

}  // namespace

absl::StatusOr<LocalTable> CombineResults(SetOperator op, LocalTable left, LocalTable right) {
  if (left.names.size() != right.names.size()) {
    return core::Error(ErrorCode::kUnionAllResultStructuresMismatch,
                       "Different number of columns in UNION / INTERSECT / EXCEPT elements: " +
                           std::to_string(left.names.size()) + " and " +
                           std::to_string(right.names.size()));
  }
  for (size_t c = 0; c < left.types.size(); ++c) {
    if (left.types[c] == right.types[c]) continue;
    std::optional<core::TypeId> common = core::CommonSupertype(left.types[c], right.types[c]);
    if (!common) {
      return core::Error(ErrorCode::kNoCommonType,
                         "There is no supertype for types " +
                             std::string(core::TypeName(left.types[c])) + ", " +
                             std::string(core::TypeName(right.types[c])) + " of column " +
                             std::to_string(c + 1) + " (" + left.names[c] + ")");
    }
    if (c < left.block.columns.size()) {
      ASSIGN_OR_RETURN(left.block.columns[c], core::CastColumn(left.block.columns[c], *common));
      ASSIGN_OR_RETURN(right.block.columns[c], core::CastColumn(right.block.columns[c], *common));
    }
    left.types[c] = right.types[c] = *common;
  }
  const size_t left_rows = left.block.rows();
  if (op == SetOperator::kUnionAll || op == SetOperator::kUnionDistinct) {
    core::Block both = core::ConcatBlocks({left.block, right.block});
    both.rows_without_columns = left_rows + right.block.rows();
    left.block = std::move(both);
    if (op == SetOperator::kUnionAll) return left;
    absl::flat_hash_set<std::string> seen;
    std::vector<uint8_t> keep(left.block.rows());
    for (size_t r = 0; r < keep.size(); ++r) keep[r] = seen.insert(RowKey(left.block, r)).second;
    left.block = KeepRows(left.block, keep);
    return left;
  }
  // Without DISTINCT these are multiset operations, as ClickHouse's ALL mode: INTERSECT keeps a
  // row as often as both sides have it, EXCEPT cancels one left row per equal right row (both in
  // the left side's order).
  absl::flat_hash_map<std::string, uint64_t> in_right;
  for (size_t r = 0; r < right.block.rows(); ++r) ++in_right[RowKey(right.block, r)];
  const bool intersect = op == SetOperator::kIntersect || op == SetOperator::kIntersectDistinct;
  const bool distinct = op == SetOperator::kIntersectDistinct || op == SetOperator::kExceptDistinct;
  absl::flat_hash_set<std::string> seen;
  std::vector<uint8_t> keep(left_rows);
  for (size_t r = 0; r < left_rows; ++r) {
    std::string key = RowKey(left.block, r);
    auto it = in_right.find(key);
    const bool matched = it != in_right.end() && (distinct || it->second > 0);
    if (matched && !distinct) --it->second;
    keep[r] = matched == intersect && (!distinct || seen.insert(key).second);
  }
  left.block = KeepRows(left.block, keep);
  return left;
}

}  // namespace granite::coordinator
