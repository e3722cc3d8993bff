// CastColumn: converts a whole column to another type with ClickHouse CAST / toT semantics. Used
// by CAST and the toUInt8 ... toDateTime functions, and by kernels that bring their operands to
// one compute type before a homogeneous loop (plus on UInt8 and Int8 casts both to Int16).
//
// Numbers: integers wrap (toUInt8(300) = 44, toUInt32(-1) = 4294967295); floats truncate toward
// zero, and a float that is not finite or outside the 64-bit range becomes 0. Date <-> DateTime:
// midnight / the day of the timestamp. Number -> Date: values up to 65535 are day numbers, larger
// values unix timestamps (ClickHouse's toDate rule), negative values 1970-01-01. Number ->
// DateTime: seconds, wrapping like UInt32. Date and DateTime -> number: the day number / the
// timestamp. String -> T parses each value (core::ParseValueText); T -> String prints it
// (core::AppendValueText). Decimals: see decimal_cast.h.
#pragma once

#include <cstdint>
#include <type_traits>

#include "absl/status/statusor.h"
#include "core/column.h"

namespace granite::core {

// Returns `column` converted to `to`; `column` itself when it already has type `to`.
// Errors: kCannotParseText naming the first string that does not parse as `to`;
// CANNOT_CONVERT_TYPE from or to a tuple type (a Tuple, Map or Array(Tuple)).
absl::StatusOr<ColumnPtr> CastColumn(const ColumnPtr& column, TypeId to);

// Converts one number between physical types with the semantics above (no Date rules).
template <typename To, typename From>
inline To CastNumber(From v) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    constexpr double kTwo63 = 9223372036854775808.0;
    const double d = static_cast<double>(v);
    if (d >= -kTwo63 && d < kTwo63) return static_cast<To>(static_cast<int64_t>(d));
    if (d >= kTwo63 && d < 2 * kTwo63) return static_cast<To>(static_cast<uint64_t>(d));
    return To{0};  // NaN, infinite or beyond 64 bits
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace granite::core
