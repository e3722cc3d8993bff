#include "core/functions/decimal_arithmetic.h"

#include <gtest/gtest.h>

#include <limits>

#include "core/decimal.h"
#include "core/error.h"
#include "core/functions/test_columns.h"
#include "core/magnitude_bits.h"

namespace granite::core {
namespace {

using T = TypeId;

const TypeId kD15_2 = MakeDecimal(15, 2);
const TypeId kD9_3 = MakeDecimal(9, 3);
const TypeId kD38_4 = MakeDecimal(38, 4);

// Columns: Decimal(15, 2) {21168.23, -0.05, 0}, Decimal(9, 3) {1.5, -0.001, 999999.999},
// Decimal(38, 4) {max, -1, 0.0001}, UInt8 {1, 2, 3}.
Block Sample() {
  return BlockOf({MakeColumn<int64_t>(kD15_2, {2116823, -5, 0}),
                  MakeColumn<int32_t>(kD9_3, {1500, -1, 999999999}),
                  MakeColumn<Int128>(kD38_4, {PowerOf10(38) - 1, -10000, 1}),
                  MakeColumn<uint8_t>(T::kUInt8, {1, 2, 3})});
}

TEST(DecimalArithmeticTest, ResultTypesFollowClickHouse) {
  EXPECT_EQ(Fn("plus", {Col(0, kD15_2), Col(1, kD9_3)}).type, MakeDecimal(18, 3));
  EXPECT_EQ(Fn("minus", {Lit(uint64_t{1}), Col(0, kD15_2)}).type, MakeDecimal(18, 2));
  EXPECT_EQ(Fn("multiply", {Col(0, kD15_2), Col(0, kD15_2)}).type, MakeDecimal(18, 4));
  EXPECT_EQ(Fn("multiply", {Col(1, kD9_3), Col(3, T::kUInt8)}).type, MakeDecimal(9, 3));
  EXPECT_EQ(Fn("divide", {Col(0, kD15_2), Col(1, kD9_3)}).type, MakeDecimal(18, 2));
  EXPECT_EQ(Fn("divide", {Col(3, T::kUInt8), Col(1, kD9_3)}).type, MakeDecimal(9, 3));
  EXPECT_EQ(Fn("plus", {Col(2, kD38_4), Col(1, kD9_3)}).type, MakeDecimal(38, 4));
  EXPECT_EQ(Fn("plus", {Col(0, kD15_2), Lit(0.5)}).type, T::kFloat64);
  EXPECT_EQ(Fn("negate", {Col(1, kD9_3)}).type, kD9_3);
}

TEST(DecimalArithmeticTest, ComputesExactly) {
  Block b = Sample();
  EXPECT_EQ(Eval(Fn("plus", {Col(0, kD15_2), Col(1, kD9_3)}), b),
            (Rows{"21169.73", "-0.051", "999999.999"}));
  EXPECT_EQ(Eval(Fn("multiply", {Col(0, kD15_2), Fn("minus", {Lit(uint64_t{1}), Col(0, kD15_2)})}), b),
            (Rows{"-448072793.1029", "-0.0525", "0"}));
  EXPECT_EQ(Eval(Fn("divide", {Col(0, kD15_2), Col(3, T::kUInt8)}), b),
            (Rows{"21168.23", "-0.02", "0"}));
  EXPECT_EQ(Eval(Fn("negate", {Col(2, kD38_4)}), b),
            (Rows{"-9999999999999999999999999999999999.9999", "1", "-0.0001"}));
  EXPECT_EQ(Eval(Fn("abs", {Col(1, kD9_3)}), b), (Rows{"1.5", "0.001", "999999.999"}));
  EXPECT_EQ(Eval(Fn("multiply", {Col(0, kD15_2), Lit(0.5)}), b),
            (Rows{"10584.115", "-0.025", "0"}));
}

TEST(DecimalArithmeticTest, ReportsOverflowAndDivisionByZero) {
  Block b = Sample();
  // Decimal32 * Decimal32 stays 32 bits wide: 999999.999 * 999999.999 overflows it.
  EXPECT_EQ(CodeOf(EvalStatus(Fn("multiply", {Col(1, kD9_3), Col(1, kD9_3)}), b)),
            ErrorCode::kDecimalOverflow);
  // The check is on the storage width, as ClickHouse's: (10^38 - 1) + 1 still fits 128 bits,
  // 2 * (10^38 - 1) does not.
  EXPECT_EQ(Eval(Fn("plus", {Col(2, kD38_4), Lit(uint64_t{1})}), b)[0],
            "10000000000000000000000000000000000.9999");
  EXPECT_EQ(CodeOf(EvalStatus(Fn("plus", {Col(2, kD38_4), Col(2, kD38_4)}), b)),
            ErrorCode::kDecimalOverflow);
  EXPECT_EQ(CodeOf(EvalStatus(Fn("multiply", {Col(2, kD38_4), Col(2, kD38_4)}), b)),
            ErrorCode::kDecimalOverflow);
  EXPECT_EQ(CodeOf(EvalStatus(Fn("divide", {Col(1, kD9_3), Col(0, kD15_2)}), b)),
            ErrorCode::kIllegalDivision);
}

// Results up to 64 bits wide run on int64 (decimal_arithmetic.cc); a step that leaves int64 there
// (a rescaled operand) recomputes the batch on Int128, so only the result's width decides.
TEST(DecimalArithmeticTest, Int64LoopFallsBackWhereAStepOverflows) {
  const TypeId d18_0 = MakeDecimal(18, 0);
  const TypeId d18_2 = MakeDecimal(18, 2);
  Block b = BlockOf({MakeColumn<int64_t>(d18_0, {92233720368547759, 5, -7}),
                     MakeColumn<int64_t>(d18_2, {-100, 250, -1}),
                     MakeColumn<int32_t>(kD9_3, {1500, -1, 2147483647}),
                     MakeColumn<int16_t>(T::kInt16, {-2, 3, 4})});
  // 92233720368547759 * 100 leaves int64; the sum does not.
  EXPECT_EQ(Eval(Fn("plus", {Col(0, d18_0), Col(1, d18_2)}), b),
            (Rows{"92233720368547758", "7.5", "-7.01"}));
  EXPECT_EQ(Eval(Fn("minus", {Col(0, d18_0), Fn("negate", {Col(1, d18_2)})}), b),
            (Rows{"92233720368547758", "7.5", "-7.01"}));
  EXPECT_EQ(Eval(Fn("multiply", {Col(1, d18_2), Col(3, T::kInt16)}), b),
            (Rows{"2", "7.5", "-0.04"}));
  EXPECT_EQ(Eval(Fn("minus", {Lit(uint64_t{1}), Col(1, d18_2)}), b),
            (Rows{"2", "-1.5", "1.01"}));
  // Decimal32 results keep their width: 2147483.647 + 0.001 leaves int32.
  EXPECT_EQ(CodeOf(EvalStatus(Fn("plus", {Col(2, kD9_3), Fn("toDecimal32", {Lit(0.001),
                                                                   Lit(uint64_t{3})})}), b)),
            ErrorCode::kDecimalOverflow);
  EXPECT_EQ(CodeOf(EvalStatus(Fn("multiply", {Col(0, d18_0), Col(0, d18_0)}), b)),
            ErrorCode::kDecimalOverflow);
}

// Evaluates `expr` on `block` and returns the result column (null on error).
ColumnPtr EvalColumn(const plan::Expr& expr, const Block& block) {
  auto compiled = Expression::Compile(expr);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  if (!compiled.ok()) return nullptr;
  auto column = (*compiled)->Evaluate(block);
  EXPECT_TRUE(column.ok()) << column.status();
  return column.ok() ? *column : nullptr;
}

// Returns a copy of `plain` that carries its exact bound, as a column read from a part does.
ColumnPtr Bounded(const ColumnPtr& plain) {
  auto column = NewBoundedColumn(plain->type(), MagnitudeBitsOf<int64_t>(plain));
  *column = *plain;
  return column;
}

// Over operands of known bounds (columns read from parts), a result of the unchecked int64 loop
// carries the bound of its operands' bounds (core/magnitude_bits.h), which the next kernel of a
// chain reads; over operands of unknown bounds every step is checked. Both stay exact, and a
// chain whose bounds leave no room is checked row by row.
TEST(DecimalArithmeticTest, ChainsCarryBoundsAndStayExact) {
  const TypeId d18_0 = MakeDecimal(18, 0);
  Block plain = BlockOf({MakeColumn<int64_t>(kD15_2, {10490000, -90000, 0, 1}),  // price
                         MakeColumn<int64_t>(kD15_2, {10, 0, 5, -3}),            // discount
                         MakeColumn<int64_t>(kD15_2, {8, 1, 0, 2}),              // tax
                         MakeColumn<int64_t>(d18_0, {3037000499, -3037000499, 2, 1})});
  Block b = plain;
  for (ColumnPtr& column : b.columns) column = Bounded(column);
  const plan::Expr one = Lit(uint64_t{1});
  const plan::Expr charge = Fn("multiply", {Fn("multiply", {Col(0, kD15_2),
                                                            Fn("minus", {one, Col(1, kD15_2)})}),
                                            Fn("plus", {one, Col(2, kD15_2)})});
  ColumnPtr out = EvalColumn(charge, b);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(Texts(*out), (Rows{"101962.8", "-909", "0", "0.010506"}));
  // |price| < 2^24, |1 - discount| < 2^9 (1 * 100 needs 1 + 7 bits, discount 4 + 1, plus one
  // for the difference), |1 + tax| < 2^9 likewise,
  // so the result's bound is at most 24 + 9 + 9 bits, and bounds its values.
  ASSERT_GE(KnownMagnitudeBits(out), 0);
  EXPECT_LE(KnownMagnitudeBits(out), 24 + 9 + 9);
  EXPECT_LE(MagnitudeBitsOf(out->Data<int64_t>(), out->size()), KnownMagnitudeBits(out));
  ColumnPtr checked = EvalColumn(charge, plain);
  ASSERT_NE(checked, nullptr);
  EXPECT_EQ(Texts(*checked), Texts(*out));
  EXPECT_EQ(KnownMagnitudeBits(checked), -1);

  // a * a needs 64 bits by the bounds, yet 3037000499^2 fits int64: checked, exact, no bound.
  ColumnPtr square = EvalColumn(Fn("multiply", {Col(3, d18_0), Col(3, d18_0)}), b);
  ASSERT_NE(square, nullptr);
  EXPECT_EQ(Texts(*square), (Rows{"9223372030926249001", "9223372030926249001", "4", "1"}));
  EXPECT_EQ(KnownMagnitudeBits(square), -1);
  // The next step of that chain overflows for real.
  EXPECT_EQ(CodeOf(EvalStatus(Fn("multiply", {Fn("multiply", {Col(3, d18_0), Col(3, d18_0)}),
                                              Lit(uint64_t{2})}), b)),
            ErrorCode::kDecimalOverflow);
}

TEST(DecimalArithmeticTest, Int64MinNegativesConstantsAndNulls) {
  const TypeId d18_0 = MakeDecimal(18, 0);
  const int64_t min = std::numeric_limits<int64_t>::min();
  Block b = BlockOf({MakeColumn<int64_t>(d18_0, {min, -5, 7}),
                     MakeColumn<int64_t>(d18_0, {1, -1, 0})});
  // INT64_MIN has a 64-bit magnitude: the loop is checked, and the exact results stand.
  EXPECT_EQ(Eval(Fn("multiply", {Col(0, d18_0), Lit(uint64_t{1})}), b),
            (Rows{"-9223372036854775808", "-5", "7"}));
  EXPECT_EQ(Eval(Fn("plus", {Col(0, d18_0), Col(1, d18_0)}), b),
            (Rows{"-9223372036854775807", "-6", "7"}));
  // -INT64_MIN does not fit Decimal64.
  EXPECT_EQ(CodeOf(EvalStatus(Fn("multiply", {Col(0, d18_0), Lit(int64_t{-1})}), b)),
            ErrorCode::kDecimalOverflow);
  EXPECT_EQ(CodeOf(EvalStatus(Fn("minus", {Col(1, d18_0), Col(0, d18_0)}), b)),
            ErrorCode::kDecimalOverflow);
  // Negative values and a constant on either side.
  EXPECT_EQ(Eval(Fn("minus", {Lit(int64_t{-3}), Col(1, d18_0)}), b), (Rows{"-4", "-2", "-3"}));
  EXPECT_EQ(Eval(Fn("multiply", {Col(1, d18_0), Lit(int64_t{-4611686018427387904})}), b),
            (Rows{"-4611686018427387904", "4611686018427387904", "0"}));

  // Nullable(Decimal): NULL rows stay NULL, the others compute (and overflow) as without NULLs.
  auto nullable = std::make_shared<Column>(WithNullable(kD15_2, true));
  nullable->Append<int64_t>(250);
  nullable->AppendNull();
  nullable->Append<int64_t>(-100);
  Block n = BlockOf({nullable});
  const TypeId type = WithNullable(kD15_2, true);
  ColumnPtr out =
      EvalColumn(Fn("multiply", {Col(0, type), Fn("minus", {Lit(uint64_t{1}), Col(0, type)})}), n);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(Texts(*out)[0], "-3.75");
  EXPECT_TRUE(out->IsNullAt(1));
  EXPECT_EQ(Texts(*out)[2], "-2");
}

TEST(DecimalArithmeticTest, ComparesExactlyWithIntegersAndDecimals) {
  Block b = Sample();
  EXPECT_EQ(Eval(Fn("less", {Col(0, kD15_2), Lit(uint64_t{1})}), b), (Rows{"0", "1", "1"}));
  EXPECT_EQ(Eval(Fn("equals", {Col(1, kD9_3), Fn("toDecimal32", {Lit(1.5), Lit(uint64_t{1})})}), b),
            (Rows{"1", "0", "0"}));
  EXPECT_EQ(Eval(Fn("greater", {Col(2, kD38_4), Col(1, kD9_3)}), b), (Rows{"1", "0", "0"}));
  // Against a float the decimal compares as Float64: 0.05 (5 / 100) equals the literal 0.05.
  EXPECT_EQ(Eval(Fn("lessOrEquals", {Col(0, kD15_2), Lit(-0.05)}), b), (Rows{"0", "1", "0"}));
  // A float that is exactly a Decimal(15, 2) value compares in that type, with the same answers;
  // one between two such values (-0.049) or beyond the scale (0.001) compares as Float64.
  EXPECT_EQ(Eval(Fn("less", {Col(0, kD15_2), Lit(-0.05)}), b), (Rows{"0", "0", "0"}));
  EXPECT_EQ(Eval(Fn("greaterOrEquals", {Lit(21168.23), Col(0, kD15_2)}), b),
            (Rows{"1", "1", "1"}));
  EXPECT_EQ(Eval(Fn("equals", {Col(0, kD15_2), Lit(21168.23)}), b), (Rows{"1", "0", "0"}));
  EXPECT_EQ(Eval(Fn("less", {Col(0, kD15_2), Lit(-0.049)}), b), (Rows{"0", "1", "0"}));
  EXPECT_EQ(Eval(Fn("greater", {Col(0, kD15_2), Lit(-0.001)}), b), (Rows{"1", "0", "1"}));
}

TEST(DecimalArithmeticTest, CastsAsClickHouse) {
  Block b = Sample();
  EXPECT_EQ(Eval(Fn("toDecimal32", {Lit(0.29), Lit(uint64_t{2})}), b)[0], "0.28");
  EXPECT_EQ(Eval(Fn("CAST", {Col(1, kD9_3), Lit(std::string("Decimal(9, 1)"))}), b),
            (Rows{"1.5", "0", "999999.9"}));
  EXPECT_EQ(Eval(Fn("toInt32", {Col(1, kD9_3)}), b), (Rows{"1", "0", "999999"}));
  EXPECT_EQ(Eval(Fn("toFloat64", {Col(0, kD15_2)}), b), (Rows{"21168.23", "-0.05", "0"}));
  EXPECT_EQ(Eval(Fn("toString", {Col(2, kD38_4)}), b),
            (Rows{"9999999999999999999999999999999999.9999", "-1", "0.0001"}));
  EXPECT_EQ(CodeOf(EvalStatus(Fn("toDecimal32", {Lit(uint64_t{3000000000}), Lit(uint64_t{0})}), b)),
            ErrorCode::kDecimalOverflow);
  EXPECT_EQ(CodeOf(EvalStatus(Fn("toUInt8", {Col(1, kD9_3)}), b)), ErrorCode::kDecimalOverflow);
}

}  // namespace
}  // namespace granite::core
