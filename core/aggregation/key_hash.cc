#include "core/aggregation/key_hash.h"

#include "core/types.h"

namespace granite::core {
namespace {

// Writes (combine ? HashCombine(out[i], h) : h) for the hash h of row i of `column`.
template <bool kCombine>
void HashColumn(const Column& column, size_t rows, uint64_t* out) {
  if (column.type() == TypeId::kString) {
    for (size_t i = 0; i < rows; ++i) {
      uint64_t h = HashBytes(column.StringAt(i));
      out[i] = kCombine ? HashCombine(out[i], h) : h;
    }
    return;
  }
  DispatchFixed(column.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    const T* values = column.Data<T>();
    for (size_t i = 0; i < rows; ++i) {
      uint64_t h = HashInt(WidenKey(values[i]));
      out[i] = kCombine ? HashCombine(out[i], h) : h;
    }
  });
}

template <typename Ptr>
void HashKeysImpl(const std::vector<Ptr>& keys, size_t rows, uint64_t* out) {
  if (keys.empty()) {
    std::memset(out, 0, rows * sizeof(uint64_t));
    return;
  }
  HashColumn<false>(*keys[0], rows, out);
  for (size_t k = 1; k < keys.size(); ++k) HashColumn<true>(*keys[k], rows, out);
}

}  // namespace

void HashKeys(const std::vector<ColumnPtr>& keys, size_t rows, uint64_t* out) {
  HashKeysImpl(keys, rows, out);
}

void HashKeys(const std::vector<MutableColumnPtr>& keys, size_t rows, uint64_t* out) {
  HashKeysImpl(keys, rows, out);
}

}  // namespace granite::core
