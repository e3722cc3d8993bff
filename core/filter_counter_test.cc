// Tests of FilterCounter: which filters it takes, and that its counts equal the rows the general
// filter keeps (equals/notEquals over every integer width, chunk boundaries, signed constants).
#include "core/filter_counter.h"

#include <gtest/gtest.h>

#include "core/functions/expr_builder.h"
#include "core/functions/test_columns.h"
#include "core/plan/expr.h"

namespace granite::core {
namespace {

using T = TypeId;

// Returns a one-column block of `rows` values of type `type`: value i is (i % 7) - 3 (as T).
template <typename V>
Block Sequence(T type, size_t rows) {
  auto column = std::make_shared<Column>(type);
  for (size_t i = 0; i < rows; ++i) {
    column->Append<V>(static_cast<V>(static_cast<int64_t>(i % 7) - 3));
  }
  return BlockOf({column});
}

// The general path: the count of non-zero bytes of the evaluated filter's mask.
size_t MaskCount(const plan::Expr& filter, const Block& block) {
  size_t kept = 0;
  for (const std::string& text : Eval(filter, block)) kept += text != "0";
  return kept;
}

TEST(FilterCounterTest, TakesOnlyEqualityOfAnIntegerColumnAndAnExactLiteral) {
  EXPECT_TRUE(FilterCounter::Match(Fn("notEquals", {Col(0, T::kInt16), Lit(uint64_t{0})})));
  EXPECT_TRUE(FilterCounter::Match(Fn("equals", {Lit(uint64_t{5}), Col(0, T::kUInt8)})));
  EXPECT_TRUE(FilterCounter::Match(Fn("equals", {Col(0, T::kDate), Lit(uint64_t{5})})));
  EXPECT_FALSE(FilterCounter::Match(Fn("less", {Col(0, T::kUInt8), Lit(uint64_t{5})})));
  EXPECT_FALSE(FilterCounter::Match(Fn("equals", {Col(0, T::kFloat64), Lit(uint64_t{5})})));
  EXPECT_FALSE(FilterCounter::Match(Fn("equals", {Col(0, T::kString), Lit(std::string("a"))})));
  EXPECT_FALSE(FilterCounter::Match(Fn("equals", {Col(0, T::kUInt8), Col(1, T::kUInt8)})));
  // 300 has no UInt8 value, -1 no UInt32 value: the general path decides (always false/true).
  EXPECT_FALSE(FilterCounter::Match(Fn("equals", {Col(0, T::kUInt8), Lit(uint64_t{300})})));
  EXPECT_FALSE(FilterCounter::Match(Fn("notEquals", {Col(0, T::kUInt32), Lit(int64_t{-1})})));
  EXPECT_FALSE(FilterCounter::Match(Col(0, T::kUInt8)));
}

template <typename V>
void ExpectSameCounts(T type, size_t rows) {
  const Block block = Sequence<V>(type, rows);
  for (int64_t constant : {-3, 0, 3, 9}) {
    for (const char* name : {"equals", "notEquals"}) {
      plan::Expr literal = constant < 0 ? Lit(constant) : Lit(static_cast<uint64_t>(constant));
      plan::Expr filter = Fn(name, {Col(0, type), literal});
      std::optional<FilterCounter> counter = FilterCounter::Match(filter);
      if (!counter) {  // a negative constant for an unsigned column
        EXPECT_TRUE(constant < 0 && IsUnsignedInteger(type)) << TypeName(type) << " " << constant;
        continue;
      }
      std::optional<size_t> kept = counter->Count(block);
      ASSERT_TRUE(kept.has_value());
      EXPECT_EQ(*kept, MaskCount(filter, block))
          << name << " " << TypeName(type) << " " << constant << " rows " << rows;
    }
  }
}

TEST(FilterCounterTest, CountsEqualTheMaskPathForEveryWidth) {
  for (size_t rows : {0, 1, 239, 240, 241, 1000, 65521, 70000}) {
    ExpectSameCounts<uint8_t>(T::kUInt8, rows);
    ExpectSameCounts<int8_t>(T::kInt8, rows);
    ExpectSameCounts<int16_t>(T::kInt16, rows);
    ExpectSameCounts<uint16_t>(T::kUInt16, rows);
    ExpectSameCounts<int32_t>(T::kInt32, rows);
    ExpectSameCounts<uint64_t>(T::kUInt64, rows);
    ExpectSameCounts<int64_t>(T::kInt64, rows);
  }
}

TEST(FilterCounterTest, DeclinesABlockOfAnotherType) {
  std::optional<FilterCounter> counter =
      FilterCounter::Match(Fn("notEquals", {Col(0, T::kInt16), Lit(uint64_t{0})}));
  ASSERT_TRUE(counter);
  EXPECT_FALSE(counter->Count(Sequence<int32_t>(T::kInt32, 10)).has_value());
  EXPECT_FALSE(counter->Count(Block()).has_value());
}

}  // namespace
}  // namespace granite::core
