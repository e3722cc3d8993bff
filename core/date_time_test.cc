#include "core/date_time.h"

#include <gtest/gtest.h>

namespace granite::core {
namespace {

TEST(DateTimeTest, CivilRoundTripsOverTheWholeDateRange) {
  for (int64_t days = -1000; days <= kMaxDate + 1000; ++days) {
    int y;
    unsigned m, d;
    CivilFromDays(days, &y, &m, &d);
    ASSERT_EQ(DaysFromCivil(y, m, d), days);
  }
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(2013, 7, 15), 15901);
  EXPECT_EQ(DaysFromCivil(2149, 6, 6), kMaxDate);
}

TEST(DateTimeTest, ParsesDates) {
  uint16_t days = 1;
  EXPECT_TRUE(ParseDate("1970-01-01", &days));
  EXPECT_EQ(days, 0);
  EXPECT_TRUE(ParseDate("2013-07-15", &days));
  EXPECT_EQ(days, 15901);
  EXPECT_TRUE(ParseDate("2013-7-5", &days));
  EXPECT_EQ(days, DaysFromCivil(2013, 7, 5));
  EXPECT_TRUE(ParseDate("2013/07/15", &days));
  EXPECT_EQ(days, 15901);
  EXPECT_TRUE(ParseDate("2013-07-15 10:47:34", &days));
  EXPECT_EQ(days, 15901);
  EXPECT_TRUE(ParseDate("2149-06-06", &days));
  EXPECT_EQ(days, 65535);
  EXPECT_TRUE(ParseDate("2000-02-29", &days));
}

TEST(DateTimeTest, RejectsBadDates) {
  uint16_t days = 0;
  EXPECT_FALSE(ParseDate("", &days));
  EXPECT_FALSE(ParseDate("abc", &days));
  EXPECT_FALSE(ParseDate("2013-13-01", &days));
  EXPECT_FALSE(ParseDate("2013-02-29", &days));
  EXPECT_FALSE(ParseDate("1900-02-29", &days));
  EXPECT_FALSE(ParseDate("2013-07-15x", &days));
  EXPECT_FALSE(ParseDate("2013-07-15 25:00:00", &days));
  EXPECT_FALSE(ParseDate("2013-07/15", &days));
}

TEST(DateTimeTest, OutOfRangeReadsAsTheNearestEnd) {
  // As ClickHouse saturates dates and times read from text.
  uint16_t days = 1;
  EXPECT_TRUE(ParseDate("1969-12-31", &days));
  EXPECT_EQ(days, 0);
  EXPECT_TRUE(ParseDate("2149-06-07", &days));
  EXPECT_EQ(days, 65535);
  uint32_t s = 1;
  EXPECT_TRUE(ParseDateTime("2106-02-07 06:28:16", &s));
  EXPECT_EQ(s, 4294967295u);
  EXPECT_TRUE(ParseDateTime("4294967296", &s));
  EXPECT_EQ(s, 4294967295u);
  EXPECT_TRUE(ParseDateTime("1900-01-01 00:00:00", &s));
  EXPECT_EQ(s, 0u);
}

TEST(DateTimeTest, ParsesDateTimes) {
  uint32_t s = 1;
  EXPECT_TRUE(ParseDateTime("1970-01-01 00:00:00", &s));
  EXPECT_EQ(s, 0u);
  EXPECT_TRUE(ParseDateTime("2013-07-15 10:47:34", &s));
  EXPECT_EQ(s, 1373885254u);
  EXPECT_TRUE(ParseDateTime("2013-07-15T10:47:34", &s));
  EXPECT_EQ(s, 1373885254u);
  EXPECT_TRUE(ParseDateTime("2013-07-15", &s));
  EXPECT_EQ(s, 1373846400u);
  EXPECT_TRUE(ParseDateTime("1373885254", &s));
  EXPECT_EQ(s, 1373885254u);
  EXPECT_TRUE(ParseDateTime("2106-02-07 06:28:15", &s));
  EXPECT_EQ(s, 4294967295u);
  EXPECT_FALSE(ParseDateTime("2013-07-15 10:47", &s));
  EXPECT_FALSE(ParseDateTime("2013-07-15 10:60:00", &s));
  EXPECT_FALSE(ParseDateTime("", &s));
  EXPECT_FALSE(ParseDateTime("-5", &s));
}

TEST(DateTimeTest, FormatsDatesAndDateTimes) {
  std::string out;
  AppendDate(15901, &out);
  out += '|';
  AppendDate(0, &out);
  out += '|';
  AppendDate(65535, &out);
  out += '|';
  AppendDateTime(1373885254, &out);
  out += '|';
  AppendDateTime(4294967295u, &out);
  EXPECT_EQ(out, "2013-07-15|1970-01-01|2149-06-06|2013-07-15 10:47:34|2106-02-07 06:28:15");
}

TEST(DateTimeTest, CalendarHelpers) {
  int64_t day = DaysFromCivil(2013, 7, 15);  // a Monday
  EXPECT_EQ(YearOf(day), 2013);
  EXPECT_EQ(MonthOf(day), 7u);
  EXPECT_EQ(DayOfMonthOf(day), 15u);
  EXPECT_EQ(QuarterOf(day), 3u);
  EXPECT_EQ(DayOfWeekOf(day), 1u);
  EXPECT_EQ(DayOfWeekOf(0), 4u);  // 1970-01-01 was a Thursday
  EXPECT_EQ(DayOfWeekOf(DaysFromCivil(2013, 7, 21)), 7u);
  EXPECT_EQ(DayOfYearOf(day), 196u);
  EXPECT_EQ(DayOfYearOf(DaysFromCivil(2012, 12, 31)), 366u);
  EXPECT_EQ(StartOfMonth(day), DaysFromCivil(2013, 7, 1));
  EXPECT_EQ(StartOfQuarter(DaysFromCivil(2013, 9, 30)), DaysFromCivil(2013, 7, 1));
  EXPECT_EQ(StartOfYear(day), DaysFromCivil(2013, 1, 1));
  EXPECT_EQ(StartOfWeekMonday(DaysFromCivil(2013, 7, 21)), day);
  EXPECT_EQ(StartOfWeekMonday(day), day);
  EXPECT_EQ(YyyyMmOf(day), 201307u);
  EXPECT_EQ(YyyyMmDdOf(day), 20130715u);
  uint32_t t = 1373885254;  // 2013-07-15 10:47:34
  EXPECT_EQ(DayOf(t), day);
  EXPECT_EQ(HourOf(t), 10u);
  EXPECT_EQ(MinuteOf(t), 47u);
  EXPECT_EQ(SecondOf(t), 34u);
  EXPECT_EQ(StartOfDay(t), 1373846400u);
  EXPECT_EQ(StartOfHour(t), 1373846400u + 36000u);
  EXPECT_EQ(StartOfMinute(t), 1373885254u - 34u);
}

}  // namespace
}  // namespace granite::core
