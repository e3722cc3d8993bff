// The hash of GROUP BY keys. It decides the bucket (core::BucketOf) a group's partial state travels
// in, so it is a pure function of the key values and types, identical in every process. It
// depends on the key layout, itself a function of the key types (Aggregator::Create):
//   - one fixed-width key: the value widened to uint64 (WidenKey) and hashed with core::HashIntKey
//     (the Aggregator computes it; HashKeys below, for combined keys, mixes with core::HashInt);
//   - one String key: core::HashBytes;
//   - several fixed-width keys of <= 16 bytes: the hash of their packed form (packed_keys.h);
//   - other combinations (HashKeys below): h = hash(key0), then h = core::HashCombine(h,
//     hash(key_i)) in key order;
//   - no keys: 0.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/column.h"
#include "core/hash.h"

namespace granite::core {

// Returns the 64-bit integer that stands for a fixed-width key value in hash tables and hashes:
// signed integers sign-extend, unsigned integers (and Date, DateTime) zero-extend, floats give their
// bit pattern (Float32: 32 bits zero-extended) with -0.0 folded into +0.0 so both are one group.
template <typename T>
inline uint64_t WidenKey(T value) {
  if constexpr (std::is_floating_point_v<T>) {
    if (value == 0) value = 0;  // -0.0 == 0.0: fold the sign
    if constexpr (sizeof(T) == 4) {
      uint32_t bits;
      std::memcpy(&bits, &value, 4);
      return bits;
    } else {
      uint64_t bits;
      std::memcpy(&bits, &value, 8);
      return bits;
    }
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<uint64_t>(static_cast<int64_t>(value));
  } else {
    return static_cast<uint64_t>(value);
  }
}

// Writes the sizeof(T) key bytes of a value into packed and serialized keys: the low bytes of
// WidenKey (little-endian), or the value itself for a 16-byte integer (Decimal128).
template <typename T>
inline void StoreKeyBytes(T value, char* out) {
  if constexpr (sizeof(T) > 8) {
    std::memcpy(out, &value, sizeof(T));
  } else {
    const uint64_t widened = WidenKey(value);
    std::memcpy(out, &widened, sizeof(T));
  }
}

// Writes the key hash of rows [0, rows) of `keys` to out[0 .. rows).
// REQUIRES: every column holds at least `rows` rows.
void HashKeys(const std::vector<ColumnPtr>& keys, size_t rows, uint64_t* out);

// Same as HashKeys for columns held by mutable pointers (an Aggregator's own key columns).
void HashKeys(const std::vector<MutableColumnPtr>& keys, size_t rows, uint64_t* out);

// Writes the key hash of rows selection[0 .. count) of `keys` to out[0 .. count) (the hashes
// HashKeys gives those rows). REQUIRES: every selected row lies in every column.
void HashSelectedKeys(const std::vector<ColumnPtr>& keys, const uint32_t* selection, size_t count,
                      uint64_t* out);

}  // namespace granite::core
