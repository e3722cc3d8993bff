#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/date_time.h"
#include "core/error.h"
#include "core/functions/cast_column.h"
#include "core/functions/test_columns.h"

namespace granite::core {
namespace {

using T = TypeId;

plan::Expr Cast(plan::Expr x, std::string_view type) {
  return Fn("CAST", {std::move(x), Lit(std::string(type))});
}

TEST(ConversionTest, NumbersWrapAndTruncate) {
  Block b = BlockOf({MakeColumn<int32_t>(T::kInt32, {300, -1, 65536}),
                     MakeColumn<double>(T::kFloat64, {-1.9, 2.9, std::nan("")})});
  EXPECT_EQ(Eval(Fn("toUInt8", {Col(0, T::kInt32)}), b), (Rows{"44", "255", "0"}));
  EXPECT_EQ(Eval(Fn("toUInt32", {Col(0, T::kInt32)}), b), (Rows{"300", "4294967295", "65536"}));
  EXPECT_EQ(Eval(Fn("toInt16", {Col(0, T::kInt32)}), b), (Rows{"300", "-1", "0"}));
  EXPECT_EQ(Eval(Fn("toInt64", {Col(1, T::kFloat64)}), b), (Rows{"-1", "2", "0"}));
  EXPECT_EQ(Eval(Fn("toFloat32", {Col(0, T::kInt32)}), b), (Rows{"300", "-1", "65536"}));
  EXPECT_EQ(Eval(Cast(Col(0, T::kInt32), "Int8"), b), (Rows{"44", "-1", "0"}));
  EXPECT_EQ(Eval(Cast(Col(0, T::kInt32), "BIGINT"), b), (Rows{"300", "-1", "65536"}));
  EXPECT_EQ(EvalConstant(Fn("toUInt64", {Lit(1e19)})), "10000000000000000000");
  EXPECT_EQ(EvalConstant(Fn("toInt64", {Lit(1e300)})), "0");
}

TEST(ConversionTest, Strings) {
  Block b = BlockOf({StringColumn({"12", "-3", "7"}), MakeColumn<double>(T::kFloat64, {0.1, 1e21, -0.0})});
  EXPECT_EQ(Eval(Fn("toInt32", {Col(0, T::kString)}), b), (Rows{"12", "-3", "7"}));
  EXPECT_EQ(Eval(Cast(Col(0, T::kString), "Float64"), b), (Rows{"12", "-3", "7"}));
  EXPECT_EQ(Eval(Fn("toString", {Col(1, T::kFloat64)}), b), (Rows{"0.1", "1e21", "-0"}));
  EXPECT_EQ(Eval(Cast(Col(1, T::kFloat64), "String"), b), (Rows{"0.1", "1e21", "-0"}));
  // Unparsable text: kCannotParseText naming the value, at batch time for columns...
  absl::Status status = EvalStatus(Fn("toUInt8", {Col(0, T::kString)}), b);
  EXPECT_EQ(CodeOf(status), ErrorCode::kCannotParseText);
  EXPECT_NE(status.message().find("\"-3\""), std::string_view::npos) << status;
  // ...and at compile time for constants.
  auto folded = Expression::Compile(Cast(Lit(std::string("abc")), "UInt32"));
  ASSERT_FALSE(folded.ok());
  EXPECT_EQ(CodeOf(folded.status()), ErrorCode::kCannotParseText);
  EXPECT_NE(folded.status().message().find("abc"), std::string_view::npos);
  auto unknown = TypedCall("CAST", {Lit(uint64_t{1}), Lit(std::string("Blob(9, 2)"))});
  EXPECT_EQ(CodeOf(unknown.status()), ErrorCode::kUnknownType);
}

TEST(ConversionTest, Dates) {
  uint16_t day;
  ASSERT_TRUE(ParseDate("2013-07-15", &day));
  uint32_t time;
  ASSERT_TRUE(ParseDateTime("2013-07-15 10:47:34", &time));
  Block b = BlockOf({MakeColumn<uint16_t>(T::kDate, {day}), MakeColumn<uint32_t>(T::kDateTime, {time}),
                     StringColumn({"2013-07-15 10:47:34"})});
  EXPECT_EQ(Eval(Fn("toDate", {Col(1, T::kDateTime)}), b), Rows{"2013-07-15"});
  EXPECT_EQ(Eval(Fn("toDateTime", {Col(0, T::kDate)}), b), Rows{"2013-07-15 00:00:00"});
  EXPECT_EQ(Eval(Fn("toDate", {Col(2, T::kString)}), b), Rows{"2013-07-15"});
  EXPECT_EQ(Eval(Fn("toDateTime", {Col(2, T::kString)}), b), Rows{"2013-07-15 10:47:34"});
  EXPECT_EQ(Eval(Fn("toString", {Col(1, T::kDateTime)}), b), Rows{"2013-07-15 10:47:34"});
  EXPECT_EQ(Eval(Fn("toUInt32", {Col(1, T::kDateTime)}), b), Rows{std::to_string(time)});
  EXPECT_EQ(Eval(Fn("toUnixTimestamp", {Col(2, T::kString)}), b), Rows{std::to_string(time)});
  EXPECT_EQ(EvalConstant(Fn("toDate", {Lit(uint64_t{day})})), "2013-07-15");  // a day number
  EXPECT_EQ(EvalConstant(Fn("toDate", {Lit(uint64_t{time})})), "2013-07-15");  // a timestamp
  EXPECT_EQ(EvalConstant(Fn("toDateTime", {Lit(uint64_t{time})})), "2013-07-15 10:47:34");
  EXPECT_EQ(EvalConstant(Cast(Lit(std::string("2013-07-15")), "Date")), "2013-07-15");
  auto bad = Expression::Compile(Fn("toDate", {Lit(std::string("2013-02-30"))}));
  EXPECT_EQ(CodeOf(bad.status()), ErrorCode::kCannotParseText);
}

TEST(CastColumnTest, SameTypeReturnsTheColumnItself) {
  ColumnPtr column = MakeColumn<uint16_t>(T::kUInt16, {1, 2});
  auto cast = CastColumn(column, T::kUInt16);
  ASSERT_TRUE(cast.ok());
  EXPECT_EQ(cast->get(), column.get());
  auto date = CastColumn(column, T::kDate);
  ASSERT_TRUE(date.ok());
  EXPECT_EQ(Texts(**date), (Rows{"1970-01-02", "1970-01-03"}));
}

}  // namespace
}  // namespace granite::core
