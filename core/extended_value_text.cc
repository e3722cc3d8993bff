#include "core/extended_value_text.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "core/absl_compat.h"
#include "core/date_time.h"

namespace granite::core {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads exactly `count` decimal digits at text[*pos]; false if any is missing.
bool ReadDigits(std::string_view text, size_t* pos, int count, int* value) {
  int v = 0;
  for (int i = 0; i < count; ++i) {
    if (*pos >= text.size() || text[*pos] < '0' || text[*pos] > '9') return false;
    v = v * 10 + (text[(*pos)++] - '0');
  }
  *value = v;
  return true;
}

// Reads one or two digits (months, days, hours...).
bool ReadShortNumber(std::string_view text, size_t* pos, int* value) {
  if (!ReadDigits(text, pos, 1, value)) return false;
  if (*pos < text.size() && text[*pos] >= '0' && text[*pos] <= '9') {
    *value = *value * 10 + (text[(*pos)++] - '0');
  }
  return true;
}

// Reads a fraction's digits at text[*pos] into ticks of `precision` (extra digits dropped).
int64_t ReadFraction(std::string_view text, size_t* pos, int precision, bool* ok) {
  int64_t fraction = 0;
  int digits = 0;
  *ok = *pos < text.size() && text[*pos] >= '0' && text[*pos] <= '9';
  while (*pos < text.size() && text[*pos] >= '0' && text[*pos] <= '9') {
    if (digits < precision) fraction = fraction * 10 + (text[*pos] - '0');
    ++digits;
    ++*pos;
  }
  for (; digits < precision; ++digits) fraction *= 10;
  return fraction;
}

// Returns seconds * 10^precision + fraction, false on overflow.
bool CombineTicks(int64_t seconds, int64_t fraction, int precision, int64_t* ticks) {
  int64_t scaled;
  if (__builtin_mul_overflow(seconds, TicksPerSecond(precision), &scaled)) return false;
  return !__builtin_add_overflow(scaled, fraction, ticks);
}

}  // namespace

void AppendBoolText(uint8_t value, std::string* out) { out->append(value ? "true" : "false"); }

bool ParseBoolText(std::string_view text, uint8_t* value) {
  static constexpr std::string_view kTrue[] = {"true", "1", "yes", "on", "t", "y", "enable",
                                               "enabled"};
  static constexpr std::string_view kFalse[] = {"false", "0", "no", "off", "f", "n", "disable",
                                                "disabled"};
  for (std::string_view word : kTrue) {
    if (absl::EqualsIgnoreCase(ToAbsl(text), ToAbsl(word))) return *value = 1, true;
  }
  for (std::string_view word : kFalse) {
    if (absl::EqualsIgnoreCase(ToAbsl(text), ToAbsl(word))) return *value = 0, true;
  }
  return false;
}

void AppendUuidText(UnsignedInt128 value, std::string* out) {
  // The text's first 16 digits are the low half, its last 16 the high half (see the header).
  const uint64_t halves[2] = {static_cast<uint64_t>(value), static_cast<uint64_t>(value >> 64)};
  char buffer[36];
  int pos = 0;
  for (int digit = 0; digit < 32; ++digit) {
    if (digit == 8 || digit == 12 || digit == 16 || digit == 20) buffer[pos++] = '-';
    const uint64_t half = halves[digit / 16];
    buffer[pos++] = kHexDigits[(half >> ((15 - digit % 16) * 4)) & 0xf];
  }
  out->append(buffer, sizeof(buffer));
}

bool ParseUuidText(std::string_view text, UnsignedInt128* value) {
  const bool dashed = text.size() == 36;
  if (!dashed && text.size() != 32) return false;
  uint64_t halves[2] = {0, 0};
  int digits = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (dashed && (i == 8 || i == 13 || i == 18 || i == 23)) {
      if (text[i] != '-') return false;
      continue;
    }
    const int digit = HexValue(text[i]);
    if (digit < 0) return false;
    uint64_t& half = halves[digits / 16];
    half = (half << 4) | static_cast<unsigned>(digit);
    ++digits;
  }
  *value = (static_cast<UnsignedInt128>(halves[1]) << 64) | halves[0];
  return true;
}

void UuidToClickHouseBytes(UnsignedInt128 value, char* out) { std::memcpy(out, &value, 16); }

UnsignedInt128 UuidFromClickHouseBytes(const char* bytes) {
  UnsignedInt128 value;
  std::memcpy(&value, bytes, 16);
  return value;
}

int64_t TicksPerSecond(int precision) {
  int64_t p = 1;
  for (int i = 0; i < precision; ++i) p *= 10;
  return p;
}

