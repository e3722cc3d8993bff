#include "core/functions/time_zone_arguments.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/functions/test_columns.h"
#include "core/time_zone.h"

namespace granite::core {
namespace {

using T = TypeId;
using Rows = std::vector<std::string>;

// Instants around Europe/Berlin's autumn transition (2024-10-27 03:00 CEST -> 02:00 CET): the two
// 02:30s (00:30 and 01:30 UTC), then 03:30 CET, and 2024-03-10 12:00:00 UTC.
class TimeZoneArgumentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    berlin_ = WithTimeZone(T::kDateTime, *TimeZoneId("Europe/Berlin"));
    block_ = BlockOf({MakeColumn<uint32_t>(berlin_, {1729989000, 1729992600, 1729996200}),
                      MakeColumn<uint32_t>(T::kDateTime, {1710072000, 1710072000, 0})});
  }

  Rows OnBerlin(std::string_view name) { return Eval(Fn(name, {Col(0, berlin_)}), block_); }
  Rows OnUtc(std::string_view name, std::string zone) {
    return Eval(Fn(name, {Col(1, T::kDateTime), Lit(zone)}), block_);
  }

  TypeId berlin_;
  Block block_;
};

TEST_F(TimeZoneArgumentsTest, CalendarPartsReadTheLocalClock) {
  EXPECT_EQ(OnBerlin("toHour"), (Rows{"2", "2", "3"}));
  EXPECT_EQ(OnBerlin("toDayOfMonth"), (Rows{"27", "27", "27"}));
  EXPECT_EQ(OnUtc("toHour", "Asia/Kolkata"), (Rows{"17", "17", "5"}));
  EXPECT_EQ(OnUtc("toMinute", "Asia/Kolkata"), (Rows{"30", "30", "30"}));
  EXPECT_EQ(OnUtc("toYear", "America/New_York"), (Rows{"2024", "2024", "1970"}));  // clamped
}

TEST_F(TimeZoneArgumentsTest, TruncationsKeepTheirOccurrence) {
  // Texts are Berlin's wall clock; the two 02:30s truncate to their own 02:00.
  EXPECT_EQ(OnBerlin("toStartOfHour"),
            (Rows{"2024-10-27 02:00:00", "2024-10-27 02:00:00", "2024-10-27 03:00:00"}));
  const plan::Expr hour = Fn("toStartOfHour", {Col(0, berlin_)});
  EXPECT_EQ(hour.type, berlin_);
  EXPECT_EQ(Eval(Fn("toUnixTimestamp", {hour}), block_),
            (Rows{"1729987200", "1729990800", "1729994400"}));
  EXPECT_EQ(OnBerlin("toStartOfDay"),
            (Rows{"2024-10-27 00:00:00", "2024-10-27 00:00:00", "2024-10-27 00:00:00"}));
  EXPECT_EQ(OnUtc("toStartOfDay", "Asia/Kolkata"),
            (Rows{"2024-03-10 00:00:00", "2024-03-10 00:00:00", "1970-01-01 05:30:00"}));
  EXPECT_EQ(Fn("toStartOfDay", {Col(1, T::kDateTime), Lit(std::string("Asia/Kolkata"))}).type,
            WithTimeZone(T::kDateTime, *TimeZoneId("Asia/Kolkata")));
}

TEST_F(TimeZoneArgumentsTest, OtherFunctionsKeepTheZone) {
  const plan::Expr later = Fn("addHours", {Col(0, berlin_), Lit(int64_t{1})});
  EXPECT_EQ(later.type, berlin_);
  EXPECT_EQ(Eval(later, block_),
            (Rows{"2024-10-27 02:30:00", "2024-10-27 03:30:00", "2024-10-27 04:30:00"}));
  EXPECT_EQ(Eval(Fn("toTimeZone", {Col(1, T::kDateTime), Lit(std::string("Asia/Tokyo"))}), block_),
            (Rows{"2024-03-10 21:00:00", "2024-03-10 21:00:00", "1970-01-01 09:00:00"}));
  EXPECT_EQ(Eval(Fn("timeZoneOf", {Col(0, berlin_)}), block_),
            (Rows{"Europe/Berlin", "Europe/Berlin", "Europe/Berlin"}));
}

TEST_F(TimeZoneArgumentsTest, ZoneArgumentsAreCheckedConstants) {
  std::vector<ArgumentInfo> args = {{T::kDateTime, std::nullopt},
                                    {T::kString, Value(std::string("Mars/Olympus"))}};
  absl::StatusOr<ResolvedFunction> unknown = ResolveFunction("toHour", args);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(CodeOf(unknown.status()), ErrorCode::kBadArguments);
  args[1].constant.reset();
  EXPECT_EQ(CodeOf(ResolveFunction("toHour", args).status()), ErrorCode::kIllegalColumn);
}

TEST_F(TimeZoneArgumentsTest, ImplicitZoneGoesWhereTheCallTakesOne) {
  const ArgumentInfo plain{T::kDateTime, std::nullopt};
  const ArgumentInfo zoned{berlin_, std::nullopt};
  const ArgumentInfo text{T::kString, Value(std::string("%F"))};
  EXPECT_EQ(ImplicitZoneArgument("toHour", {plain}), 1);
  EXPECT_EQ(ImplicitZoneArgument("toHour", {zoned}), -1);
  EXPECT_EQ(ImplicitZoneArgument("formatDateTime", {plain, text}), 2);
  EXPECT_EQ(ImplicitZoneArgument("dateDiff", {text, plain, plain}), 3);
  EXPECT_EQ(ImplicitZoneArgument("toDateTime", {text}), 1);
  EXPECT_EQ(ImplicitZoneArgument("toDateTime", {plain}), -1);
  EXPECT_EQ(ImplicitZoneArgument("plus", {plain, plain}), -1);
}

}  // namespace
}  // namespace granite::core
