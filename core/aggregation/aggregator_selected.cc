// Aggregator::AddSelected: aggregation of the rows a WHERE filter kept, read through a selection
// vector instead of filtered copies of the columns (`WHERE s <> '' GROUP BY s` over a String
// column copied the kept strings before hashing them; a GROUP BY of an integer and a String
// serialized its keys from copies).
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/aggregation/aggregator.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

// Returns the selected rows of `column` (a copy).
ColumnPtr Gather(const ColumnPtr& column, const uint32_t* selection, size_t count) {
  return std::make_shared<Column>(column->Take(selection, count));
}

// Clears Aggregator::selection_ when AddSelected returns.
class SelectionScope {
 public:
  SelectionScope(const uint32_t** slot, const uint32_t* selection) : slot_(slot) {
    *slot_ = selection;
  }
  ~SelectionScope() { *slot_ = nullptr; }
  SelectionScope(const SelectionScope&) = delete;
  SelectionScope& operator=(const SelectionScope&) = delete;

 private:
  const uint32_t** slot_;
};

}  // namespace

absl::Status Aggregator::AddSelected(const std::vector<ColumnPtr>& keys,
                                     const std::vector<std::vector<ColumnPtr>>& args,
                                     const uint32_t* selection, size_t count) {
  if (count == 0) return Add(keys, args, 0);
  // Ascending rows: the last one bounds them all.
  const size_t last = selection[count - 1];
  auto check = [&](const ColumnPtr& column) -> absl::Status {
    if (column->size() <= last) {
      return Error(ErrorCode::kLogicalError,
                   absl::StrCat("Selected row ", last, " is outside a column of ", column->size(),
                                " rows"));
    }
    return absl::OkStatus();
  };
  for (const ColumnPtr& key : keys) RETURN_IF_ERROR(check(key));
  for (const std::vector<ColumnPtr>& columns : args) {
    for (const ColumnPtr& arg : columns) RETURN_IF_ERROR(check(arg));
  }
  if (layout_ == KeyLayout::kNoKeys) {
    // One group: AddBatchOneGroup reads rows [0, count) of gathered arguments.
    std::vector<std::vector<ColumnPtr>> gathered_args(args.size());
    for (size_t a = 0; a < args.size(); ++a) {
      for (const ColumnPtr& arg : args[a]) {
        gathered_args[a].push_back(Gather(arg, selection, count));
      }
    }
    return Add(keys, gathered_args, count);
  }
  // Add's checks see `count` rows of columns that hold at least last + 1 >= count rows; the
  // functions read argument row selection[i] for batch row i (AddBatchSelected).
  if (layout_ == KeyLayout::kString || layout_ == KeyLayout::kSerialized) {
    // AssignGroups reads key row selection[i] for batch row i (in place: the String view, or
    // serialized and hashed through the selection).
    SelectionScope scope(&selection_, selection);
    return AddRows(keys, args, count, selection);
  }
  std::vector<ColumnPtr> gathered_keys;
  gathered_keys.reserve(keys.size());
  for (const ColumnPtr& key : keys) gathered_keys.push_back(Gather(key, selection, count));
  return AddRows(gathered_keys, args, count, selection);
}

}  // namespace granite::core
