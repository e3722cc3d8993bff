#include "core/join/distinct_rows.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "gtest/gtest.h"

namespace granite::core {
namespace {

template <typename T>
Column ColumnOf(TypeId type, const std::vector<T>& values) {
  Column column(type);
  for (T v : values) column.Append<T>(v);
  return column;
}

// Values in order (a sorted key set) take the one-pass path, values out of order the hash set:
// both give the first row of each value, in row order.
TEST(DistinctRowsTest, FirstOfEachValueInOrderAndOutOfOrder) {
  EXPECT_EQ(FirstOfEachValue(ColumnOf<int64_t>(TypeId::kInt64, {-5, -5, 0, 3, 3, 3, 9}), false),
            (std::vector<uint32_t>{0, 2, 3, 6}));
  EXPECT_EQ(FirstOfEachValue(ColumnOf<int64_t>(TypeId::kInt64, {3, -5, 3, 0, -5, 9}), false),
            (std::vector<uint32_t>{0, 1, 3, 5}));
  // UInt64 values past 2^63 are in order as unsigned numbers but not as signed words.
  const uint64_t high = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(FirstOfEachValue(ColumnOf<uint64_t>(TypeId::kUInt64, {1, 1, high - 1, high, high}),
                             false),
            (std::vector<uint32_t>{0, 2, 3}));
  EXPECT_EQ(FirstOfEachValue(ColumnOf<uint16_t>(TypeId::kUInt16, {7, 7, 7}), false),
            (std::vector<uint32_t>{0}));
  EXPECT_TRUE(FirstOfEachValue(ColumnOf<int32_t>(TypeId::kInt32, {}), false).empty());
}

TEST(DistinctRowsTest, NullsKeepOneRowOrNone) {
  Column column(WithNullable(TypeId::kInt32, true));
  column.Append<int32_t>(1);
  column.AppendNull();
  column.Append<int32_t>(1);
  column.AppendNull();
  column.Append<int32_t>(0);  // a NULL's stored default: still distinct from NULL
  EXPECT_EQ(FirstOfEachValue(column, false), (std::vector<uint32_t>{0, 1, 4}));
  EXPECT_EQ(FirstOfEachValue(column, true), (std::vector<uint32_t>{0, 4}));
}

}  // namespace
}  // namespace granite::core
