// Magnitude bounds of integer and decimal values: the number of bits b of the largest |v| of a
// batch (every |v| < 2^b). Decimal kernels (core/functions/decimal_arithmetic.cc) and decimal
// sums and averages (core/aggregation/simple_aggregate_function.h) use them to run int64 loops
// without per-row overflow checks when the bounds prove no row can overflow.
//
// A kernel that knows its result's bound from its operands' (a product of values below 2^a and
// 2^b is below 2^(a+b)) makes the result with NewBoundedColumn, which keeps the bound in the
// column's shared_ptr control block (its deleter): the bound lives and dies with that one column
// object, costs Column nothing, and the next kernel or sum of a chain like
// price * (1 - discount) * (1 + tax) reads it instead of scanning the values. A part's reader
// does the same from its granules' min / max (storage/part.cc), so columns read from tables are
// not scanned either; any other column is scanned when asked (MagnitudeBitsOf).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "core/column.h"

namespace granite::core {

// Returns the bits of the largest magnitude among values[0 .. n): 0 when all are 0 (or n == 0),
// 64 when some value is INT64_MIN.
template <typename T>
int MagnitudeBitsOf(const T* values, size_t n) {
  static_assert(std::is_integral_v<T> && sizeof(T) <= 8);
  uint64_t any = 0;
  for (size_t i = 0; i < n; ++i) {
    // |v| as unsigned, without a branch: two's complement negation when the sign bit is set.
    const uint64_t x = static_cast<uint64_t>(static_cast<int64_t>(values[i]));
    const uint64_t sign = x >> 63;
    any |= (x ^ (0 - sign)) + sign;
  }
  return any == 0 ? 0 : 64 - __builtin_clzll(any);
}

// Returns the bits of a non-negative factor (a power of ten, a row count).
inline int BitsOfFactor(int64_t factor) {
  return factor <= 0 ? 0 : 64 - __builtin_clzll(static_cast<uint64_t>(factor));
}

// The deleter of a column made by NewBoundedColumn, or of an object that owns a column that
// ColumnPtrs alias (a granule kept decoded by the storage's cache): deletes it, and holds the
// column's bound.
struct MagnitudeBoundDeleter {
  int bits;
  template <typename T>
  void operator()(T* object) const {
    delete object;
  }
};

// Returns an empty column of `type` whose values the caller promises to bound by `bits`.
// REQUIRES: every value the caller writes, and every later value of this column object, has a
// magnitude below 2^bits (the column is not changed once shared, as any ColumnPtr); the type
// holds integers or decimals of at most 64 bits.
inline std::shared_ptr<Column> NewBoundedColumn(TypeId type, int bits) {
  return std::shared_ptr<Column>(new Column(type), MagnitudeBoundDeleter{bits});
}

// Returns the bound a column was made with (its owner's MagnitudeBoundDeleter), or -1.
inline int KnownMagnitudeBits(const ColumnPtr& column) {
  const MagnitudeBoundDeleter* deleter = std::get_deleter<MagnitudeBoundDeleter>(column);
  return deleter != nullptr ? deleter->bits : -1;
}

// Returns the column's bound: the one it was made with, else found by one pass over the values.
// REQUIRES: the column holds T, an integer type of at most 64 bits other than uint64_t.
template <typename T>
int MagnitudeBitsOf(const ColumnPtr& column) {
  const int known = KnownMagnitudeBits(column);
  if (known >= 0) return known;
  return MagnitudeBitsOf(column->Data<T>(), column->size());
}

}  // namespace granite::core
