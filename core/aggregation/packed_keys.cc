#include "core/aggregation/packed_keys.h"

#include <cstring>

#include "core/aggregation/key_hash.h"

namespace granite::core {
namespace {

// Copies the low sizeof(T) bytes of each widened value to byte `offset` of each packed key.
template <typename Packed>
void PackInto(const std::vector<ColumnPtr>& keys, size_t rows, Packed* out) {
  std::memset(static_cast<void*>(out), 0, rows * sizeof(Packed));
  size_t offset = 0;
  for (const ColumnPtr& key : keys) {
    DispatchFixed(key->type(), [&](auto tag) {
      using T = typename decltype(tag)::Type;
      const T* values = key->Data<T>();
      for (size_t i = 0; i < rows; ++i) {
        StoreKeyBytes(values[i], reinterpret_cast<char*>(&out[i]) + offset);
      }
      offset += sizeof(T);
    });
  }
}

}  // namespace

size_t PackedWidth(const std::vector<TypeId>& types) {
  size_t width = 0;
  for (TypeId type : types) {
    if (HasStringLayout(type)) return 0;
    width += ValueSize(type);
  }
  return width;
}

void PackKeys64(const std::vector<ColumnPtr>& keys, size_t rows, uint64_t* out) {
  PackInto(keys, rows, out);
}

void PackKeys128(const std::vector<ColumnPtr>& keys, size_t rows, UInt128* out) {
  PackInto(keys, rows, out);
}

}  // namespace granite::core
