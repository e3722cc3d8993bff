#include "core/value_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.h"

namespace granite::core {
namespace {

std::string DoubleText(double v) {
  std::string out;
  AppendFloatText(v, &out);
  return out;
}

std::string FloatText(float v) {
  std::string out;
  AppendFloatText(v, &out);
  return out;
}

std::string ParseAndPrint(std::string_view text, TypeId type) {
  Column column(type);
  absl::Status status = ParseValueText(text, type, &column);
  if (!status.ok()) return "error: " + std::string(status.message());
  std::string out;
  AppendValueText(column, 0, &out);
  return out;
}

TEST(ValueTextTest, FormatsFloatsLikeClickHouse) {
  EXPECT_EQ(DoubleText(0.1), "0.1");
  EXPECT_EQ(DoubleText(1.5), "1.5");
  EXPECT_EQ(DoubleText(3), "3");
  EXPECT_EQ(DoubleText(0), "0");
  EXPECT_EQ(DoubleText(-0.0), "-0");
  EXPECT_EQ(DoubleText(-2.25), "-2.25");
  EXPECT_EQ(DoubleText(1e20), "100000000000000000000");
  EXPECT_EQ(DoubleText(1e21), "1e21");
  EXPECT_EQ(DoubleText(1.5e300), "1.5e300");
  EXPECT_EQ(DoubleText(123456789.123), "123456789.123");
  EXPECT_EQ(DoubleText(0.000001), "0.000001");
  EXPECT_EQ(DoubleText(1e-7), "1e-7");
  EXPECT_EQ(DoubleText(-1.25e-10), "-1.25e-10");
  EXPECT_EQ(DoubleText(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(DoubleText(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(DoubleText(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(DoubleText(std::nan("")), "nan");
  EXPECT_EQ(FloatText(0.1f), "0.1");
  EXPECT_EQ(FloatText(1.0f / 3), "0.33333334");
}

TEST(ValueTextTest, FloatsRoundTrip) {
  const double values[] = {0.1, 1e-300, 5e-324, 1.7976931348623157e308, 123.456, -9.87654321e-5};
  for (double v : values) {
    double parsed;
    ASSERT_TRUE(ParseFloatText(DoubleText(v), &parsed)) << DoubleText(v);
    EXPECT_EQ(parsed, v);
  }
}

TEST(ValueTextTest, ParsesIntegers) {
  EXPECT_EQ(ParseAndPrint("42", TypeId::kUInt32), "42");
  EXPECT_EQ(ParseAndPrint("+42", TypeId::kUInt32), "42");
  EXPECT_EQ(ParseAndPrint("-0", TypeId::kUInt32), "0");
  EXPECT_EQ(ParseAndPrint("-128", TypeId::kInt8), "-128");
  EXPECT_EQ(ParseAndPrint("127", TypeId::kInt8), "127");
  EXPECT_EQ(ParseAndPrint("18446744073709551615", TypeId::kUInt64), "18446744073709551615");
  EXPECT_EQ(ParseAndPrint("-9223372036854775808", TypeId::kInt64), "-9223372036854775808");
  EXPECT_EQ(ParseAndPrint("abc", TypeId::kUInt32), "error: Cannot parse \"abc\" as UInt32");
  EXPECT_EQ(ParseAndPrint("128", TypeId::kInt8), "error: Value 128 is out of range of Int8");
  EXPECT_EQ(ParseAndPrint("256", TypeId::kUInt8), "error: Value 256 is out of range of UInt8");
  EXPECT_EQ(ParseAndPrint("-1", TypeId::kUInt64), "error: Cannot parse \"-1\" as UInt64");
  EXPECT_EQ(ParseAndPrint("18446744073709551616", TypeId::kUInt64),
            "error: Value 18446744073709551616 is out of range of UInt64");
  EXPECT_EQ(ParseAndPrint("9223372036854775808", TypeId::kInt64),
            "error: Value 9223372036854775808 is out of range of Int64");
  EXPECT_EQ(ParseAndPrint("+99999999999999999999999", TypeId::kInt32),
            "error: Value +99999999999999999999999 is out of range of Int32");
  EXPECT_EQ(ParseAndPrint("", TypeId::kInt32), "error: Cannot parse \"\" as Int32");
  EXPECT_EQ(ParseAndPrint("-", TypeId::kInt32), "error: Cannot parse \"-\" as Int32");
  EXPECT_EQ(ParseAndPrint(" 1", TypeId::kInt32), "error: Cannot parse \" 1\" as Int32");
  EXPECT_EQ(ParseAndPrint("1.5", TypeId::kInt32), "error: Cannot parse \"1.5\" as Int32");
}

TEST(ValueTextTest, ParsesFloatsDatesAndStrings) {
  EXPECT_EQ(ParseAndPrint("1.5", TypeId::kFloat64), "1.5");
  EXPECT_EQ(ParseAndPrint("+1e3", TypeId::kFloat64), "1000");
  EXPECT_EQ(ParseAndPrint("-.5", TypeId::kFloat64), "-0.5");
  EXPECT_EQ(ParseAndPrint("inf", TypeId::kFloat64), "inf");
  EXPECT_EQ(ParseAndPrint("-Inf", TypeId::kFloat64), "-inf");
  EXPECT_EQ(ParseAndPrint("nan", TypeId::kFloat32), "nan");
  EXPECT_EQ(ParseAndPrint("1e400", TypeId::kFloat64), "inf");
  EXPECT_EQ(ParseAndPrint("0.1", TypeId::kFloat32), "0.1");
  EXPECT_EQ(ParseAndPrint("1,5", TypeId::kFloat64), "error: Cannot parse \"1,5\" as Float64");
  EXPECT_EQ(ParseAndPrint("x", TypeId::kFloat64), "error: Cannot parse \"x\" as Float64");
  EXPECT_EQ(ParseAndPrint("2013-07-15", TypeId::kDate), "2013-07-15");
  EXPECT_EQ(ParseAndPrint("2013-02-30", TypeId::kDate), "error: Cannot parse \"2013-02-30\" as Date");
  EXPECT_EQ(ParseAndPrint("2013-07-15 10:47:34", TypeId::kDateTime), "2013-07-15 10:47:34");
  EXPECT_EQ(ParseAndPrint("2013-07-15", TypeId::kDateTime), "2013-07-15 00:00:00");
  EXPECT_EQ(ParseAndPrint("0", TypeId::kDateTime), "1970-01-01 00:00:00");
  EXPECT_EQ(ParseAndPrint("a\tb\\n", TypeId::kString), "a\tb\\n");
}

TEST(ValueTextTest, CutsLongTextInErrors) {
  std::string message = ParseAndPrint(std::string(300, 'x'), TypeId::kUInt8);
  EXPECT_EQ(message, "error: Cannot parse \"" + std::string(100, 'x') + "...\" as UInt8");
}

// Issue 19: text formats said CANNOT_PARSE_TEXT where INSERT VALUES said
// VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE for the same number.
TEST(ValueTextTest, IntegerOutOfRangeIsTheSameErrorAsForALiteral) {
  Column column(TypeId::kUInt8);
  absl::Status text = ParseValueText("300", TypeId::kUInt8, &column);
  absl::Status literal = AppendValue(int64_t{300}, TypeId::kUInt8, &column);
  EXPECT_EQ(CodeOf(text), ErrorCode::kValueIsOutOfRangeOfDataType);
  EXPECT_EQ(CodeOf(literal), ErrorCode::kValueIsOutOfRangeOfDataType);
  EXPECT_EQ(text.message(), literal.message());
  EXPECT_EQ(CodeOf(ParseValueText("3x0", TypeId::kUInt8, &column)), ErrorCode::kCannotParseText);
  EXPECT_EQ(column.size(), 0u);
}

TEST(ValueTextTest, FailedParseLeavesColumnUnchanged) {
  Column column(TypeId::kInt32);
  ASSERT_TRUE(ParseValueText("7", TypeId::kInt32, &column).ok());
  absl::Status status = ParseValueText("x", TypeId::kInt32, &column);
  EXPECT_EQ(CodeOf(status), ErrorCode::kCannotParseText);
  EXPECT_EQ(column.size(), 1u);
}

std::string Convert(const Value& value, TypeId type) {
  Column column(type);
  absl::Status status = AppendValue(value, type, &column);
  if (!status.ok()) {
    return std::string(ErrorName(CodeOf(status))) + ": " + std::string(status.message());
  }
  EXPECT_EQ(column.size(), 1u);
  std::string out;
  AppendValueText(column, 0, &out);
  return out;
}

TEST(ValueTextTest, AppendValueConvertsWithRangeChecks) {
  EXPECT_EQ(Convert(int64_t{255}, TypeId::kUInt8), "255");
  EXPECT_EQ(Convert(int64_t{300}, TypeId::kUInt8),
            "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE: Value 300 is out of range of UInt8");
  EXPECT_EQ(Convert(int64_t{-1}, TypeId::kUInt32),
            "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE: Value -1 is out of range of UInt32");
  EXPECT_EQ(Convert(int64_t{-128}, TypeId::kInt8), "-128");
  EXPECT_EQ(Convert(int64_t{-129}, TypeId::kInt8),
            "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE: Value -129 is out of range of Int8");
  EXPECT_EQ(Convert(uint64_t{18446744073709551615u}, TypeId::kUInt64), "18446744073709551615");
  EXPECT_EQ(Convert(uint64_t{9223372036854775808u}, TypeId::kInt64),
            "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE: Value 9223372036854775808 is out of range of "
            "Int64");
  EXPECT_EQ(Convert(2.9, TypeId::kInt32), "2");
  EXPECT_EQ(Convert(-2.9, TypeId::kInt32), "-2");
  EXPECT_EQ(Convert(1e10, TypeId::kInt32),
            "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE: Value 10000000000 is out of range of Int32");
  EXPECT_EQ(Convert(18446744073709551616.0, TypeId::kUInt64),
            "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE: Value 18446744073709552000 is out of range of "
            "UInt64");
  EXPECT_EQ(Convert(int64_t{3}, TypeId::kFloat64), "3");
  EXPECT_EQ(Convert(0.5, TypeId::kFloat32), "0.5");
  EXPECT_EQ(Convert(int64_t{15901}, TypeId::kDate), "2013-07-15");
  EXPECT_EQ(Convert(int64_t{65536}, TypeId::kDate),
            "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE: Value 65536 is out of range of Date");
  EXPECT_EQ(Convert(int64_t{1373885254}, TypeId::kDateTime), "2013-07-15 10:47:34");
  EXPECT_EQ(Convert(std::string("2013-07-01"), TypeId::kDate), "2013-07-01");
  EXPECT_EQ(Convert(std::string("12"), TypeId::kUInt16), "12");
  EXPECT_EQ(Convert(std::string("x"), TypeId::kUInt16),
            "CANNOT_PARSE_TEXT: Cannot parse \"x\" as UInt16");
  EXPECT_EQ(Convert(int64_t{-5}, TypeId::kString), "-5");
  EXPECT_EQ(Convert(0.25, TypeId::kString), "0.25");
  EXPECT_EQ(Convert(std::string("hi"), TypeId::kString), "hi");
}

}  // namespace
}  // namespace granite::core
