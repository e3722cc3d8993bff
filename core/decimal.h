// Decimal values: scaled integers (value * 10^S in int32_t / int64_t / Int128, see core/types.h)
// and the arithmetic, text and conversion rules ClickHouse applies to them. Used by the value
// text layer (input formats, printing), CAST and the decimal kernels of core/functions/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "core/column.h"
#include "core/types.h"

namespace granite::core {

// Returns 10^n. REQUIRES: 0 <= n <= 38.
Int128 PowerOf10(int n);

// Returns the largest magnitude a Decimal(P, _) holds: 10^P - 1.
inline Int128 MaxDecimalMagnitude(int precision) { return PowerOf10(precision) - 1; }

// Returns whether |value| < 10^precision.
inline bool FitsPrecision(Int128 value, int precision) {
  const Int128 max = MaxDecimalMagnitude(precision);
  return value <= max && value >= -max;
}

// Returns whether a scaled value fits the physical integer of decimal type `type`. ClickHouse
// checks overflow against the storage width, not the precision: toDecimal32(1000000000, 0) is
// fine, toDecimal32(3000000000, 0) overflows.
inline bool FitsWidth(Int128 value, TypeId type) {
  switch (BaseOf(type)) {
    case TypeId::kDecimal32: return value >= INT32_MIN && value <= INT32_MAX;
    case TypeId::kDecimal64: return value >= INT64_MIN && value <= INT64_MAX;
    default: return true;
  }
}

// Returns the largest precision of the storage width of a Decimal(precision, _): 9, 18 or 38.
inline int WidthPrecision(int precision) { return precision <= 9 ? 9 : precision <= 18 ? 18 : 38; }

// Parses decimal text ("-24386.67", "+1", ".5", "1e3", "1.5E-1") as a Decimal(P, S) scaled
// integer. Digits beyond the scale are dropped (truncation toward zero, as ClickHouse's text
// input does); a value needing more digits than the storage width's precision (9, 18, 38; as
// ClickHouse, not P) is an error. Returns
// CANNOT_PARSE_TEXT for malformed text and ARGUMENT_OUT_OF_BOUND ("Too many digits") for a value
// that does not fit.
absl::Status ParseDecimalText(std::string_view text, int precision, int scale, Int128* value);

// Appends a scaled integer as text: the integer part, then '.' and the fraction digits, trailing
// zeros dropped unless `trailing_zeros` (ClickHouse: "3774200", "0.05", "-1.5").
void AppendDecimalText(Int128 value, int scale, bool trailing_zeros, std::string* out);

// Returns the text of a whole Int128 ("-170141183460469231731687303715884105728").
std::string Int128ToString(Int128 value);

// Converts a scaled integer to double (value / 10^scale, one rounding for |value| < 2^53 as
// ClickHouse's conversion).
double DecimalToDouble(Int128 value, int scale);

// Rescales `value` from scale `from` to scale `to`: multiplies by 10^(to - from) (overflow sets
// *overflow) or divides, truncating toward zero. REQUIRES: 0 <= from, to <= 38.
Int128 Rescale(Int128 value, int from, int to, bool* overflow);

// Returns the type decimal arithmetic on integers uses for an integer type: Decimal(P, 0) with P
// the digits of its widest value (UInt8/Int8: 3, 16 bits: 5, 32 bits: 10, 64 bits: 19/20 → 20
// clamped to the 128-bit width). REQUIRES: IsInteger(type).
TypeId IntegerAsDecimal(TypeId type);

// Reads row `row` of a decimal column as a scaled Int128. REQUIRES: IsDecimal(column.type()).
inline Int128 DecimalAt(const Column& column, size_t row) {
  switch (BaseOf(column.type())) {
    case TypeId::kDecimal32: return column.Get<int32_t>(row);
    case TypeId::kDecimal64: return column.Get<int64_t>(row);
    default: return column.Get<Int128>(row);
  }
}

// Appends a scaled value to a decimal column, narrowing to its physical width.
// REQUIRES: IsDecimal(column->type()) and the value fits its precision.
inline void AppendDecimal(Int128 value, Column* column) {
  switch (BaseOf(column->type())) {
    case TypeId::kDecimal32: return column->Append(static_cast<int32_t>(value));
    case TypeId::kDecimal64: return column->Append(static_cast<int64_t>(value));
    default: return column->Append(value);
  }
}

}  // namespace granite::core
