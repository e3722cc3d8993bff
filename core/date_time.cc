// Civil-date conversion uses Howard Hinnant's days_from_civil / civil_from_days algorithms
// (exact for the proleptic Gregorian calendar, no tables, no time zone database).
#include "core/date_time.h"

#include <algorithm>

namespace granite::core {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads 1..max_digits digits at text[*pos]; returns false if there is none.
bool ReadNumber(std::string_view text, size_t* pos, int max_digits, unsigned* value) {
  size_t start = *pos;
  unsigned v = 0;
  while (*pos < text.size() && *pos - start < static_cast<size_t>(max_digits) &&
         IsDigit(text[*pos])) {
    v = v * 10 + (text[*pos] - '0');
    ++*pos;
  }
  *value = v;
  return *pos > start;
}

bool IsDateSeparator(char c) { return c == '-' || c == '/' || c == '.'; }

// Parses "YYYY-MM-DD" optionally followed by ' ' or 'T' and "hh:mm:ss". Sets *has_time.
bool ParseCivil(std::string_view text, int* year, unsigned* month, unsigned* day, unsigned* hour,
                unsigned* minute, unsigned* second, bool* has_time) {
  size_t pos = 0;
  unsigned y = 0;
  if (text.size() < 8) return false;
  for (int i = 0; i < 4; ++i) {
    if (!IsDigit(text[i])) return false;
    y = y * 10 + (text[i] - '0');
  }
  pos = 4;
  if (!IsDateSeparator(text[pos])) return false;
  char separator = text[pos++];
  if (!ReadNumber(text, &pos, 2, month)) return false;
  if (pos >= text.size() || text[pos] != separator) return false;
  ++pos;
  if (!ReadNumber(text, &pos, 2, day)) return false;
  *year = static_cast<int>(y);
  if (*month < 1 || *month > 12 || *day < 1 || *day > DaysInMonth(*year, *month)) return false;
  *hour = *minute = *second = 0;
  *has_time = false;
  if (pos == text.size()) return true;
  if (text[pos] != ' ' && text[pos] != 'T') return false;
  ++pos;
  if (!ReadNumber(text, &pos, 2, hour)) return false;
  if (pos >= text.size() || text[pos++] != ':') return false;
  if (!ReadNumber(text, &pos, 2, minute)) return false;
  if (pos >= text.size() || text[pos++] != ':') return false;
  if (!ReadNumber(text, &pos, 2, second)) return false;
  if (pos != text.size()) return false;
  if (*hour > 23 || *minute > 59 || *second > 59) return false;
  *has_time = true;
  return true;
}

void WriteDigits2(unsigned v, char* out) {
  out[0] = static_cast<char>('0' + v / 10);
  out[1] = static_cast<char>('0' + v % 10);
}

}  // namespace

int64_t DaysFromCivil(int y, unsigned m, unsigned d) {
  int64_t year = static_cast<int64_t>(y) - (m <= 2);
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(year - era * 400);                  // [0, 399]
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;         // [0, 365]
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;                   // [0, 146096]
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t days, int* y, unsigned* m, unsigned* d) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);               // [0, 146096]
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;    // [0, 399]
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                  // [0, 365]
  const unsigned mp = (5 * doy + 2) / 153;                                       // [0, 11]
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int>(static_cast<int64_t>(yoe) + era * 400 + (*m <= 2));
}

unsigned DaysInMonth(int y, unsigned m) {
  static constexpr unsigned kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2) {
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return leap ? 29 : 28;
  }
  return kDays[(m - 1) % 12];
}

bool ParseDate(std::string_view text, uint16_t* days) {
  int y;
  unsigned m, d, hh, mm, ss;
  bool has_time;
  if (!ParseCivil(text, &y, &m, &d, &hh, &mm, &ss, &has_time)) return false;
  // Outside the range, the nearest end (as ClickHouse saturates dates read from text).
  *days = static_cast<uint16_t>(std::clamp<int64_t>(DaysFromCivil(y, m, d), 0, kMaxDate));
  return true;
}

