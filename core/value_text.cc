// Float printing: std::to_chars in scientific form yields the shortest round-trip digits; they are
// then laid out the way ClickHouse (double-conversion's ToShortest with decimal_in_shortest_low
// = -6 and decimal_in_shortest_high = 21) does: fixed notation for decimal exponents -6 .. 20,
// otherwise "d.ddde[-]x" without a '+' sign or leading exponent zeros.
#include "core/value_text.h"

#include <algorithm>

#include "core/quoted_text.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "core/date_time.h"
#include "core/decimal.h"
#include "core/error.h"
#include "core/extended_value_text.h"
#include "core/time_zone.h"

namespace granite::core {
namespace {

template <typename F>
void AppendFloatImpl(F value, std::string* out) {
  if (std::isnan(value)) {
    out->append("nan");
    return;
  }
  if (std::isinf(value)) {
    out->append(value < 0 ? "-inf" : "inf");
    return;
  }
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  const char* p = buffer;
  const char* end = result.ptr;
  if (*p == '-') {
    out->push_back('-');
    ++p;
  }
  char digits[32];
  int count = 0;
  while (p < end && *p != 'e') {
    if (*p != '.') digits[count++] = *p;
    ++p;
  }
  int exponent = 0;
  if (p < end) {
    ++p;  // 'e'
    bool negative = *p == '-';
    ++p;  // sign
    while (p < end) exponent = exponent * 10 + (*p++ - '0');
    if (negative) exponent = -exponent;
  }
  if (exponent >= -6 && exponent < 21) {
    if (exponent >= 0) {
      if (count <= exponent + 1) {
        out->append(digits, count);
        out->append(exponent + 1 - count, '0');
      } else {
        out->append(digits, exponent + 1);
        out->push_back('.');
        out->append(digits + exponent + 1, count - exponent - 1);
      }
    } else {
      out->append("0.");
      out->append(-exponent - 1, '0');
      out->append(digits, count);
    }
    return;
  }
  out->push_back(digits[0]);
  if (count > 1) {
    out->push_back('.');
    out->append(digits + 1, count - 1);
  }
  out->push_back('e');
  char exp_buffer[8];
  auto exp_result = std::to_chars(exp_buffer, exp_buffer + sizeof(exp_buffer), exponent);
  out->append(exp_buffer, exp_result.ptr);
}

template <typename F>
bool ParseFloatImpl(std::string_view text, F* value) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin < end && *begin == '+') {
    ++begin;
    if (begin < end && *begin == '-') return false;
  }
  if (begin == end) return false;
  F parsed;
  auto result = std::from_chars(begin, end, parsed);
  if (result.ec == std::errc::result_out_of_range && result.ptr == end) {
    // Overflow or underflow: strtod saturates to inf / 0 as ClickHouse does.
    std::string copy(begin, end);
    parsed = static_cast<F>(std::strtod(copy.c_str(), nullptr));
  } else if (result.ec != std::errc() || result.ptr != end) {
    return false;
  }
  *value = parsed;
  return true;
}

template <typename T>
void AppendIntegerText(T value, std::string* out) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, result.ptr);
}

absl::Status CannotParse(std::string_view text, TypeId type) {
  // Long garbage (a whole line in a number column) is cut so that errors stay readable.
  constexpr size_t kMaxShown = 100;
  std::string message = "Cannot parse \"";
  message.append(text.substr(0, kMaxShown));
  if (text.size() > kMaxShown) message.append("...");
  message.append("\" as ");
  message.append(TypeName(type));
  return Error(ErrorCode::kCannotParseText, message);
}

// Returns true if `text` is an optional sign and then only digits (at least one): an integer,
// whatever its size.
bool IsIntegerText(std::string_view text) {
  size_t i = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  if (i == text.size()) return false;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  return true;
}

