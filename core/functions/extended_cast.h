// The conversions of CastColumn (cast_column.h) where either side is Bool, UUID, DateTime64 or
// FixedString (String on the other side is handled by CastColumn through the text forms).
//
// Bool: a number is true when not zero; Bool becomes the number 0 / 1. DateTime64(p): a number is
// a unix timestamp in seconds (floats keep their fraction to p digits); Date and DateTime convert
// exactly; another precision rescales (a smaller one truncates toward zero); DateTime64 becomes
// an integer or DateTime as whole seconds (truncated; DateTime clamps to its range), a float as
// seconds with the fraction, a Date as its day. FixedString(N) -> FixedString(M) pads, or is
// TOO_LARGE_STRING_SIZE when a value is longer than M. Every other pair (UUID with anything but
// String, the new types with decimals) is CANNOT_CONVERT_TYPE naming both types.
#pragma once

#include "absl/status/statusor.h"
#include "core/column.h"

namespace granite::core {

// Returns whether CastColumn must call CastExtendedColumn for `from` -> `to`.
bool IsExtendedCast(TypeId from, TypeId to);

// Converts `column` to `to`. REQUIRES: IsExtendedCast(column.type(), to); the types differ;
// neither is String.
absl::StatusOr<ColumnPtr> CastExtendedColumn(const Column& column, TypeId to);

}  // namespace granite::core
