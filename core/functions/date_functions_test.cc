#include <gtest/gtest.h>

#include "core/date_time.h"
#include "core/error.h"
#include "core/functions/test_columns.h"

namespace granite::core {
namespace {

using T = TypeId;

class DateFunctionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uint16_t d1, d2;
    ASSERT_TRUE(ParseDate("2013-07-15", &d1));  // a Monday
    ASSERT_TRUE(ParseDate("2012-02-29", &d2));  // a Wednesday
    uint32_t t1, t2;
    ASSERT_TRUE(ParseDateTime("2013-07-15 10:47:34", &t1));
    ASSERT_TRUE(ParseDateTime("2012-02-29 23:59:59", &t2));
    block_ = BlockOf({MakeColumn<uint16_t>(T::kDate, {d1, d2}),
                      MakeColumn<uint32_t>(T::kDateTime, {t1, t2})});
  }

  Rows OnDate(std::string_view name) { return Eval(Fn(name, {Col(0, T::kDate)}), block_); }
  Rows OnTime(std::string_view name) { return Eval(Fn(name, {Col(1, T::kDateTime)}), block_); }
  Rows Trunc(std::string_view unit, size_t column) {
    TypeId type = column == 0 ? T::kDate : T::kDateTime;
    return Eval(Fn("dateTrunc", {Lit(std::string(unit)), Col(column, type)}), block_);
  }

  Block block_;
};

TEST_F(DateFunctionsTest, Parts) {
  EXPECT_EQ(OnDate("toYear"), (Rows{"2013", "2012"}));
  EXPECT_EQ(OnTime("toYear"), (Rows{"2013", "2012"}));
  EXPECT_EQ(OnDate("toMonth"), (Rows{"7", "2"}));
  EXPECT_EQ(OnTime("toDayOfMonth"), (Rows{"15", "29"}));
  EXPECT_EQ(OnDate("toQuarter"), (Rows{"3", "1"}));
  EXPECT_EQ(OnDate("toDayOfWeek"), (Rows{"1", "3"}));
  EXPECT_EQ(OnDate("toDayOfYear"), (Rows{"196", "60"}));
  EXPECT_EQ(OnDate("toYYYYMM"), (Rows{"201307", "201202"}));
  EXPECT_EQ(OnTime("toYYYYMM"), (Rows{"201307", "201202"}));
  EXPECT_EQ(OnTime("toYYYYMMDD"), (Rows{"20130715", "20120229"}));
  EXPECT_EQ(OnTime("toHour"), (Rows{"10", "23"}));
  EXPECT_EQ(OnTime("toMinute"), (Rows{"47", "59"}));
  EXPECT_EQ(OnTime("toSecond"), (Rows{"34", "59"}));
  EXPECT_EQ(Eval(Fn("MINUTE", {Col(1, T::kDateTime)}), block_), (Rows{"47", "59"}));
}

TEST_F(DateFunctionsTest, StartsOf) {
  EXPECT_EQ(OnTime("toStartOfMinute"), (Rows{"2013-07-15 10:47:00", "2012-02-29 23:59:00"}));
  EXPECT_EQ(OnTime("toStartOfFiveMinutes"), (Rows{"2013-07-15 10:45:00", "2012-02-29 23:55:00"}));
  EXPECT_EQ(OnTime("toStartOfHour"), (Rows{"2013-07-15 10:00:00", "2012-02-29 23:00:00"}));
  EXPECT_EQ(OnTime("toStartOfDay"), (Rows{"2013-07-15 00:00:00", "2012-02-29 00:00:00"}));
  EXPECT_EQ(OnDate("toStartOfDay"), (Rows{"2013-07-15 00:00:00", "2012-02-29 00:00:00"}));
  EXPECT_EQ(OnDate("toMonday"), (Rows{"2013-07-15", "2012-02-27"}));
  EXPECT_EQ(OnTime("toMonday"), (Rows{"2013-07-15", "2012-02-27"}));
  EXPECT_EQ(OnTime("toStartOfMonth"), (Rows{"2013-07-01", "2012-02-01"}));
  EXPECT_EQ(OnDate("toStartOfQuarter"), (Rows{"2013-07-01", "2012-01-01"}));
  EXPECT_EQ(OnDate("toStartOfYear"), (Rows{"2013-01-01", "2012-01-01"}));
}

TEST_F(DateFunctionsTest, DateTrunc) {
  EXPECT_EQ(Trunc("second", 1), (Rows{"2013-07-15 10:47:34", "2012-02-29 23:59:59"}));
  EXPECT_EQ(Trunc("minute", 1), (Rows{"2013-07-15 10:47:00", "2012-02-29 23:59:00"}));
  EXPECT_EQ(Trunc("HOUR", 1), (Rows{"2013-07-15 10:00:00", "2012-02-29 23:00:00"}));
  EXPECT_EQ(Trunc("day", 1), (Rows{"2013-07-15 00:00:00", "2012-02-29 00:00:00"}));
  EXPECT_EQ(Trunc("week", 1), (Rows{"2013-07-15 00:00:00", "2012-02-27 00:00:00"}));
  EXPECT_EQ(Trunc("month", 1), (Rows{"2013-07-01 00:00:00", "2012-02-01 00:00:00"}));
  EXPECT_EQ(Trunc("quarter", 1), (Rows{"2013-07-01 00:00:00", "2012-01-01 00:00:00"}));
  EXPECT_EQ(Trunc("year", 1), (Rows{"2013-01-01 00:00:00", "2012-01-01 00:00:00"}));
  EXPECT_EQ(Trunc("hour", 0), (Rows{"2013-07-15 00:00:00", "2012-02-29 00:00:00"}));
  EXPECT_EQ(Trunc("day", 0), (Rows{"2013-07-15", "2012-02-29"}));
  EXPECT_EQ(Trunc("month", 0), (Rows{"2013-07-01", "2012-02-01"}));
  EXPECT_EQ(Trunc("year", 0), (Rows{"2013-01-01", "2012-01-01"}));
  auto alias = Fn("DATE_TRUNC", {Lit(std::string("minute")), Col(1, T::kDateTime)});
  EXPECT_EQ(alias.function, "dateTrunc");
  EXPECT_EQ(Eval(alias, block_), (Rows{"2013-07-15 10:47:00", "2012-02-29 23:59:00"}));
  auto bad_unit = TypedCall("dateTrunc", {Lit(std::string("decade")), Col(0, T::kDate)});
  EXPECT_EQ(CodeOf(bad_unit.status()), ErrorCode::kBadArguments);
  EXPECT_NE(bad_unit.status().message().find("decade"), std::string_view::npos);
}

TEST_F(DateFunctionsTest, FoldsOnConstants) {
  EXPECT_EQ(EvalConstant(Fn("toYear", {Fn("toDate", {Lit(std::string("2020-12-31"))})})), "2020");
  Block empty = BlockOf({MakeColumn<uint32_t>(T::kDateTime, {})});
  EXPECT_EQ(Eval(Fn("toHour", {Col(0, T::kDateTime)}), empty), Rows{});
}

}  // namespace
}  // namespace granite::core
