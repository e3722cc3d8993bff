// Calendar arithmetic and the text forms of Date and DateTime, shared by value parsing and printing
// (core/value_text.h), the text formats (coordinator/formats) and the date functions.
//
// Date is a day number since 1970-01-01 stored as uint16_t (1970-01-01 .. 2149-06-06, like
// ClickHouse Date); DateTime is seconds since the epoch stored as uint32_t
// (1970-01-01 00:00:00 .. 2106-02-07 06:28:15). granite has no time zones: everything is UTC.
// Day numbers in the helpers are int64_t so that they also serve intermediate results
// (e.g. a DateTime's day is seconds / 86400, which can exceed the Date range).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace granite::core {

inline constexpr int64_t kSecondsPerDay = 86400;
inline constexpr int64_t kMaxDate = 65535;             // 2149-06-06
inline constexpr int64_t kMaxDateTime = 4294967295LL;  // 2106-02-07 06:28:15

// Returns the day number (days since 1970-01-01, negative before) of a proleptic Gregorian date.
// REQUIRES: 1 <= m <= 12, 1 <= d <= 31.
int64_t DaysFromCivil(int y, unsigned m, unsigned d);

// Splits a day number into year, month (1..12) and day of month (1..31).
void CivilFromDays(int64_t days, int* y, unsigned* m, unsigned* d);

// Returns the number of days in month `m` (1..12) of year `y`.
unsigned DaysInMonth(int y, unsigned m);

// Parses "YYYY-MM-DD" (separators '-', '/' or '.'; one- or two-digit month and day) into a Date.
// A trailing time ("YYYY-MM-DD hh:mm:ss") is accepted and dropped. Returns false on malformed
// text or an invalid calendar date; a date outside 1970-01-01 .. 2149-06-06 reads as the nearest
// end, as in ClickHouse.
bool ParseDate(std::string_view text, uint16_t* days);

// Parses "YYYY-MM-DD hh:mm:ss" (or 'T' between date and time), "YYYY-MM-DD" (midnight) or an
// all-digits unix timestamp into a DateTime (UTC). Returns false on malformed text or an invalid
// date or time; a value outside the DateTime range reads as the nearest end, as in ClickHouse.
bool ParseDateTime(std::string_view text, uint32_t* seconds);
// Parses the date-time forms of ParseDateTime but a unix timestamp into wall-clock seconds since
// 1970-01-01 00:00:00, with no range check (a zone's local time may lie beyond the UTC range).
bool ParseWallClock(std::string_view text, int64_t* seconds);

// Appends "2013-07-15".
void AppendDate(uint16_t days, std::string* out);
// Appends "2013-07-15 10:47:34".
void AppendDateTime(uint32_t seconds, std::string* out);
// Writes exactly 10 / 19 bytes of the same text to `out` (no terminator); returns the byte count.
size_t FormatDate(int64_t days, char* out);
size_t FormatDateTime(uint32_t seconds, char* out);

// Calendar helpers on day numbers (for Date values, or DayOf(datetime) for DateTime values).
inline int64_t DayOf(uint32_t seconds) { return seconds / kSecondsPerDay; }
int YearOf(int64_t days);
unsigned MonthOf(int64_t days);
unsigned DayOfMonthOf(int64_t days);
unsigned QuarterOf(int64_t days);
// ISO day of week: 1 = Monday ... 7 = Sunday (ClickHouse toDayOfWeek).
unsigned DayOfWeekOf(int64_t days);
// 1 .. 366.
unsigned DayOfYearOf(int64_t days);
int64_t StartOfMonth(int64_t days);
int64_t StartOfQuarter(int64_t days);
int64_t StartOfYear(int64_t days);
// The Monday on or before `days` (ClickHouse toMonday).
int64_t StartOfWeekMonday(int64_t days);
// year * 100 + month (ClickHouse toYYYYMM).
uint32_t YyyyMmOf(int64_t days);
// year * 10000 + month * 100 + day (ClickHouse toYYYYMMDD).
uint32_t YyyyMmDdOf(int64_t days);

// Time-of-day helpers on DateTime values.
inline unsigned HourOf(uint32_t seconds) { return seconds % kSecondsPerDay / 3600; }
inline unsigned MinuteOf(uint32_t seconds) { return seconds % 3600 / 60; }
inline unsigned SecondOf(uint32_t seconds) { return seconds % 60; }
inline uint32_t StartOfDay(uint32_t seconds) { return seconds - seconds % kSecondsPerDay; }
inline uint32_t StartOfHour(uint32_t seconds) { return seconds - seconds % 3600; }
inline uint32_t StartOfMinute(uint32_t seconds) { return seconds - seconds % 60; }

}  // namespace granite::core
