#include "core/aggregation/key_hash.h"

#include "core/types.h"

namespace granite::core {
namespace {

// Row i of a batch is row i of the columns, or row selection[i].
struct AllRows {
  size_t operator()(size_t i) const { return i; }
};
struct SelectedRows {
  const uint32_t* selection;
  size_t operator()(size_t i) const { return selection[i]; }
};

// Writes (combine ? HashCombine(out[i], h) : h) for the hash h of row row_of(i) of `column`.
template <bool kCombine, typename RowOf>
void HashColumn(const Column& column, size_t rows, RowOf row_of, uint64_t* out) {
  if (HasStringLayout(column.type())) {
    for (size_t i = 0; i < rows; ++i) {
      uint64_t h = HashBytes(column.StringAt(row_of(i)));
      out[i] = kCombine ? HashCombine(out[i], h) : h;
    }
    return;
  }
  DispatchFixed(column.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    const T* values = column.Data<T>();
    for (size_t i = 0; i < rows; ++i) {
      uint64_t h = HashInt(WidenKey(values[row_of(i)]));
      out[i] = kCombine ? HashCombine(out[i], h) : h;
    }
  });
}

template <typename Ptr, typename RowOf>
void HashKeysImpl(const std::vector<Ptr>& keys, size_t rows, RowOf row_of, uint64_t* out) {
  if (keys.empty()) {
    std::memset(out, 0, rows * sizeof(uint64_t));
    return;
  }
  HashColumn<false>(*keys[0], rows, row_of, out);
  for (size_t k = 1; k < keys.size(); ++k) HashColumn<true>(*keys[k], rows, row_of, out);
}

}  // namespace

void HashKeys(const std::vector<ColumnPtr>& keys, size_t rows, uint64_t* out) {
  HashKeysImpl(keys, rows, AllRows(), out);
}

void HashKeys(const std::vector<MutableColumnPtr>& keys, size_t rows, uint64_t* out) {
  HashKeysImpl(keys, rows, AllRows(), out);
}

void HashSelectedKeys(const std::vector<ColumnPtr>& keys, const uint32_t* selection, size_t count,
                      uint64_t* out) {
  HashKeysImpl(keys, count, SelectedRows{selection}, out);
}

}  // namespace granite::core
