#include "core/decimal.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/types.h"

namespace granite::core {
namespace {

Int128 Parse(std::string_view text, int precision, int scale) {
  Int128 value = 0;
  absl::Status status = ParseDecimalText(text, precision, scale, &value);
  EXPECT_TRUE(status.ok()) << text << ": " << status;
  return value;
}

std::string Print(Int128 value, int scale, bool trailing_zeros = false) {
  std::string out;
  AppendDecimalText(value, scale, trailing_zeros, &out);
  return out;
}

Int128 Max38() { return PowerOf10(38) - 1; }

TEST(DecimalTest, ParsesPlainExponentAndSignedText) {
  EXPECT_EQ(Parse("24386.67", 15, 2), 2438667);
  EXPECT_EQ(Parse("-24386.67", 15, 2), -2438667);
  EXPECT_EQ(Parse("+5", 15, 2), 500);
  EXPECT_EQ(Parse(".5", 15, 2), 50);
  EXPECT_EQ(Parse("-.5", 15, 2), -50);
  EXPECT_EQ(Parse("5.", 15, 2), 500);
  EXPECT_EQ(Parse("0.05", 15, 2), 5);
  EXPECT_EQ(Parse("1e2", 15, 2), 10000);
  EXPECT_EQ(Parse("1.5E-1", 15, 2), 15);
  EXPECT_EQ(Parse("000123.4500", 9, 2), 12345);
  EXPECT_EQ(Parse("-0", 9, 0), 0);
}

TEST(DecimalTest, TruncatesDigitsBeyondTheScale) {
  EXPECT_EQ(Parse("1.239", 9, 2), 123);
  EXPECT_EQ(Parse("-1.239", 9, 2), -123);
  EXPECT_EQ(Parse("24386.675", 15, 2), 2438667);
  EXPECT_EQ(Parse("0.0001", 9, 2), 0);
}

TEST(DecimalTest, ChecksDigitsAgainstTheStorageWidth) {
  // ClickHouse reads up to the width's precision (18 for Decimal(15, 2)), not P.
  EXPECT_EQ(Parse("1234567890123456.5", 15, 2), Int128{123456789012345650});
  Int128 value;
  absl::Status status = ParseDecimalText("12345678901234567", 15, 2, &value);
  EXPECT_EQ(CodeOf(status), ErrorCode::kArgumentOutOfBound);
  EXPECT_EQ(Parse("99999999999999999999999999999999999999", 38, 0), Max38());
  EXPECT_EQ(Parse("-9999999999999999999999999999.9999999999", 38, 10), -Max38());
  status = ParseDecimalText("100000000000000000000000000000000000000", 38, 0, &value);
  EXPECT_EQ(CodeOf(status), ErrorCode::kArgumentOutOfBound);
}

TEST(DecimalTest, RejectsMalformedText) {
  Int128 value;
  for (std::string_view text : {"", "-", ".", "abc", "1.5x", " 1.5", "1.5 ", "1..5", "1e", "--1"}) {
    EXPECT_EQ(CodeOf(ParseDecimalText(text, 15, 2, &value)), ErrorCode::kCannotParseText) << text;
  }
}

TEST(DecimalTest, PrintsWithoutTrailingZerosByDefault) {
  EXPECT_EQ(Print(377420000, 2), "3774200");
  EXPECT_EQ(Print(5, 2), "0.05");
  EXPECT_EQ(Print(-150, 2), "-1.5");
  EXPECT_EQ(Print(-5, 3), "-0.005");
  EXPECT_EQ(Print(0, 4), "0");
  EXPECT_EQ(Print(150, 2, true), "1.50");
  EXPECT_EQ(Print(0, 2, true), "0.00");
  EXPECT_EQ(Print(Max38(), 0), "99999999999999999999999999999999999999");
  EXPECT_EQ(Print(-Max38(), 38), "-0.99999999999999999999999999999999999999");
  EXPECT_EQ(Int128ToString(static_cast<Int128>(static_cast<unsigned __int128>(1) << 127)),
            "-170141183460469231731687303715884105728");
}

TEST(DecimalTest, RescalesAndConverts) {
  bool overflow = false;
  EXPECT_EQ(Rescale(123456, 3, 1, &overflow), 1234);
  EXPECT_EQ(Rescale(-123456, 3, 1, &overflow), -1234);
  EXPECT_EQ(Rescale(15, 1, 4, &overflow), 15000);
  EXPECT_FALSE(overflow);
  Rescale(Max38(), 0, 10, &overflow);
  EXPECT_TRUE(overflow);
  EXPECT_EQ(DecimalToDouble(5, 2), 0.05);
  EXPECT_EQ(DecimalToDouble(7, 2), 0.07);
  EXPECT_EQ(DecimalToDouble(-2438667, 2), -24386.67);
}

TEST(DecimalTest, FitsTheStorageWidth) {
  EXPECT_TRUE(FitsWidth(1000000000, MakeDecimal(9, 0)));
  EXPECT_FALSE(FitsWidth(3000000000LL, MakeDecimal(9, 0)));
  EXPECT_TRUE(FitsWidth(Max38(), MakeDecimal(38, 0)));
  EXPECT_EQ(IntegerAsDecimal(TypeId::kUInt8), MakeDecimal(3, 0));
  EXPECT_EQ(IntegerAsDecimal(TypeId::kInt64), MakeDecimal(19, 0));
}

TEST(DecimalTest, ColumnsStoreTheirWidth) {
  for (TypeId type : {MakeDecimal(9, 2), MakeDecimal(18, 2), MakeDecimal(38, 2)}) {
    Column column(type);
    AppendDecimal(-12345, &column);
    AppendDecimal(7, &column);
    EXPECT_EQ(column.RawSize(), 2 * ValueSize(type));
    EXPECT_EQ(DecimalAt(column, 0), -12345);
    EXPECT_EQ(DecimalAt(column, 1), 7);
  }
}

}  // namespace
}  // namespace granite::core