// The error of text that does not give a value of an integer `type`: a well-formed integer that
// does not fit (300 as UInt8, -129 as Int8) is out of range, as a literal is in INSERT VALUES;
// anything else cannot be parsed, including a '-' before an unsigned type's digits (ClickHouse,
// too, refuses "-1" as UInt8 text as a parse error while it wraps 300 to 44).
absl::Status IntegerTextError(std::string_view text, TypeId type) {
  bool minus_for_unsigned = !text.empty() && text[0] == '-' && IsUnsignedInteger(type);
  if (!IsIntegerText(text) || minus_for_unsigned) return CannotParse(text, type);
  constexpr size_t kMaxShown = 100;
  std::string message = "Value ";
  message.append(text.substr(0, kMaxShown));
  if (text.size() > kMaxShown) message.append("...");
  message.append(" is out of range of ");
  message.append(TypeName(type));
  return Error(ErrorCode::kValueIsOutOfRangeOfDataType, message);
}

absl::Status OutOfRange(const Value& value, TypeId type) {
  return Error(ErrorCode::kValueIsOutOfRangeOfDataType,
               "Value " + ValueToText(value) + " is out of range of " + std::string(TypeName(type)));
}

// Converts an integer literal to integer type T with a range check.
template <typename T, typename V>
bool IntegerFits(V v) {
  if constexpr (std::is_signed_v<V>) {
    if (v < 0) {
      return std::is_signed_v<T> && v >= static_cast<int64_t>(std::numeric_limits<T>::min());
    }
  }
  return static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
}

// Truncates a double toward zero into integer type T; false when not finite or out of range.
template <typename T>
bool DoubleToInteger(double v, T* result) {
  if (!std::isfinite(v)) return false;
  double t = std::trunc(v);
  // max() + 1 is a power of two, so this bound is exact in double.
  const double upper = 2.0 * static_cast<double>(std::numeric_limits<T>::max() / 2 + 1);
  const double lower = static_cast<double>(std::numeric_limits<T>::min());
  if (t < lower || t >= upper) return false;
  *result = static_cast<T>(t);
  return true;
}

}  // namespace

void AppendFloatText(double value, std::string* out) { AppendFloatImpl(value, out); }
void AppendFloatText(float value, std::string* out) { AppendFloatImpl(value, out); }

bool ParseFloatText(std::string_view text, double* value) { return ParseFloatImpl(text, value); }
bool ParseFloatText(std::string_view text, float* value) { return ParseFloatImpl(text, value); }

