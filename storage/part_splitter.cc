#include "storage/part_splitter.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/block_sort.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::storage {
namespace {

// Returns true when rows [0, n) of `columns` are already in ascending order (lexicographically).
bool IsSorted(const std::vector<core::ColumnPtr>& columns) {
  if (columns.empty()) return true;
  size_t rows = columns[0]->size();
  for (size_t r = 1; r < rows; ++r) {
    for (const core::ColumnPtr& column : columns) {
      int c = 0;
      if (core::HasStringLayout(column->type())) {
        c = column->StringAt(r - 1).compare(column->StringAt(r));
      } else {
        c = core::DispatchFixed(column->type(), [&](auto tag) {
          using T = typename decltype(tag)::Type;
          T a = column->Get<T>(r - 1), b = column->Get<T>(r);
          if constexpr (std::is_floating_point_v<T>) {
            if (a != a || b != b) return (a != a) ? ((b != b) ? 0 : 1) : -1;
          }
          return a < b ? -1 : (b < a ? 1 : 0);
        });
      }
      if (c < 0) break;      // this row pair is ordered
      if (c > 0) return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const PartSplitter>> PartSplitter::Create(
    const TableSchema& schema, bool strict) {
  std::shared_ptr<PartSplitter> splitter(new PartSplitter());
  auto in_clause = [&](const absl::Status& status, const char* clause) {
    return core::Error(core::CodeOf(status), absl::StrCat("In ", clause, " of table ", schema.name,
                                                          ": ", status.message()));
  };
  // PARTITION BY tuple() is ClickHouse's spelling of "no partitioning"; tuples of several
  // expressions are not supported.
  const std::string& partition_by = schema.partition_by;
  bool tuple = absl::StartsWith(partition_by, "tuple(");
  if (tuple && partition_by != "tuple()" && strict) {
    return core::Error(core::ErrorCode::kNotImplemented,
                       absl::StrCat("PARTITION BY ", partition_by, " of table ", schema.name,
                                    ": a partition key of several expressions is not supported; "
                                    "use one expression"));
  }
  if (!partition_by.empty() && !tuple) {
    auto key = KeyExpression::Parse(partition_by, schema);
    if (key.ok()) {
      splitter->partition_key_ = *std::move(key);
    } else if (strict) {
      return in_clause(key.status(), "PARTITION BY");
    }
  }
  const std::vector<std::string>& sort_key =
      schema.order_by.empty() ? schema.primary_key : schema.order_by;
  for (const std::string& text : sort_key) {
    auto key = KeyExpression::Parse(text, schema);
    if (!key.ok()) break;
    splitter->sort_key_.push_back(*std::move(key));
    splitter->sort_key_text_.push_back(text);
  }
  return std::shared_ptr<const PartSplitter>(std::move(splitter));
}

absl::StatusOr<PartSplitter::Piece> PartSplitter::SortWith(const core::Block& block,
                                                           core::ColumnPtr prefix,
                                                           core::ColumnPtr* sorted_prefix) const {
  Piece piece;
  piece.description.sort_key = sort_key_text_;
  std::vector<core::ColumnPtr> keys;
  if (prefix != nullptr) keys.push_back(prefix);
  for (const auto& key : sort_key_) {
    ASSIGN_OR_RETURN(core::ColumnPtr column, key->Evaluate(block));
    keys.push_back(std::move(column));
  }
  if (IsSorted(keys)) {
    piece.block = block;
  } else {
    core::Block key_block;
    key_block.columns = keys;
    std::vector<core::SortColumn> order;
    for (size_t i = 0; i < keys.size(); ++i) order.push_back({i, false});
    std::vector<uint32_t> permutation = core::SortPermutation(key_block, order);
    piece.block = core::TakeRows(block, permutation);
    keys = core::TakeRows(key_block, permutation).columns;
  }
  if (prefix != nullptr) {
    *sorted_prefix = keys.front();
    keys.erase(keys.begin());
  }
  piece.description.key_columns = std::move(keys);
  return piece;
}

absl::StatusOr<PartSplitter::Piece> PartSplitter::Sort(const core::Block& block,
                                                       const PartitionValue& partition) const {
  ASSIGN_OR_RETURN(Piece piece, SortWith(block, nullptr, nullptr));
  piece.description.partition = partition;
  return piece;
}

absl::StatusOr<std::vector<PartSplitter::Piece>> PartSplitter::Split(
    const core::Block& block) const {
  std::vector<Piece> pieces;
  if (block.rows() == 0) return pieces;
  if (partition_key_ == nullptr) {
    ASSIGN_OR_RETURN(Piece piece, Sort(block, PartitionValue()));
    pieces.push_back(std::move(piece));
    return pieces;
  }
  ASSIGN_OR_RETURN(core::ColumnPtr partition_column, partition_key_->Evaluate(block));
  core::ColumnPtr sorted_partitions;
  ASSIGN_OR_RETURN(Piece all, SortWith(block, partition_column, &sorted_partitions));
  // Cuts the sorted rows into runs of one partition value.
  size_t rows = all.block.rows();
  size_t begin = 0;
  while (begin < rows) {
    core::Value value = ValueAt(*sorted_partitions, begin);
    size_t end = begin + 1;
    while (end < rows && ValueAt(*sorted_partitions, end) == value) ++end;
    Piece piece;
    piece.block = core::SliceRows(all.block, begin, end - begin);
    piece.description.partition = {true, partition_key_->type(), std::move(value)};
    piece.description.sort_key = sort_key_text_;
    for (const core::ColumnPtr& key : all.description.key_columns) {
      piece.description.key_columns.push_back(
          std::make_shared<core::Column>(key->Slice(begin, end - begin)));
    }
    pieces.push_back(std::move(piece));
    begin = end;
  }
  return pieces;
}

}  // namespace granite::storage
