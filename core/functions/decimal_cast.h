// Decimal conversions of CastColumn (cast_column.h): the cases where either side is a Decimal.
//
// Decimal -> Decimal rescales (a smaller scale truncates toward zero); an integer becomes
// value * 10^S; a float becomes value * 10^S truncated toward zero (ClickHouse's rule); a
// decimal becomes an integer by truncating its fraction (wrapping like CastNumber) and a float by
// value / 10^S. A result that does not fit the target precision, and a NaN or infinite float, is
// DECIMAL_OVERFLOW naming the value and the type. Strings parse and print through value_text.h.
#pragma once

#include "absl/status/statusor.h"
#include "core/column.h"

namespace granite::core {

// Converts `column` to `to`. REQUIRES: IsDecimal(column.type()) or IsDecimal(to); neither is
// String; the types differ.
absl::StatusOr<ColumnPtr> CastDecimalColumn(const Column& column, TypeId to);

}  // namespace granite::core
