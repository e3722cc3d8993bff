#include "core/block_sort.h"

#include <algorithm>
#include <numeric>

#include "core/functions/array_columns.h"

namespace granite::core {
namespace {

// Compares row a with row b by one ORDER BY key: negative when a comes first, zero on a tie.
// As in ClickHouse, NULL and NaN are placed whatever the direction: NULLS LAST (the default)
// puts the values, then NaN, then NULL; NULLS FIRST puts NULL, then NaN, then the values.
int CompareByKey(const Column& column, const SortColumn& key, uint32_t a, uint32_t b) {
  // Ranks a special (NULL or NaN, `rank` 1 or 2 away from the values) against a value or another.
  auto place = [&](int rank_a, int rank_b) {
    if (rank_a == rank_b) return 0;
    return (rank_a < rank_b) == key.nulls_first ? 1 : -1;
  };
  if (column.nullable()) {
    const bool a_null = column.IsNullAt(a), b_null = column.IsNullAt(b);
    if (a_null || b_null) return place(a_null ? 2 : 0, b_null ? 2 : 0);
  }
  int c = 0;
  if (IsArray(column.type())) {
    c = CompareElements(column, a, b);  // element by element, as arraySort orders them
  } else if (HasStringLayout(column.type())) {
    c = column.StringAt(a).compare(column.StringAt(b));
  } else {
    c = DispatchFixed(column.type(), [&](auto tag) {
      using T = typename decltype(tag)::Type;
      T x = column.Get<T>(a), y = column.Get<T>(b);
      if constexpr (std::is_floating_point_v<T>) {
        const bool xn = x != x, yn = y != y;
        if (xn || yn) return 2 * place(xn ? 1 : 0, yn ? 1 : 0);  // 2: not subject to DESC
      }
      return x < y ? -1 : (y < x ? 1 : 0);
    });
    if (c == 2 || c == -2) return c;
  }
  if (c == 0) return 0;
  return (c < 0) != key.descending ? -1 : 1;
}

// One ORDER BY key of a plain integer column (a key set sorted by its values, ORDER BY id):
// the values are copied beside their rows and sorted by a typed compare, with no per-pair
// dispatch on the column's type. Ties keep input order. Returns false for any other key.
bool SortByOneInteger(const Column& column, const SortColumn& key, size_t limit,
                      std::vector<uint32_t>* perm) {
  if (column.nullable() || IsArray(column.type()) || HasStringLayout(column.type()) ||
      !IsInteger(column.type()) || IsDecimal(column.type())) {
    return false;
  }
  return DispatchFixed(column.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    if constexpr (!std::is_integral_v<T> || sizeof(T) > 8) {
      return false;
    } else {
      struct Entry {
        T value;
        uint32_t row;
      };
      const size_t rows = perm->size();
      const T* data = column.Data<T>();
      std::vector<Entry> entries(rows);
      for (size_t i = 0; i < rows; ++i) entries[i] = Entry{data[i], static_cast<uint32_t>(i)};
      const bool descending = key.descending;
      auto less = [descending](const Entry& a, const Entry& b) {
        if (a.value != b.value) return (a.value < b.value) != descending;
        return a.row < b.row;
      };
      if (limit > 0 && limit < rows) {
        std::partial_sort(entries.begin(), entries.begin() + limit, entries.end(), less);
        entries.resize(limit);
      } else {
        std::sort(entries.begin(), entries.end(), less);
      }
      perm->resize(entries.size());
      for (size_t i = 0; i < entries.size(); ++i) (*perm)[i] = entries[i].row;
      return true;
    }
  });
}

}  // namespace

std::vector<uint32_t> SortPermutation(const Block& block, const std::vector<SortColumn>& keys,
                                      size_t limit) {
  size_t rows = block.rows();
  std::vector<uint32_t> perm(rows);
  std::iota(perm.begin(), perm.end(), 0);
  if (keys.empty()) {
    if (limit > 0 && limit < rows) perm.resize(limit);
    return perm;
  }
  if (keys.size() == 1 && SortByOneInteger(*block.columns[keys[0].column], keys[0], limit, &perm)) {
    return perm;
  }
  auto less = [&](uint32_t a, uint32_t b) {
    for (const SortColumn& key : keys) {
      const int c = CompareByKey(*block.columns[key.column], key, a, b);
      if (c != 0) return c < 0;
    }
    return a < b;  // stable
  };
  if (limit > 0 && limit < rows) {
    std::partial_sort(perm.begin(), perm.begin() + limit, perm.end(), less);
    perm.resize(limit);
  } else {
    std::sort(perm.begin(), perm.end(), less);
  }
  return perm;
}

Block TakeRows(const Block& block, const std::vector<uint32_t>& permutation) {
  Block out;
  out.rows_without_columns = permutation.size();
  for (const ColumnPtr& column : block.columns) {
    out.columns.push_back(
        std::make_shared<Column>(column->Take(permutation.data(), permutation.size())));
  }
  return out;
}

Block SliceRows(const Block& block, size_t offset, size_t limit) {
  size_t rows = block.rows();
  size_t start = std::min(offset, rows);
  size_t count = rows - start;
  if (limit > 0) count = std::min(count, limit);
  if (start == 0 && count == rows) return block;
  Block out;
  out.rows_without_columns = count;
  for (const ColumnPtr& column : block.columns) {
    out.columns.push_back(std::make_shared<Column>(column->Slice(start, count)));
  }
  return out;
}

Block ConcatBlocks(const std::vector<Block>& blocks) {
  if (blocks.empty()) return Block{};
  if (blocks.size() == 1) return blocks[0];
  Block out;
  size_t total = 0;
  for (const Block& b : blocks) total += b.rows();
  out.rows_without_columns = total;
  for (size_t c = 0; c < blocks[0].columns.size(); ++c) {
    bool nullable = false;
    for (const Block& b : blocks) nullable |= b.columns[c]->nullable();
    auto column = std::make_shared<Column>(WithNullable(blocks[0].columns[c]->type(), nullable));
    column->Reserve(total);
    for (const Block& b : blocks) column->AppendRange(*b.columns[c], 0, b.rows());
    out.columns.push_back(std::move(column));
  }
  return out;
}

}  // namespace granite::core