namespace {

// Writes a DateTime('tz') as its zone's wall clock (a zone without offsets as UTC, fast).
void AppendZonedDateTime(uint32_t seconds, uint32_t zone_id, std::string* out) {
  const TimeZone& zone = TimeZone::Get(zone_id);
  if (zone.IsUtc()) return AppendDateTime(seconds, out);
  AppendDateTime64Text(zone.ToLocal(seconds), 0, out);
}

// Writes a DateTime64(p, 'tz') as its zone's wall clock.
void AppendZonedDateTime64(int64_t ticks, int precision, uint32_t zone_id, std::string* out) {
  const TimeZone& zone = TimeZone::Get(zone_id);
  if (!zone.IsUtc()) {
    const int64_t per_second = TicksPerSecond(precision);
    const int64_t seconds = ticks / per_second - (ticks % per_second < 0 ? 1 : 0);
    ticks += zone.OffsetAt(seconds) * per_second;
  }
  AppendDateTime64Text(ticks, precision, out);
}

// Whether date-time text is a unix timestamp (digits only), which no zone shifts.
bool IsTimestampText(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Parses DateTime('tz') text: a civil date-time is the zone's wall clock (core/time_zone.h picks
// the instant of a repeated or skipped time), a unix timestamp is the instant itself.
bool ParseZonedDateTime(std::string_view text, uint32_t zone_id, uint32_t* seconds) {
  if (zone_id == kNoTimeZone) return ParseDateTime(text, seconds);
  const TimeZone& zone = TimeZone::Get(zone_id);
  if (zone.IsUtc() || IsTimestampText(text)) return ParseDateTime(text, seconds);
  int64_t local;
  if (!ParseWallClock(text, &local)) return false;
  // Outside the range, the nearest end (ParseDateTime).
  *seconds = static_cast<uint32_t>(std::clamp<int64_t>(zone.ToUtc(local), 0, kMaxDateTime));
  return true;
}

// Parses DateTime64(p, 'tz') text as ParseZonedDateTime does.
bool ParseZonedDateTime64(std::string_view text, int precision, uint32_t zone_id, int64_t* ticks) {
  if (!ParseDateTime64Text(text, precision, ticks)) return false;
  if (zone_id == kNoTimeZone) return true;
  const TimeZone& zone = TimeZone::Get(zone_id);
  const bool timestamp = text.size() < 5 || text[4] != '-';  // as ParseDateTime64Text decides
  if (zone.IsUtc() || timestamp) return true;
  const int64_t per_second = TicksPerSecond(precision);
  const int64_t local = *ticks / per_second - (*ticks % per_second < 0 ? 1 : 0);
  *ticks += (zone.ToUtc(local) - local) * per_second;
  return true;
}

}  // namespace

void AppendRowTexts(const Column& column, Column* strings) {
  std::string text;
  for (size_t row = 0; row < column.size(); ++row) {
    text.clear();
    AppendValueText(column, row, &text);
    strings->AppendString(text);
  }
}

void AppendValueText(const Column& column, size_t row, std::string* out) {
  switch (BaseOf(column.type())) {
    case TypeId::kUInt8: return AppendIntegerText(column.Get<uint8_t>(row), out);
    case TypeId::kUInt16: return AppendIntegerText(column.Get<uint16_t>(row), out);
    case TypeId::kUInt32: return AppendIntegerText(column.Get<uint32_t>(row), out);
    case TypeId::kUInt64: return AppendIntegerText(column.Get<uint64_t>(row), out);
    case TypeId::kInt8: return AppendIntegerText(column.Get<int8_t>(row), out);
    case TypeId::kInt16: return AppendIntegerText(column.Get<int16_t>(row), out);
    case TypeId::kInt32: return AppendIntegerText(column.Get<int32_t>(row), out);
    case TypeId::kInt64: return AppendIntegerText(column.Get<int64_t>(row), out);
    case TypeId::kFloat32: return AppendFloatText(column.Get<float>(row), out);
    case TypeId::kFloat64: return AppendFloatText(column.Get<double>(row), out);
    case TypeId::kDate: return AppendDate(column.Get<uint16_t>(row), out);
    case TypeId::kDateTime:
      if (TimeZoneOf(column.type()) != kNoTimeZone) {
        return AppendZonedDateTime(column.Get<uint32_t>(row), TimeZoneOf(column.type()), out);
      }
      return AppendDateTime(column.Get<uint32_t>(row), out);
    case TypeId::kString: out->append(column.StringAt(row)); return;
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
      return AppendDecimalText(DecimalAt(column, row), ScaleOf(column.type()), false, out);
    case TypeId::kBool: return AppendBoolText(column.Get<uint8_t>(row), out);
    case TypeId::kUUID: return AppendUuidText(column.Get<UnsignedInt128>(row), out);
    case TypeId::kDateTime64:
      if (TimeZoneOf(column.type()) != kNoTimeZone) {
        return AppendZonedDateTime64(column.Get<int64_t>(row), PrecisionOf(column.type()),
                                     TimeZoneOf(column.type()), out);
      }
      return AppendDateTime64Text(column.Get<int64_t>(row), PrecisionOf(column.type()), out);
    case TypeId::kFixedString: out->append(column.StringAt(row)); return;
    case TypeId::kNothing: return;
    case TypeId::kArray: return AppendArrayText(column, row, out);
    case TypeId::kTuple: return AppendTupleText(column, row, out);
  }
}

absl::Status ParseValueText(std::string_view text, TypeId type, Column* column) {
  bool ok = false;
  switch (BaseOf(type)) {
    case TypeId::kArray: return ParseArrayText(text, type, column);
    case TypeId::kTuple:
      return Error(ErrorCode::kCannotParseText,
                   "Cannot parse " + std::string(TypeName(type)) + ": tuples are not read from text");
    case TypeId::kBool: {
      uint8_t v;
      if (!ParseBoolText(text, &v)) {
        return Error(ErrorCode::kCannotParseBool,
                     "Cannot parse boolean value here: '" + std::string(text.substr(0, 100)) +
                         "', should be one of True/False/T/F/Y/N/Yes/No/On/Off/Enable/Disable/"
                         "Enabled/Disabled/1/0");
      }
      column->Append(v);
      return absl::OkStatus();
    }
    case TypeId::kUUID: {
      UnsignedInt128 v;
      if (!ParseUuidText(text, &v)) {
        return Error(ErrorCode::kCannotParseUuid,
                     "Cannot parse uuid " + std::string(text.substr(0, 100)));
      }
      column->Append(v);
      return absl::OkStatus();
    }
    case TypeId::kDateTime64: {
      int64_t ticks;
      if (!ParseZonedDateTime64(text, PrecisionOf(type), TimeZoneOf(type), &ticks) ||
          !DateTime64InRange(ticks, PrecisionOf(type))) {
        return Error(ErrorCode::kCannotParseDatetime,
                     "Cannot parse \"" + std::string(text.substr(0, 100)) + "\" as " +
                         std::string(TypeName(type)));
      }
      column->Append(ticks);
      return absl::OkStatus();
    }
    case TypeId::kFixedString: {
      const uint32_t n = FixedStringSizeOf(type);
      if (text.size() > n) {
        return Error(ErrorCode::kTooLargeStringSize,
                     "Too large value for " + std::string(TypeName(type)) + ": " +
                         std::to_string(text.size()) + " bytes");
      }
      std::string padded(text);
      padded.resize(n, '\0');
      column->AppendString(padded);
      return absl::OkStatus();
    }
    case TypeId::kDateTime: {
      uint32_t seconds;
      if (!ParseZonedDateTime(text, TimeZoneOf(type), &seconds)) return CannotParse(text, type);
      column->Append(seconds);
      return absl::OkStatus();
    }
    default: break;
  }
  if (IsDecimal(type)) {
    Int128 value;
    absl::Status status = ParseDecimalText(text, PrecisionOf(type), ScaleOf(type), &value);
    if (status.ok()) AppendDecimal(value, column);
    return status;
  }
  switch (type) {
    case TypeId::kString:
      column->AppendString(text);
      return absl::OkStatus();
    case TypeId::kDate: {
      uint16_t days;
      ok = ParseDate(text, &days);
      if (ok) column->Append(days);
      break;
    }
    case TypeId::kFloat32: {
      float v;
      ok = ParseFloatText(text, &v);
      if (ok) column->Append(v);
      break;
    }
    case TypeId::kFloat64: {
      double v;
      ok = ParseFloatText(text, &v);
      if (ok) column->Append(v);
      break;
    }
    default:
      DispatchFixed(type, [&](auto tag) {
        using T = typename decltype(tag)::Type;
        T v;
        ok = ParseIntegerText(text, &v);
        if (ok) column->Append(v);
      });
      if (!ok) return IntegerTextError(text, type);
  }
  return ok ? absl::OkStatus() : CannotParse(text, type);
}

std::string ValueToText(const Value& value) {
  std::string out;
  if (const auto* i = std::get_if<int64_t>(&value)) {
    AppendIntegerText(*i, &out);
  } else if (const auto* u = std::get_if<uint64_t>(&value)) {
    AppendIntegerText(*u, &out);
  } else if (const auto* d = std::get_if<double>(&value)) {
    AppendFloatText(*d, &out);
  } else {
    out = std::get<std::string>(value);
  }
  return out;
}

absl::Status AppendValue(const Value& value, TypeId type, Column* column) {
  if (const auto* s = std::get_if<std::string>(&value)) return ParseValueText(*s, type, column);
  switch (BaseOf(type)) {
    case TypeId::kBool: {
      // A number is true when it is not zero (ClickHouse's toBool).
      bool v = false;
      if (const auto* i = std::get_if<int64_t>(&value)) v = *i != 0;
      if (const auto* u = std::get_if<uint64_t>(&value)) v = *u != 0;
      if (const auto* f = std::get_if<double>(&value)) v = *f != 0;
      column->Append(uint8_t{v});
      return absl::OkStatus();
    }
    case TypeId::kDateTime64: {
      // A number is a unix timestamp in seconds, fractions kept to the precision.
      const int precision = PrecisionOf(type);
      int64_t ticks = 0;
      bool ok = true;
      if (const auto* i = std::get_if<int64_t>(&value)) {
        ok = !__builtin_mul_overflow(*i, TicksPerSecond(precision), &ticks);
      } else if (const auto* u = std::get_if<uint64_t>(&value)) {
        ok = *u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) &&
             !__builtin_mul_overflow(static_cast<int64_t>(*u), TicksPerSecond(precision), &ticks);
      } else if (const auto* f = std::get_if<double>(&value)) {
        const double scaled = *f * static_cast<double>(TicksPerSecond(precision));
        ok = std::isfinite(scaled) && std::fabs(scaled) < 9.2e18;
        if (ok) ticks = static_cast<int64_t>(scaled);
      }
      if (!ok || !DateTime64InRange(ticks, precision)) return OutOfRange(value, type);
      column->Append(ticks);
      return absl::OkStatus();
    }
    case TypeId::kUUID:
      return Error(ErrorCode::kCannotConvertType,
                   "Cannot convert the number " + ValueToText(value) + " to UUID");
    case TypeId::kFixedString: return ParseValueText(ValueToText(value), type, column);
    case TypeId::kArray:
      return Error(ErrorCode::kCannotConvertType,
                   "Cannot convert the number " + ValueToText(value) + " to " +
                       std::string(TypeName(type)));
    default: break;
  }
  if (type == TypeId::kString) {
    column->AppendString(ValueToText(value));
    return absl::OkStatus();
  }
  if (IsDecimal(type)) {
    // A number literal converts through its text, so 0.07 is exactly 7 hundredths.
    return ParseValueText(ValueToText(value), type, column);
  }
  if (IsFloat(type)) {
    double d = 0;
    if (const auto* i = std::get_if<int64_t>(&value)) d = static_cast<double>(*i);
    if (const auto* u = std::get_if<uint64_t>(&value)) d = static_cast<double>(*u);
    if (const auto* f = std::get_if<double>(&value)) d = *f;
    if (type == TypeId::kFloat32) {
      column->Append(static_cast<float>(d));
    } else {
      column->Append(d);
    }
    return absl::OkStatus();
  }
  bool ok = false;
  DispatchFixed(type, [&](auto tag) {
    using T = typename decltype(tag)::Type;
    if constexpr (std::is_integral_v<T>) {
      T result{};
      if (const auto* i = std::get_if<int64_t>(&value)) {
        ok = IntegerFits<T>(*i);
        result = static_cast<T>(*i);
      } else if (const auto* u = std::get_if<uint64_t>(&value)) {
        ok = IntegerFits<T>(*u);
        result = static_cast<T>(*u);
      } else if (const auto* f = std::get_if<double>(&value)) {
        ok = DoubleToInteger(*f, &result);
      }
      if (ok) column->Append(result);
    }
  });
  return ok ? absl::OkStatus() : OutOfRange(value, type);
}

}  // namespace granite::core