bool ParseDateTime(std::string_view text, uint32_t* seconds) {
  if (!text.empty() && text.size() <= 10) {
    bool all_digits = true;
    uint64_t v = 0;
    for (char c : text) {
      if (!IsDigit(c)) {
        all_digits = false;
        break;
      }
      v = v * 10 + (c - '0');
    }
    if (all_digits) {
      *seconds = static_cast<uint32_t>(std::min<uint64_t>(v, kMaxDateTime));
      return true;
    }
  }
  int y;
  unsigned m, d, hh, mm, ss;
  bool has_time;
  if (!ParseCivil(text, &y, &m, &d, &hh, &mm, &ss, &has_time)) return false;
  const int64_t s = DaysFromCivil(y, m, d) * kSecondsPerDay + hh * 3600 + mm * 60 + ss;
  *seconds = static_cast<uint32_t>(std::clamp<int64_t>(s, 0, kMaxDateTime));
  return true;
}

bool ParseWallClock(std::string_view text, int64_t* seconds) {
  int y;
  unsigned m, d, hh, mm, ss;
  bool has_time;
  if (!ParseCivil(text, &y, &m, &d, &hh, &mm, &ss, &has_time)) return false;
  *seconds = DaysFromCivil(y, m, d) * kSecondsPerDay + hh * 3600 + mm * 60 + ss;
  return true;
}

size_t FormatDate(int64_t days, char* out) {
  int y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  unsigned year = static_cast<unsigned>(y) % 10000;
  WriteDigits2(year / 100, out);
  WriteDigits2(year % 100, out + 2);
  out[4] = '-';
  WriteDigits2(m, out + 5);
  out[7] = '-';
  WriteDigits2(d, out + 8);
  return 10;
}

size_t FormatDateTime(uint32_t seconds, char* out) {
  FormatDate(DayOf(seconds), out);
  out[10] = ' ';
  WriteDigits2(HourOf(seconds), out + 11);
  out[13] = ':';
  WriteDigits2(MinuteOf(seconds), out + 14);
  out[16] = ':';
  WriteDigits2(SecondOf(seconds), out + 17);
  return 19;
}

void AppendDate(uint16_t days, std::string* out) {
  char buffer[16];
  out->append(buffer, FormatDate(days, buffer));
}

void AppendDateTime(uint32_t seconds, std::string* out) {
  char buffer[24];
  out->append(buffer, FormatDateTime(seconds, buffer));
}

int YearOf(int64_t days) {
  int y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return y;
}

unsigned MonthOf(int64_t days) {
  int y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return m;
}

unsigned DayOfMonthOf(int64_t days) {
  int y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return d;
}

unsigned QuarterOf(int64_t days) { return (MonthOf(days) - 1) / 3 + 1; }

unsigned DayOfWeekOf(int64_t days) {
  // 1970-01-01 was a Thursday (ISO 4).
  int64_t r = (days + 3) % 7;
  if (r < 0) r += 7;
  return static_cast<unsigned>(r) + 1;
}

unsigned DayOfYearOf(int64_t days) {
  return static_cast<unsigned>(days - StartOfYear(days)) + 1;
}

int64_t StartOfMonth(int64_t days) { return days - DayOfMonthOf(days) + 1; }

int64_t StartOfQuarter(int64_t days) {
  int y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return DaysFromCivil(y, (m - 1) / 3 * 3 + 1, 1);
}

int64_t StartOfYear(int64_t days) { return DaysFromCivil(YearOf(days), 1, 1); }

int64_t StartOfWeekMonday(int64_t days) { return days - (DayOfWeekOf(days) - 1); }

uint32_t YyyyMmOf(int64_t days) {
  int y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return static_cast<uint32_t>(y) * 100 + m;
}

uint32_t YyyyMmDdOf(int64_t days) {
  int y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return static_cast<uint32_t>(y) * 10000 + m * 100 + d;
}

}  // namespace granite::core
