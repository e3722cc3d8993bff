#include "core/decimal.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"

namespace granite::core {
namespace {

constexpr Int128 MakePower(int n) {
  Int128 value = 1;
  for (int i = 0; i < n; ++i) value *= 10;
  return value;
}

struct PowerTable {
  Int128 values[kMaxDecimalPrecision + 1];
  constexpr PowerTable() : values() {
    for (int i = 0; i <= kMaxDecimalPrecision; ++i) values[i] = MakePower(i);
  }
};

constexpr PowerTable kPowers;

absl::Status CannotParse(std::string_view text, int precision, int scale) {
  return Error(ErrorCode::kCannotParseText,
               absl::StrCat("Cannot parse \"", ToAbsl(text), "\" as ", ToAbsl(TypeName(MakeDecimal(precision, scale)))));
}

}  // namespace

Int128 PowerOf10(int n) { return kPowers.values[n]; }

absl::Status ParseDecimalText(std::string_view text, int precision, int scale, Int128* value) {
  size_t i = 0;
  const size_t n = text.size();
  bool negative = false;
  if (i < n && (text[i] == '-' || text[i] == '+')) {
    negative = text[i] == '-';
    ++i;
  }
  // Collect the significant digits (leading zeros skipped) and where the point falls.
  char digits[80];
  int digit_count = 0;
  int integer_digits = 0;  // significant digits before the point
  bool seen_point = false, seen_digit = false;
  int dropped_fraction_digits = 0;
  int fraction_digits = 0;  // kept digits after the point
  for (; i < n; ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      seen_digit = true;
      if (!seen_point) {
        if (digit_count == 0 && c == '0') continue;
        if (digit_count >= 77) return CannotParse(text, precision, scale);
        digits[digit_count++] = c;
        ++integer_digits;
      } else {
        if (digit_count >= 77) {
          ++dropped_fraction_digits;
          continue;
        }
        digits[digit_count++] = c;
        ++fraction_digits;
      }
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!seen_digit) return CannotParse(text, precision, scale);
  int exponent = 0;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (text[i] == '-' || text[i] == '+')) exp_negative = text[i++] == '-';
    if (i == n) return CannotParse(text, precision, scale);
    for (; i < n; ++i) {
      if (text[i] < '0' || text[i] > '9' || exponent > 1000) return CannotParse(text, precision, scale);
      exponent = exponent * 10 + (text[i] - '0');
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != n) return CannotParse(text, precision, scale);
  (void)dropped_fraction_digits;
  // The digits d[0..count) read as an integer D; the value is D * 10^(exponent - fraction_digits).
  // Scaled: D * 10^(exponent - fraction_digits + scale). Keep digits down to that position.
  const int shift = exponent - fraction_digits + scale;
  int keep = digit_count;
  if (shift < 0) keep = std::max(0, digit_count + shift);
  // Strip leading zeros that come from the fraction ("0.05" gives digits "05").
  int first = 0;
  while (first < keep && digits[first] == '0') ++first;
  const int significant = keep - first + std::max(shift, 0);
  if (significant > WidthPrecision(precision)) {
    return Error(ErrorCode::kArgumentOutOfBound,
                 absl::StrCat("Too many digits (", significant, " > ", WidthPrecision(precision),
                              ") in decimal value \"", ToAbsl(text), "\" for ",
                              ToAbsl(TypeName(MakeDecimal(precision, scale)))));
  }
  Int128 result = 0;
  for (int d = first; d < keep; ++d) result = result * 10 + (digits[d] - '0');
  if (shift > 0) result *= PowerOf10(shift);
  *value = negative ? -result : result;
  return absl::OkStatus();
}

std::string Int128ToString(Int128 value) {
  char buffer[48];
  char* end = buffer + sizeof(buffer);
  char* p = end;
  const bool negative = value < 0;
  unsigned __int128 magnitude =
      negative ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(value)
               : static_cast<unsigned __int128>(value);
  do {
    *--p = static_cast<char>('0' + static_cast<int>(magnitude % 10));
    magnitude /= 10;
  } while (magnitude != 0);
  if (negative) *--p = '-';
  return std::string(p, end);
}

void AppendDecimalText(Int128 value, int scale, bool trailing_zeros, std::string* out) {
  std::string digits = Int128ToString(value);
  if (value < 0) {
    out->push_back('-');
    digits.erase(0, 1);
  }
  if (scale == 0) {
    out->append(digits);
    return;
  }
  if (static_cast<int>(digits.size()) <= scale) {
    digits.insert(0, scale + 1 - digits.size(), '0');
  }
  const size_t point = digits.size() - scale;
  size_t end = digits.size();
  if (!trailing_zeros) {
    while (end > point && digits[end - 1] == '0') --end;
  }
  out->append(digits, 0, point);
  if (end > point) {
    out->push_back('.');
    out->append(digits, point, end - point);
  }
}

double DecimalToDouble(Int128 value, int scale) {
  return static_cast<double>(value) / static_cast<double>(PowerOf10(scale));
}

Int128 Rescale(Int128 value, int from, int to, bool* overflow) {
  if (to == from) return value;
  if (to < from) return value / PowerOf10(from - to);
  Int128 result;
  if (__builtin_mul_overflow(value, PowerOf10(to - from), &result)) *overflow = true;
  return result;
}

TypeId IntegerAsDecimal(TypeId type) {
  switch (BaseOf(type)) {
    case TypeId::kUInt8:
    case TypeId::kInt8: return MakeDecimal(3, 0);
    case TypeId::kUInt16:
    case TypeId::kInt16:
    case TypeId::kDate: return MakeDecimal(5, 0);
    case TypeId::kUInt32:
    case TypeId::kInt32:
    case TypeId::kDateTime: return MakeDecimal(10, 0);
    case TypeId::kInt64: return MakeDecimal(19, 0);
    default: return MakeDecimal(20, 0);
  }
}

}  // namespace granite::core
