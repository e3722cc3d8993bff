// Tests of the value-range rules (value_range.h) on hand-built plan expressions, including the
// overflow cases where a derived range must widen to the result type's whole range.
#include "coordinator/planner/value_range.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/functions/expr_builder.h"

namespace granite::coordinator {
namespace {

namespace pb = granite::worker::v1;
using core::TypeId;

using core::Call;
using core::Col;

pb::Expr UInt(uint64_t value, TypeId type) { return core::Lit(value, type); }
pb::Expr Int(int64_t value, TypeId type) { return core::Lit(value, type); }

// numbers(1e8): column 0 is `number`.
const std::vector<std::optional<ValueRange>> kNumbers = {ValueRange{0, 99'999'999}};

ValueRange Range(const pb::Expr& e, const std::vector<std::optional<ValueRange>>& columns = kNumbers) {
  std::optional<ValueRange> range = RangeOf(e, columns);
  EXPECT_TRUE(range.has_value());
  return range.value_or(ValueRange{});
}

TEST(ValueRangeTest, ColumnsAndTypes) {
  EXPECT_EQ(Range(Col(0, TypeId::kUInt64)), (ValueRange{0, 99'999'999}));
  // An unknown column has its type's range.
  EXPECT_EQ(Range(Col(0, TypeId::kInt16), {}), (ValueRange{-32768, 32767}));
  EXPECT_EQ(Range(Col(3, TypeId::kUInt8)), (ValueRange{0, 255}));
  EXPECT_FALSE(RangeOf(Col(0, TypeId::kFloat64), kNumbers).has_value());
  EXPECT_FALSE(RangeOf(Col(0, TypeId::kString), kNumbers).has_value());
  EXPECT_EQ(TypeRange(TypeId::kUInt64)->Size(), static_cast<unsigned __int128>(1) << 64);
}

TEST(ValueRangeTest, ModuloOfNonNegativeAndSignedDividends) {
  auto n = Col(0, TypeId::kUInt64);
  EXPECT_EQ(Range(Call("modulo", TypeId::kUInt16, {n, UInt(10000, TypeId::kUInt16)})),
            (ValueRange{0, 9999}));
  // A dividend already below the divisor keeps its own range.
  EXPECT_EQ(Range(Call("modulo", TypeId::kUInt8, {Col(1, TypeId::kUInt8), UInt(1000, TypeId::kUInt16)}),
                  {std::nullopt, ValueRange{3, 7}}),
            (ValueRange{3, 7}));
  // Signed dividends keep their sign: Int32 % 7 is in [-6, 6]; a negative divisor too.
  EXPECT_EQ(Range(Call("modulo", TypeId::kInt16, {Col(1, TypeId::kInt32), UInt(7, TypeId::kUInt8)}), {}),
            (ValueRange{-6, 6}));
  EXPECT_EQ(Range(Call("modulo", TypeId::kInt16, {Col(1, TypeId::kInt32), Int(-7, TypeId::kInt8)}), {}),
            (ValueRange{-6, 6}));
  EXPECT_EQ(Range(Call("modulo", TypeId::kInt16, {Col(1, TypeId::kInt32), UInt(7, TypeId::kUInt8)}),
                  {std::nullopt, ValueRange{-100, -1}}),
            (ValueRange{-6, 0}));
  // UInt64 % Int8 computes in Int64: dividends past 2^63 wrap, so only the type's range is known.
  EXPECT_EQ(Range(Call("modulo", TypeId::kInt16, {Col(1, TypeId::kUInt64), Int(-3, TypeId::kInt8)}), {}),
            *TypeRange(TypeId::kInt16));
  // Modulo by zero or by a column: no derived range.
  EXPECT_EQ(Range(Call("modulo", TypeId::kUInt64, {n, Col(0, TypeId::kUInt64)})),
            *TypeRange(TypeId::kUInt64));
}

TEST(ValueRangeTest, ArithmeticWithConstants) {
  auto key = Call("modulo", TypeId::kUInt16, {Col(0, TypeId::kUInt64), UInt(10000, TypeId::kUInt16)});
  EXPECT_EQ(Range(Call("plus", TypeId::kUInt32, {UInt(0, TypeId::kUInt8), key})), (ValueRange{0, 9999}));
  EXPECT_EQ(Range(Call("plus", TypeId::kUInt32, {key, UInt(5, TypeId::kUInt8)})), (ValueRange{5, 10004}));
  EXPECT_EQ(Range(Call("minus", TypeId::kInt32, {key, UInt(100, TypeId::kUInt8)})),
            (ValueRange{-100, 9899}));
  EXPECT_EQ(Range(Call("multiply", TypeId::kUInt32, {key, UInt(3, TypeId::kUInt8)})),
            (ValueRange{0, 29997}));
  EXPECT_EQ(Range(Call("multiply", TypeId::kInt32, {key, Int(-2, TypeId::kInt8)})),
            (ValueRange{-19998, 0}));
  EXPECT_EQ(Range(Call("intDiv", TypeId::kUInt64, {Col(0, TypeId::kUInt64), UInt(1000, TypeId::kUInt16)})),
            (ValueRange{0, 99'999}));
  EXPECT_EQ(Range(Call("intDiv", TypeId::kInt32, {Col(1, TypeId::kInt32), Int(-10, TypeId::kInt8)}),
                  {std::nullopt, ValueRange{-25, 99}}),
            (ValueRange{-9, 2}));
  EXPECT_EQ(Range(Call("toUInt64", TypeId::kUInt64, {key})), (ValueRange{0, 9999}));
  pb::Expr cast = Call("CAST", TypeId::kInt64, {key});
  pb::Expr type_name;
  type_name.set_type(static_cast<uint32_t>(TypeId::kString));
  type_name.mutable_literal()->set_string_value("Int64");
  *cast.mutable_call()->add_args() = type_name;
  EXPECT_EQ(Range(cast), (ValueRange{0, 9999}));
}

TEST(ValueRangeTest, OverflowWidensToTheResultType) {
  // number * 1e12 over numbers(1e8) exceeds nothing in 128 bits but wraps UInt64.
  auto big = Call("multiply", TypeId::kUInt64, {Col(0, TypeId::kUInt64), UInt(1'000'000'000'000ULL, TypeId::kUInt64)});
  EXPECT_EQ(Range(big), *TypeRange(TypeId::kUInt64));
  // A UInt8 column + 200 computed in UInt16 fits; a cast down to UInt8 of it does not.
  auto sum = Call("plus", TypeId::kUInt16, {Col(1, TypeId::kUInt8), UInt(200, TypeId::kUInt8)});
  EXPECT_EQ(Range(sum, {}), (ValueRange{200, 455}));
  EXPECT_EQ(Range(Call("toUInt8", TypeId::kUInt8, {sum}), {}), (ValueRange{0, 255}));
  // Minus into a signed type below its minimum.
  auto diff = Call("minus", TypeId::kInt16, {Col(1, TypeId::kUInt8), UInt(40000, TypeId::kUInt16)});
  EXPECT_EQ(Range(diff, {}), *TypeRange(TypeId::kInt16));
  // Products of two unbounded UInt64 columns are not attempted.
  auto square = Call("multiply", TypeId::kUInt64, {Col(1, TypeId::kUInt64), Col(1, TypeId::kUInt64)});
  EXPECT_EQ(Range(square, {}), *TypeRange(TypeId::kUInt64));
  // Unknown functions have their type's range.
  EXPECT_EQ(Range(Call("cityHash64", TypeId::kUInt64, {Col(0, TypeId::kUInt64)})),
            *TypeRange(TypeId::kUInt64));
}

}  // namespace
}  // namespace granite::coordinator