void AppendDateTime64Text(int64_t ticks, int precision, std::string* out) {
  const int64_t per_second = TicksPerSecond(precision);
  int64_t seconds = ticks / per_second;
  int64_t fraction = ticks % per_second;
  if (fraction < 0) {
    fraction += per_second;
    --seconds;
  }
  // Far outside DateTime64's range (1900..2299) the four-digit year of the text is kept: the
  // seconds stop at 0000-01-01 00:00:00 and 9999-12-31 23:59:59, as ClickHouse prints them.
  seconds = std::clamp<int64_t>(seconds, -62167219200, 253402300799);
  int64_t days = seconds / kSecondsPerDay;
  int64_t in_day = seconds % kSecondsPerDay;
  if (in_day < 0) {
    in_day += kSecondsPerDay;
    --days;
  }
  int y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  char buffer[40];
  int n = 0;
  auto put = [&](int64_t v, int width) {
    for (int i = width - 1; i >= 0; --i, v /= 10) buffer[n + i] = static_cast<char>('0' + v % 10);
    n += width;
  };
  put(y, 4);
  buffer[n++] = '-';
  put(m, 2);
  buffer[n++] = '-';
  put(d, 2);
  buffer[n++] = ' ';
  put(in_day / 3600, 2);
  buffer[n++] = ':';
  put(in_day / 60 % 60, 2);
  buffer[n++] = ':';
  put(in_day % 60, 2);
  if (precision > 0) {
    buffer[n++] = '.';
    put(fraction, precision);
  }
  out->append(buffer, n);
}

bool ParseDateTime64Text(std::string_view text, int precision, int64_t* ticks) {
  if (text.empty()) return false;
  size_t pos = 0;
  bool fraction_ok = true;
  // A unix timestamp: digits, optionally a fraction.
  if (text.size() < 5 || text[4] != '-') {
    int64_t seconds = 0;
    bool negative = text[0] == '-';
    if (negative) ++pos;
    if (pos == text.size()) return false;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (__builtin_mul_overflow(seconds, 10, &seconds) ||
          __builtin_add_overflow(seconds, text[pos] - '0', &seconds)) {
        return false;
      }
      ++pos;
    }
    int64_t fraction = 0;
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      fraction = ReadFraction(text, &pos, precision, &fraction_ok);
    }
    if (pos != text.size() || !fraction_ok || (negative && pos == 1)) return false;
    if (!CombineTicks(seconds, fraction, precision, ticks)) return false;
    if (negative) *ticks = -*ticks;
    return true;
  }
  int year, month, day, hour = 0, minute = 0, second = 0;
  if (!ReadDigits(text, &pos, 4, &year) || text[pos++] != '-' ||
      !ReadShortNumber(text, &pos, &month) || pos >= text.size() || text[pos++] != '-' ||
      !ReadShortNumber(text, &pos, &day)) {
    return false;
  }
  if (month < 1 || month > 12 || day < 1 || day > static_cast<int>(DaysInMonth(year, month))) {
    return false;
  }
  int64_t fraction = 0;
  if (pos < text.size()) {
    if (text[pos] != ' ' && text[pos] != 'T') return false;
    ++pos;
    if (!ReadShortNumber(text, &pos, &hour) || pos >= text.size() || text[pos++] != ':' ||
        !ReadShortNumber(text, &pos, &minute) || pos >= text.size() || text[pos++] != ':' ||
        !ReadShortNumber(text, &pos, &second)) {
      return false;
    }
    if (hour > 23 || minute > 59 || second > 59) return false;
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      fraction = ReadFraction(text, &pos, precision, &fraction_ok);
      if (!fraction_ok) return false;
    }
    if (pos < text.size() && text[pos] == 'Z') ++pos;
    if (pos != text.size()) return false;
  }
  const int64_t seconds = DaysFromCivil(year, month, day) * kSecondsPerDay + hour * 3600 +
                          minute * 60 + second;
  return CombineTicks(seconds, fraction, precision, ticks);
}

bool DateTime64InRange(int64_t ticks, int precision) {
  // Any int64 of ticks is printable; only the calendar's four-digit years bound it.
  const int64_t per_second = TicksPerSecond(precision);
  const int64_t seconds = ticks / per_second;
  constexpr int64_t kMinSeconds = -62135596800LL;   // 0001-01-01
  constexpr int64_t kMaxSeconds = 253402300799LL;   // 9999-12-31 23:59:59
  return seconds >= kMinSeconds && seconds <= kMaxSeconds;
}

}  // namespace granite::core
