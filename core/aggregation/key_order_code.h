// Order codes: a 64-bit unsigned code per value of one column such that code(a) < code(b)
// implies a sorts strictly before b in the column's ORDER BY direction (ascending, or descending).
// Equal codes say nothing: a string's code is its first 8 bytes, so "abcdefghX" and "abcdefghY"
// share one. The GROUP BY ... ORDER BY key LIMIT filter (hash_limit_filter.h) ranks rows by these
// codes: a row whose code exceeds L distinct smaller codes sorts after at least L other groups.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/column.h"
#include "core/types.h"

namespace granite::core {

// True when OrderCodes supports columns of `type`: non-Nullable integers, Bool, Date, DateTime,
// DateTime64, Decimal32/64, String and FixedString. Floats (NaN sorts last both ways), Nullable
// types, Decimal128 and UUID are not.
bool HasOrderCode(TypeId type);

// Writes the order code of rows [0, rows) of `column` to codes[0, rows): smaller codes sort first,
// ascending or (descending = true) descending.
// REQUIRES: HasOrderCode(column.logical_type()); column has at least `rows` rows.
void OrderCodes(const Column& column, bool descending, size_t rows, uint64_t* codes);

}  // namespace granite::core
