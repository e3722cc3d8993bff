// Magnitude bounds (magnitude_bits.h): the bits of the largest magnitude at the edges (0, -1,
// powers of two, INT64_MAX, INT64_MIN), and the bound a column made with NewBoundedColumn keeps
// (and its copies do not).
#include "core/magnitude_bits.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace granite::core {
namespace {

int BitsOf(std::vector<int64_t> values) { return MagnitudeBitsOf(values.data(), values.size()); }

TEST(MagnitudeBitsTest, BoundsEveryMagnitude) {
  EXPECT_EQ(BitsOf({}), 0);
  EXPECT_EQ(BitsOf({0, 0}), 0);
  EXPECT_EQ(BitsOf({1}), 1);
  EXPECT_EQ(BitsOf({-1}), 1);
  EXPECT_EQ(BitsOf({7, -8}), 4);  // |-8| = 8 needs 4 bits
  EXPECT_EQ(BitsOf({-7}), 3);
  EXPECT_EQ(BitsOf({int64_t{1} << 40, 3}), 41);
  EXPECT_EQ(BitsOf({std::numeric_limits<int64_t>::max()}), 63);
  EXPECT_EQ(BitsOf({-std::numeric_limits<int64_t>::max()}), 63);
  EXPECT_EQ(BitsOf({5, std::numeric_limits<int64_t>::min()}), 64);
  const int32_t narrow[] = {-2147483647 - 1, 3};
  EXPECT_EQ(MagnitudeBitsOf(narrow, 2), 32);
  const uint32_t unsigned_values[] = {4294967295u};
  EXPECT_EQ(MagnitudeBitsOf(unsigned_values, 1), 32);
  EXPECT_EQ(BitsOfFactor(1), 1);
  EXPECT_EQ(BitsOfFactor(100), 7);
}

TEST(MagnitudeBitsTest, BoundedColumnsKeepTheirBound) {
  auto bounded = NewBoundedColumn(MakeDecimal(15, 2), 11);
  bounded->Append<int64_t>(-1000);
  bounded->Append<int64_t>(12);
  const ColumnPtr shared = bounded;
  EXPECT_EQ(KnownMagnitudeBits(shared), 11);
  EXPECT_EQ(MagnitudeBitsOf<int64_t>(shared), 11);  // the bound made with, not a scan (10)
  // Any other column is scanned; a copy of a bounded column is another column.
  auto plain = std::make_shared<Column>(*bounded);
  EXPECT_EQ(KnownMagnitudeBits(plain), -1);
  EXPECT_EQ(MagnitudeBitsOf<int64_t>(ColumnPtr(plain)), 10);
  auto narrow = std::make_shared<Column>(TypeId::kInt16);
  narrow->Append<int16_t>(-32768);
  EXPECT_EQ(MagnitudeBitsOf<int16_t>(ColumnPtr(narrow)), 16);
}

}  // namespace
}  // namespace granite::core
