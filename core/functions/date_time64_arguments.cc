#include "core/functions/date_time64_arguments.h"

#include "absl/container/flat_hash_set.h"
#include "core/absl_compat.h"

namespace granite::core {

bool TakesDateTime64AsDateTime(std::string_view name, size_t index) {
  // Functions of one date-time (argument 0).
  static const auto* first = new absl::flat_hash_set<std::string_view>{
      "toYear", "toQuarter", "toMonth", "toDayOfMonth", "toDayOfWeek", "toDayOfYear", "toYYYYMM",
      "toYYYYMMDD", "toYYYYMMDDhhmmss", "toMonday", "toStartOfMonth", "toStartOfQuarter",
      "toStartOfYear", "toStartOfDay", "toHour", "toMinute", "toSecond", "toStartOfMinute",
      "toStartOfFiveMinutes", "toStartOfTenMinutes", "toStartOfFifteenMinutes", "toStartOfHour",
      "toStartOfWeek", "toStartOfISOYear", "toLastDayOfMonth", "toISOYear", "toISOWeek", "toWeek",
      "toYearWeek", "toRelativeYearNum", "toRelativeQuarterNum", "toRelativeMonthNum",
      "toRelativeWeekNum", "toRelativeDayNum", "toRelativeHourNum", "toRelativeMinuteNum",
      "toRelativeSecondNum", "toUnixTimestamp", "YEAR", "QUARTER", "MONTH", "DAY", "DAYOFMONTH",
      "DAYOFWEEK", "DAYOFYEAR", "HOUR", "MINUTE", "SECOND", "formatDateTime", "DATE_FORMAT"};
  if (index == 0 && first->contains(name)) return true;
  // dateDiff(unit, a, b) and dateTrunc(unit, t).
  static const auto* later = new absl::flat_hash_set<std::string_view>{
      "dateDiff", "date_diff", "DATE_DIFF", "timestampDiff", "timestamp_diff", "TIMESTAMP_DIFF",
      "dateTrunc", "date_trunc", "DATE_TRUNC"};
  return index >= 1 && later->contains(name);
}

}  // namespace granite::core
