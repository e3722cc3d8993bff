#include "core/block_sort.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <type_traits>

#include "core/functions/array_columns.h"

namespace granite::core {
namespace {

// Up to this many ascending runs are merged; more are sorted whole.
constexpr size_t kMaxRuns = 16;
// Below this many rows a comparison sort beats the radix sort's passes.
constexpr size_t kMinRadixRows = 4096;

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

// The order-preserving unsigned image of an integer: ascending order of the images is the
// values' order (the sign bit flipped for signed types); complemented for a descending key.
template <typename T>
uint64_t OrderedKey(T value, bool descending) {
  uint64_t key = static_cast<uint64_t>(value);
  if constexpr (std::is_signed_v<T>) {
    key = static_cast<uint64_t>(static_cast<int64_t>(value)) ^ (uint64_t{1} << 63);
  }
  return descending ? ~key : key;
}

struct KeyedRow {
  uint64_t key;
  uint32_t row;
};

// Stable LSD radix sort of `items` by `passes` bytes of their key (`digit(item, p)`: the key's
// byte p), skipping the bytes where every key is the same. `scratch` has items.size() entries.
template <typename Item, typename Digit>
void RadixSort(std::vector<Item>* items, std::vector<Item>* scratch, int passes, Digit digit) {
  const size_t n = items->size();
  std::vector<std::array<uint32_t, 256>> counts(passes);
  for (auto& c : counts) c.fill(0);
  for (const Item& item : *items) {
    for (int p = 0; p < passes; ++p) ++counts[p][digit(item, p)];
  }
  Item* from = items->data();
  Item* to = scratch->data();
  for (int p = 0; p < passes; ++p) {
    std::array<uint32_t, 256>& c = counts[p];
    if (*std::max_element(c.begin(), c.end()) == n) continue;  // one byte value: order kept
    uint32_t sum = 0;
    for (uint32_t& slot : c) {
      const uint32_t count = slot;
      slot = sum;
      sum += count;
    }
    for (size_t i = 0; i < n; ++i) to[c[digit(from[i], p)]++] = from[i];
    std::swap(from, to);
  }
  if (from != items->data()) std::copy(from, from + n, items->data());
}

// Merges the sorted runs of `items` (ascending stretches starting at `starts`) pairwise until
// one is left; std::merge takes the left run's item first on equal keys, so ties keep row order.
template <typename Item, typename Less>
void MergeRuns(std::vector<Item>* items, std::vector<size_t> starts, Less less) {
  std::vector<Item> scratch(items->size());
  starts.push_back(items->size());
  Item* from = items->data();
  Item* to = scratch.data();
  while (starts.size() > 2) {
    std::vector<size_t> merged;
    size_t i = 0;
    for (; i + 2 < starts.size(); i += 2) {
      merged.push_back(starts[i]);
      std::merge(from + starts[i], from + starts[i + 1], from + starts[i + 1],
                 from + starts[i + 2], to + starts[i], less);
    }
    if (i + 1 < starts.size()) {  // an odd run left over: carried to the next pass
      merged.push_back(starts[i]);
      std::copy(from + starts[i], from + starts[i + 1], to + starts[i]);
    }
    merged.push_back(starts.back());
    starts = std::move(merged);
    std::swap(from, to);
  }
  if (from != items->data()) std::copy(from, from + items->size(), items->data());
}

// Sorts `items` (already in row order) stably by key: merging `run_starts`' runs when there are
// few, a radix sort of the key's `key_bytes` when there are many items, else a comparison sort.
template <typename Item, typename Less, typename Digit>
void SortItems(std::vector<Item>* items, std::vector<size_t> run_starts, int key_bytes, Less less,
               Digit digit) {
  if (run_starts.size() <= kMaxRuns) {
    MergeRuns(items, std::move(run_starts), less);
  } else if (items->size() >= kMinRadixRows) {
    std::vector<Item> scratch(items->size());
    RadixSort(items, &scratch, key_bytes, digit);
  } else {
    std::stable_sort(items->begin(), items->end(), less);
  }
}

// One ORDER BY key of a plain integer column (a key set sorted by its values, ORDER BY id):
// typed, with no per-pair dispatch on the column's type; ties keep input order. Rows already in
// order (a table read in its sort key's order) cost one pass; a few sorted runs (workers'
// sorted streams concatenated) are merged; many rows otherwise are radix sorted, as one 64-bit
// word per row (key above, row below) when the keys span under 2^32 (ids, dates, counts).
// bench/sort/integer_sort_bench.cc compares it with a comparison sort. Returns false for any
// other key.
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
      const size_t rows = perm->size();
      const T* data = column.Data<T>();
      const bool descending = key.descending;
      uint64_t low = ~uint64_t{0}, high = 0, previous = 0;
      std::vector<size_t> run_starts{0};
      for (size_t i = 0; i < rows; ++i) {
        const uint64_t k = OrderedKey(data[i], descending);
        low = std::min(low, k);
        high = std::max(high, k);
        if (i > 0 && k < previous && run_starts.size() <= kMaxRuns) run_starts.push_back(i);
        previous = k;
      }
      const bool partial = limit > 0 && limit < rows;
      if (run_starts.size() == 1) {  // in order already: perm is the identity
        if (partial) perm->resize(limit);
        return true;
      }
      const uint64_t span = high - low;
      const int key_bytes = (64 - __builtin_clzll(span) + 7) / 8;
      if (span <= std::numeric_limits<uint32_t>::max() && !partial) {
        std::vector<uint64_t> items(rows);
        for (size_t i = 0; i < rows; ++i) {
          items[i] = ((OrderedKey(data[i], descending) - low) << 32) | i;
        }
        SortItems(
            &items, std::move(run_starts), key_bytes,
            [](uint64_t a, uint64_t b) { return (a >> 32) < (b >> 32); },
            [](uint64_t item, int p) { return (item >> (32 + 8 * p)) & 0xff; });
        for (size_t i = 0; i < rows; ++i) (*perm)[i] = static_cast<uint32_t>(items[i]);
        return true;
      }
      std::vector<KeyedRow> items(rows);
      for (size_t i = 0; i < rows; ++i) {
        items[i] = KeyedRow{OrderedKey(data[i], descending) - low, static_cast<uint32_t>(i)};
      }
      auto less = [](const KeyedRow& a, const KeyedRow& b) { return a.key < b.key; };
      if (partial) {
        auto with_row = [](const KeyedRow& a, const KeyedRow& b) {
          return a.key != b.key ? a.key < b.key : a.row < b.row;
        };
        std::partial_sort(items.begin(), items.begin() + limit, items.end(), with_row);
        items.resize(limit);
      } else {
        SortItems(&items, std::move(run_starts), key_bytes, less,
                  [](const KeyedRow& item, int p) { return (item.key >> (8 * p)) & 0xff; });
      }
      perm->resize(items.size());
      for (size_t i = 0; i < items.size(); ++i) (*perm)[i] = items[i].row;
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
