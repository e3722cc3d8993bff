// Text forms of single values: how a column value prints (the unquoted ClickHouse text form that
// every output format starts from) and how text or a literal becomes a column value (input
// formats, INSERT VALUES, CAST and constant folding).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/status/status.h"
#include "core/column.h"
#include "core/types.h"
#include "core/value.h"

namespace granite::core {

// Appends the ClickHouse text form of row `row` of `column`, without quoting or escaping:
// integers in decimal; floats in the shortest text that reads back to the same value, fixed
// notation for decimal exponents -6 .. 20 and "1e21" / "1e-7" style otherwise (ClickHouse's
// rule), "inf", "-inf", "nan"; Date "2013-07-15"; DateTime "2013-07-15 10:47:34"; strings raw.
// REQUIRES: row < column.size().
void AppendValueText(const Column& column, size_t row, std::string* out);

// Appends every row's text (AppendValueText) to `strings` as one String value each: how a Tuple
// or Map value travels to an INSERT, which parses it into the column's subcolumns
// (core/compound_column.h). REQUIRES: strings->type() == String.
void AppendRowTexts(const Column& column, Column* strings);

// Appends the text form of one float / double as described above.
void AppendFloatText(double value, std::string* out);
void AppendFloatText(float value, std::string* out);

// Parses `text` as a value of `type` and appends it to `column`. Integers: optional '+' or '-'
// then digits, no spaces, out of range is an error; floats: decimal or exponent notation,
// "inf", "-inf", "nan" (any case); Date and DateTime as in core/date_time.h; String: as is.
// Returns Error(kCannotParseText, "Cannot parse \"abc\" as UInt32") on failure (callers add the
// position), or Error(kValueIsOutOfRangeOfDataType, "Value 300 is out of range of UInt8") for a
// well-formed integer that does not fit an integer type (as AppendValue says of a literal, so
// every input format and INSERT VALUES agree; a '-' before an unsigned type's digits is a parse
// error, as in ClickHouse), and leaves `column` unchanged.
// REQUIRES: column->type() == type.
absl::Status ParseValueText(std::string_view text, TypeId type, Column* column);

// Parses an integer of type T (any integer C++ type) from the whole of `text`: optional '+' or
// '-', then at least one digit. Returns false on malformed or out-of-range text ("-0" is fine for
// unsigned types). The hot path of the input formats, so it is inline.
template <typename T>
inline bool ParseIntegerText(std::string_view text, T* value) {
  size_t i = 0;
  const size_t n = text.size();
  bool negative = false;
  if (n > 0 && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    i = 1;
  }
  if (i == n) return false;
  uint64_t acc = 0;
  for (; i < n; ++i) {
    unsigned digit = static_cast<unsigned char>(text[i]) - unsigned{'0'};
    if (digit > 9) return false;
    if (__builtin_mul_overflow(acc, uint64_t{10}, &acc) ||
        __builtin_add_overflow(acc, uint64_t{digit}, &acc)) {
      return false;
    }
  }
  if constexpr (std::is_signed_v<T>) {
    const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<T>::max()) + (negative ? 1 : 0);
    if (acc > limit) return false;
    *value = static_cast<T>(negative ? uint64_t{0} - acc : acc);
  } else {
    if ((negative && acc != 0) || acc > std::numeric_limits<T>::max()) return false;
    *value = static_cast<T>(acc);
  }
  return true;
}

// Parses a float from the whole of `text` (see ParseValueText); returns false if malformed.
bool ParseFloatText(std::string_view text, double* value);
bool ParseFloatText(std::string_view text, float* value);

// Converts a literal to `type` and appends it to `column` (INSERT VALUES, constant folding):
// integers convert with range checks; floats convert to integer types by truncation toward zero
// when in range; integers become Date / DateTime as day numbers / unix timestamps; strings parse
// via ParseValueText (so '2013-07-01' becomes a Date); numbers become String as their text.
// Returns Error(kValueIsOutOfRangeOfDataType, "Value 300 is out of range of UInt8") when the
// value does not fit, or the ParseValueText error; leaves `column` unchanged on error.
// REQUIRES: column->type() == type.
absl::Status AppendValue(const Value& value, TypeId type, Column* column);

// Returns the text of a literal as AppendValueText would print it (strings raw, numbers decimal).
std::string ValueToText(const Value& value);

}  // namespace granite::core
