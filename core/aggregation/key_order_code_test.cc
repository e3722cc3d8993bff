// Tests of order codes: for every supported type, code(a) < code(b) only when a sorts strictly
// before b (ascending, and reversed for descending), and the unsupported types are refused.
#include "core/aggregation/key_order_code.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace granite::core {
namespace {

template <typename T>
std::vector<uint64_t> Codes(TypeId type, const std::vector<T>& values, bool descending) {
  Column column(type);
  for (T v : values) column.Append<T>(v);
  std::vector<uint64_t> codes(values.size());
  OrderCodes(column, descending, values.size(), codes.data());
  return codes;
}

// Checks the contract over every pair: a < b => code order agrees (strict when codes differ).
template <typename T>
void ExpectOrderPreserved(TypeId type, const std::vector<T>& values) {
  for (bool descending : {false, true}) {
    std::vector<uint64_t> codes = Codes(type, values, descending);
    for (size_t i = 0; i < values.size(); ++i) {
      for (size_t j = 0; j < values.size(); ++j) {
        const bool before = descending ? values[i] > values[j] : values[i] < values[j];
        if (codes[i] < codes[j]) EXPECT_TRUE(before) << i << " " << j << " desc " << descending;
        if (before) EXPECT_LT(codes[i], codes[j]) << i << " " << j << " desc " << descending;
      }
    }
  }
}

TEST(KeyOrderCodeTest, SignedIntegersOrderAcrossZero) {
  ExpectOrderPreserved<int64_t>(TypeId::kInt64, {std::numeric_limits<int64_t>::min(), -5, -1, 0, 1,
                                                 7, std::numeric_limits<int64_t>::max()});
  ExpectOrderPreserved<int8_t>(TypeId::kInt8, {-128, -1, 0, 1, 127});
  ExpectOrderPreserved<int32_t>(TypeId::kInt32, {-2147483647 - 1, -3, 0, 3, 2147483647});
}

TEST(KeyOrderCodeTest, UnsignedIntegersAndDates) {
  ExpectOrderPreserved<uint64_t>(TypeId::kUInt64, {0, 1, uint64_t{1} << 63, ~uint64_t{0}});
  ExpectOrderPreserved<uint16_t>(TypeId::kDate, {0, 1, 19000, 65535});
  ExpectOrderPreserved<uint32_t>(TypeId::kDateTime, {0, 1700000000, 4294967295u});
  ExpectOrderPreserved<uint8_t>(TypeId::kUInt8, {0, 1, 255});
}

TEST(KeyOrderCodeTest, StringsOrderByBytesWithSharedPrefixesTied) {
  std::vector<std::string> values = {"", "a", "ab", "abcdefgh", "abcdefghX", "abcdefghY", "b",
                                     "\xff"};
  Column column(TypeId::kString);
  for (const std::string& v : values) column.AppendString(v);
  for (bool descending : {false, true}) {
    std::vector<uint64_t> codes(values.size());
    OrderCodes(column, descending, values.size(), codes.data());
    for (size_t i = 0; i < values.size(); ++i) {
      for (size_t j = 0; j < values.size(); ++j) {
        const bool before = descending ? values[i] > values[j] : values[i] < values[j];
        if (codes[i] < codes[j]) EXPECT_TRUE(before) << values[i] << " " << values[j];
      }
    }
    // Past 8 bytes the codes tie; shorter prefixes still differ.
    EXPECT_EQ(codes[4], codes[5]);
    EXPECT_NE(codes[1], codes[2]);
  }
}

TEST(KeyOrderCodeTest, RefusesFloatsNullableAndWideTypes) {
  EXPECT_TRUE(HasOrderCode(TypeId::kInt64));
  EXPECT_TRUE(HasOrderCode(MakeFixedString(4)));
  EXPECT_TRUE(HasOrderCode(MakeDateTime64(3)));
  EXPECT_FALSE(HasOrderCode(TypeId::kFloat64));
  EXPECT_FALSE(HasOrderCode(TypeId::kFloat32));
  EXPECT_FALSE(HasOrderCode(WithNullable(TypeId::kInt64, true)));
  EXPECT_FALSE(HasOrderCode(TypeId::kUUID));
  EXPECT_FALSE(HasOrderCode(TypeId::kDecimal128));
}

}  // namespace
}  // namespace granite::core
