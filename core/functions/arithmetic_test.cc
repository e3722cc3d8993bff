#include <gtest/gtest.h>

#include <limits>

#include "core/date_time.h"
#include "core/error.h"
#include "core/functions/test_columns.h"

namespace granite::core {
namespace {

using T = TypeId;
constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

TEST(ArithmeticTest, PlusWidensAndWraps) {
  Block b = BlockOf({MakeColumn<uint8_t>(T::kUInt8, {250, 10}),
                     MakeColumn<uint64_t>(T::kUInt64, {kU64Max, 1}),
                     MakeColumn<int64_t>(T::kInt64, {kI64Max, -1}),
                     MakeColumn<int8_t>(T::kInt8, {-128, 5})});
  auto sum8 = Fn("plus", {Col(0, T::kUInt8), Lit(uint64_t{10})});
  EXPECT_EQ(sum8.type, T::kUInt16);
  EXPECT_EQ(Eval(sum8, b), (Rows{"260", "20"}));
  EXPECT_EQ(Eval(Fn("plus", {Col(1, T::kUInt64), Lit(uint64_t{1})}), b), (Rows{"0", "2"}));
  EXPECT_EQ(Eval(Fn("plus", {Col(2, T::kInt64), Lit(uint64_t{1})}), b),
            (Rows{"-9223372036854775808", "0"}));
  EXPECT_EQ(Eval(Fn("plus", {Col(0, T::kUInt8), Col(3, T::kInt8)}), b), (Rows{"122", "15"}));
  EXPECT_EQ(Eval(Fn("plus", {Lit(1.5), Col(0, T::kUInt8)}), b), (Rows{"251.5", "11.5"}));
}

TEST(ArithmeticTest, MinusIsSigned) {
  Block b = BlockOf({MakeColumn<uint8_t>(T::kUInt8, {1, 200}),
                     MakeColumn<uint64_t>(T::kUInt64, {0, kU64Max})});
  EXPECT_EQ(Eval(Fn("minus", {Col(0, T::kUInt8), Lit(uint64_t{2})}), b), (Rows{"-1", "198"}));
  EXPECT_EQ(Eval(Fn("minus", {Lit(uint64_t{100}), Col(0, T::kUInt8)}), b), (Rows{"99", "-100"}));
  EXPECT_EQ(Eval(Fn("minus", {Col(1, T::kUInt64), Lit(uint64_t{1})}), b), (Rows{"-1", "-2"}));
}

TEST(ArithmeticTest, MultiplyWraps) {
  Block b = BlockOf({MakeColumn<uint16_t>(T::kUInt16, {65535, 3}),
                     MakeColumn<uint32_t>(T::kUInt32, {4294967295u, 2}),
                     MakeColumn<int8_t>(T::kInt8, {-128, 2}),
                     MakeColumn<uint64_t>(T::kUInt64, {kU64Max, 3})});
  EXPECT_EQ(Eval(Fn("multiply", {Col(0, T::kUInt16), Col(0, T::kUInt16)}), b),
            (Rows{"4294836225", "9"}));
  EXPECT_EQ(Eval(Fn("multiply", {Col(1, T::kUInt32), Col(1, T::kUInt32)}), b),
            (Rows{"18446744065119617025", "4"}));
  EXPECT_EQ(Eval(Fn("multiply", {Col(2, T::kInt8), Lit(uint64_t{255})}), b),
            (Rows{"-32640", "510"}));
  EXPECT_EQ(Eval(Fn("multiply", {Col(3, T::kUInt64), Lit(uint64_t{2})}), b),
            (Rows{"18446744073709551614", "6"}));
}

TEST(ArithmeticTest, DivideFollowsIeee) {
  Block b = BlockOf({MakeColumn<int32_t>(T::kInt32, {7, -1, 0, 1}),
                     MakeColumn<uint8_t>(T::kUInt8, {2, 0, 0, 3})});
  EXPECT_EQ(Eval(Fn("divide", {Col(0, T::kInt32), Col(1, T::kUInt8)}), b),
            (Rows{"3.5", "-inf", "nan", "0.3333333333333333"}));
  EXPECT_EQ(Eval(Fn("divide", {Col(0, T::kInt32), Lit(uint64_t{0})}), b),
            (Rows{"inf", "-inf", "nan", "inf"}));
}

TEST(ArithmeticTest, IntDiv) {
  Block b = BlockOf({MakeColumn<int64_t>(T::kInt64, {7, -7, kI64Max}),
                     MakeColumn<int8_t>(T::kInt8, {2, 2, -1}),
                     MakeColumn<double>(T::kFloat64, {7.5, -7.5, 1e300})});
  EXPECT_EQ(Eval(Fn("intDiv", {Col(0, T::kInt64), Col(1, T::kInt8)}), b),
            (Rows{"3", "-3", "-9223372036854775807"}));
  EXPECT_EQ(Eval(Fn("intDiv", {Col(2, T::kFloat64), Lit(uint64_t{2})}), b),
            (Rows{"3", "-3", "0"}));
  EXPECT_EQ(Eval(Fn("intDiv", {Lit(uint64_t{100}), Col(1, T::kInt8)}), b),
            (Rows{"50", "50", "-100"}));
}

TEST(ArithmeticTest, DivisionByZeroIsAnError) {
  Block b = BlockOf({MakeColumn<uint32_t>(T::kUInt32, {10, 20, 30}),
                     MakeColumn<uint32_t>(T::kUInt32, {1, 0, 3}),
                     MakeColumn<double>(T::kFloat64, {5.5, 1, 2})});
  for (const char* name : {"intDiv", "modulo"}) {
    absl::Status column = EvalStatus(Fn(name, {Col(0, T::kUInt32), Col(1, T::kUInt32)}), b);
    EXPECT_EQ(CodeOf(column), ErrorCode::kIllegalDivision) << name;
    EXPECT_EQ(column.message(), "Division by zero");
    absl::Status constant = EvalStatus(Fn(name, {Col(0, T::kUInt32), Lit(uint64_t{0})}), b);
    EXPECT_EQ(CodeOf(constant), ErrorCode::kIllegalDivision) << name;
  }
  // Folding a constant division by zero fails when the expression is compiled.
  auto folded = Expression::Compile(Fn("intDiv", {Lit(uint64_t{1}), Lit(uint64_t{0})}));
  EXPECT_EQ(CodeOf(folded.status()), ErrorCode::kIllegalDivision);
  // Float modulo by zero is nan, not an error.
  EXPECT_EQ(Eval(Fn("modulo", {Col(2, T::kFloat64), Lit(uint64_t{0})}), b),
            (Rows{"nan", "nan", "nan"}));
  // An empty block has no division to fail.
  Block empty = BlockOf({MakeColumn<uint32_t>(T::kUInt32, {}), MakeColumn<uint32_t>(T::kUInt32, {})});
  EXPECT_EQ(Eval(Fn("intDiv", {Col(0, T::kUInt32), Col(1, T::kUInt32)}), empty), Rows{});
}

// Issue 19: intDiv(-9223372036854775808, -1) returned the dividend; ClickHouse fails with
// ILLEGAL_DIVISION for the minimum of the dividend's width by -1, except modulo of an Int32 /
// Int64 column by a constant -1, which is 0.
TEST(ArithmeticTest, MinimumByMinusOneIsAnError) {
  Block b = BlockOf({MakeColumn<int64_t>(T::kInt64, {5, kI64Min}),
                     MakeColumn<int8_t>(T::kInt8, {-1, -1}),
                     MakeColumn<int32_t>(T::kInt32, {std::numeric_limits<int32_t>::min(), 3}),
                     MakeColumn<uint32_t>(T::kUInt32, {2147483648u, 1}),
                     MakeColumn<int8_t>(T::kInt8, {-128, 1}),
                     MakeColumn<uint64_t>(T::kUInt64, {uint64_t{1} << 63, 1})});
  auto fails = [&](const plan::Expr& expr) {
    absl::Status status = EvalStatus(expr, b);
    EXPECT_EQ(CodeOf(status), ErrorCode::kIllegalDivision) << status;
    EXPECT_NE(status.message().find("Division of minimal signed number by minus one"),
              std::string::npos)
        << status;
  };
  for (const char* name : {"intDiv", "modulo"}) {
    fails(Fn(name, {Col(0, T::kInt64), Col(1, T::kInt8)}));
    fails(Fn(name, {Col(2, T::kInt32), Col(1, T::kInt8)}));
    fails(Fn(name, {Col(4, T::kInt8), Lit(int64_t{-1})}));  // narrow columns take no shortcut
    fails(Fn(name, {Lit(kI64Min), Col(1, T::kInt8)}));
  }
  fails(Fn("intDiv", {Col(0, T::kInt64), Lit(int64_t{-1})}));
  fails(Fn("intDiv", {Col(3, T::kUInt32), Col(1, T::kInt8)}));  // read as Int32
  fails(Fn("intDiv", {Col(5, T::kUInt64), Lit(int64_t{-1})}));
  auto folded = Expression::Compile(Fn("intDiv", {Lit(kI64Min), Lit(int64_t{-1})}));
  EXPECT_EQ(CodeOf(folded.status()), ErrorCode::kIllegalDivision);
  auto folded_mod = Expression::Compile(Fn("modulo", {Lit(kI64Min), Lit(int64_t{-1})}));
  EXPECT_EQ(CodeOf(folded_mod.status()), ErrorCode::kIllegalDivision);
  // An Int64 / Int32 column modulo a constant -1 is 0; an unsigned dividend's modulo never fails.
  EXPECT_EQ(Eval(Fn("modulo", {Col(0, T::kInt64), Lit(int64_t{-1})}), b), (Rows{"0", "0"}));
  EXPECT_EQ(Eval(Fn("modulo", {Col(2, T::kInt32), Lit(int64_t{-1})}), b), (Rows{"0", "0"}));
  EXPECT_EQ(Eval(Fn("modulo", {Col(5, T::kUInt64), Col(1, T::kInt8)}), b), (Rows{"0", "0"}));
  // Other dividends by -1 negate.
  Block other = BlockOf({MakeColumn<int32_t>(T::kInt32, {-5, 7})});
  EXPECT_EQ(Eval(Fn("intDiv", {Col(0, T::kInt32), Lit(int64_t{-1})}), other), (Rows{"5", "-7"}));
}

TEST(ArithmeticTest, Modulo) {
  Block b = BlockOf({MakeColumn<int8_t>(T::kInt8, {-7, 7, -128}),
                     MakeColumn<uint8_t>(T::kUInt8, {7, 8, 255}),
                     MakeColumn<uint64_t>(T::kUInt64, {kU64Max, 12345, 0}),
                     MakeColumn<int64_t>(T::kInt64, {kI64Min, -7, 7}),
                     MakeColumn<double>(T::kFloat64, {5.5, -5.5, 1})});
  auto signed_mod = Fn("modulo", {Col(0, T::kInt8), Lit(uint64_t{3})});
  EXPECT_EQ(signed_mod.type, T::kInt16);
  EXPECT_EQ(Eval(signed_mod, b), (Rows{"-1", "1", "-2"}));
  EXPECT_EQ(Eval(Fn("modulo", {Col(1, T::kUInt8), Lit(int64_t{-3})}), b), (Rows{"1", "2", "0"}));
  auto wide = Fn("modulo", {Col(2, T::kUInt64), Lit(uint64_t{10000})});
  EXPECT_EQ(wide.type, T::kUInt16);
  EXPECT_EQ(Eval(wide, b), (Rows{"1615", "2345", "0"}));
  EXPECT_EQ(Eval(Fn("modulo", {Col(3, T::kInt64), Lit(int64_t{-1})}), b), (Rows{"0", "0", "0"}));
  EXPECT_EQ(Eval(Fn("modulo", {Col(3, T::kInt64), Col(1, T::kUInt8)}), b),
            (Rows{"-1", "-7", "7"}));
  EXPECT_EQ(Eval(Fn("modulo", {Col(4, T::kFloat64), Lit(uint64_t{2})}), b),
            (Rows{"1.5", "-1.5", "1"}));
}

TEST(ArithmeticTest, NegateAndAbs) {
  Block b = BlockOf({MakeColumn<uint8_t>(T::kUInt8, {255, 0}), MakeColumn<int8_t>(T::kInt8, {-128, 5}),
                     MakeColumn<double>(T::kFloat64, {-2.5, 3})});
  EXPECT_EQ(Eval(Fn("negate", {Col(0, T::kUInt8)}), b), (Rows{"-255", "0"}));
  EXPECT_EQ(Eval(Fn("negate", {Col(1, T::kInt8)}), b), (Rows{"-128", "-5"}));
  EXPECT_EQ(Eval(Fn("abs", {Col(1, T::kInt8)}), b), (Rows{"128", "5"}));
  EXPECT_EQ(Eval(Fn("abs", {Col(2, T::kFloat64)}), b), (Rows{"2.5", "3"}));
  EXPECT_EQ(EvalConstant(Fn("negate", {Lit(uint64_t{kU64Max})})), "1");
}

TEST(ArithmeticTest, DateArithmetic) {
  uint16_t day;
  ASSERT_TRUE(ParseDate("2013-07-31", &day));
  uint32_t time;
  ASSERT_TRUE(ParseDateTime("2013-07-31 23:59:30", &time));
  Block b = BlockOf({MakeColumn<uint16_t>(T::kDate, {day}), MakeColumn<uint32_t>(T::kDateTime, {time})});
  EXPECT_EQ(Eval(Fn("plus", {Col(0, T::kDate), Lit(uint64_t{1})}), b), Rows{"2013-08-01"});
  EXPECT_EQ(Eval(Fn("plus", {Lit(uint64_t{1}), Col(0, T::kDate)}), b), Rows{"2013-08-01"});
  EXPECT_EQ(Eval(Fn("minus", {Col(0, T::kDate), Lit(uint64_t{31})}), b), Rows{"2013-06-30"});
  EXPECT_EQ(Eval(Fn("plus", {Col(0, T::kDate), Lit(int64_t{-1})}), b), Rows{"2013-07-30"});
  EXPECT_EQ(Eval(Fn("plus", {Col(1, T::kDateTime), Lit(uint64_t{60})}), b),
            Rows{"2013-08-01 00:00:30"});
  auto days = Fn("minus", {Col(0, T::kDate), Fn("toDate", {Lit(std::string("2013-07-01"))})});
  EXPECT_EQ(days.type, T::kInt32);
  EXPECT_EQ(Eval(days, b), Rows{"30"});
}

TEST(ArithmeticTest, Rounding) {
  Block b = BlockOf({MakeColumn<double>(T::kFloat64, {0.5, 1.5, 2.5, -1.5, 1.2345}),
                     MakeColumn<int32_t>(T::kInt32, {15, -15, 14, -25, 123})});
  EXPECT_EQ(Eval(Fn("round", {Col(0, T::kFloat64)}), b), (Rows{"0", "2", "2", "-2", "1"}));
  EXPECT_EQ(Eval(Fn("round", {Col(0, T::kFloat64), Lit(uint64_t{2})}), b),
            (Rows{"0.5", "1.5", "2.5", "-1.5", "1.23"}));
  EXPECT_EQ(Eval(Fn("floor", {Col(0, T::kFloat64)}), b), (Rows{"0", "1", "2", "-2", "1"}));
  EXPECT_EQ(Eval(Fn("ceil", {Col(0, T::kFloat64)}), b), (Rows{"1", "2", "3", "-1", "2"}));
  EXPECT_EQ(Eval(Fn("round", {Col(1, T::kInt32), Lit(int64_t{-1})}), b),
            (Rows{"20", "-20", "10", "-30", "120"}));
  EXPECT_EQ(Eval(Fn("floor", {Col(1, T::kInt32), Lit(int64_t{-1})}), b),
            (Rows{"10", "-20", "10", "-30", "120"}));
  EXPECT_EQ(Eval(Fn("round", {Col(1, T::kInt32), Lit(uint64_t{3})}), b),
            (Rows{"15", "-15", "14", "-25", "123"}));
  EXPECT_EQ(Eval(Fn("round", {Col(0, T::kFloat64), Lit(uint64_t{400})}), b),
            (Rows{"0.5", "1.5", "2.5", "-1.5", "1.2345"}));
}

}  // namespace
}  // namespace granite::core
