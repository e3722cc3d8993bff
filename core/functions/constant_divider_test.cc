#include "core/functions/constant_divider.h"

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/functions/test_columns.h"

namespace granite::core {
namespace {

TEST(ConstantDividerTest, MatchesHardwareDivision) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  std::vector<uint64_t> divisors = {1, 2, 3, 5, 7, 10, 60, 641, 10000, 86400, 1000000007,
                                    (uint64_t{1} << 32) + 1, uint64_t{1} << 63,
                                    (uint64_t{1} << 63) + 1, kMax - 1, kMax};
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200; ++i) divisors.push_back(rng() >> (rng() % 64) | 1);
  std::vector<uint64_t> numerators = {0, 1, 2, 9999, 10000, 10001, kMax, kMax - 1, uint64_t{1} << 63};
  for (int i = 0; i < 200; ++i) numerators.push_back(rng() >> (rng() % 64));
  for (uint64_t d : divisors) {
    ConstantDivider divider(d);
    for (uint64_t n : numerators) {
      ASSERT_EQ(divider.Divide(n), n / d) << n << " / " << d;
      ASSERT_EQ(divider.Remainder(n), n % d) << n << " % " << d;
    }
  }
}

// The 32-bit form (32-bit dividends, divisors below 2^32) against hardware division.
TEST(ConstantDividerTest, Divide32MatchesHardwareDivision) {
  constexpr uint32_t kMax = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> divisors = {1, 2, 3, 5, 7, 10, 60, 641, 10000, 86400, 1000000007,
                                    kMax - 1, kMax, 1u << 31, (1u << 31) + 1};
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) divisors.push_back((rng() >> (rng() % 32)) | 1);
  std::vector<uint32_t> numerators = {0, 1, 2, 9999, 10000, 10001, kMax, kMax - 1, 1u << 31};
  for (int i = 0; i < 300; ++i) numerators.push_back(rng() >> (rng() % 32));
  for (uint32_t d : divisors) {
    ConstantDivider divider(d);
    ASSERT_TRUE(divider.fits32());
    for (uint32_t n : numerators) {
      ASSERT_EQ(divider.Divide32(n), n / d) << n << " / " << d;
      ASSERT_EQ(divider.Divide32(d - 1 + 0u), (d - 1) / d) << d;
      ASSERT_EQ(divider.Divide32(n / d * d), n / d) << n << " / " << d;
    }
  }
  EXPECT_FALSE(ConstantDivider((uint64_t{1} << 32) + 1).fits32());
}

// A UInt64 column longer than the kernel's chunks: chunks of small values take the 32-bit loop,
// the chunk holding values of 2^32 and more is redone with the 64-bit form.
TEST(ConstantDividerTest, UnsignedColumnMixesSmallAndLargeChunks) {
  using T = TypeId;
  std::vector<uint64_t> values;
  for (uint64_t i = 0; i < 7000; ++i) values.push_back(i * 613 + 99);
  values[3000] = (uint64_t{1} << 32) + 12345;
  values[3001] = std::numeric_limits<uint64_t>::max();
  values[6999] = uint64_t{1} << 32;
  auto column = std::make_shared<Column>(T::kUInt64);
  for (uint64_t v : values) column->Append(v);
  Block b = BlockOf({column});
  // Every vector copy the CPU has (a cap above the CPU's support runs the widest it has).
  for (DivideIsa cap : {DivideIsa::kPlain, DivideIsa::kAvx2, DivideIsa::kAvx512}) {
    SetDivideIsaCap(cap);
    for (uint64_t d : {uint64_t{7}, uint64_t{10000}, uint64_t{86400}, uint64_t{4294967295}}) {
      Rows quotients, remainders;
      for (uint64_t v : values) {
        quotients.push_back(std::to_string(v / d));
        remainders.push_back(std::to_string(v % d));
      }
      EXPECT_EQ(Eval(Fn("intDiv", {Col(0, T::kUInt64), Lit(d)}), b), quotients)
          << d << " cap " << static_cast<int>(cap);
      EXPECT_EQ(Eval(Fn("modulo", {Col(0, T::kUInt64), Lit(d)}), b), remainders)
          << d << " cap " << static_cast<int>(cap);
    }
  }
  SetDivideIsaCap(DivideIsa::kAvx512);
}

TEST(ConstantDividerTest, SignedColumnsByConstants) {
  using T = TypeId;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  Block b = BlockOf({MakeColumn<int64_t>(T::kInt64, {kMin, -7, -1, 0, 7, 100}),
                     MakeColumn<uint32_t>(T::kUInt32, {4294967295u, 0, 7, 86399, 86400, 123456})});
  EXPECT_EQ(Eval(Fn("intDiv", {Col(0, T::kInt64), Lit(uint64_t{3})}), b),
            (Rows{"-3074457345618258602", "-2", "0", "0", "2", "33"}));
  EXPECT_EQ(Eval(Fn("intDiv", {Col(0, T::kInt64), Lit(int64_t{-3})}), b),
            (Rows{"3074457345618258602", "2", "0", "0", "-2", "-33"}));
  EXPECT_EQ(Eval(Fn("modulo", {Col(0, T::kInt64), Lit(int64_t{-3})}), b),
            (Rows{"-2", "-1", "-1", "0", "1", "1"}));
  EXPECT_EQ(Eval(Fn("modulo", {Col(0, T::kInt64), Lit(uint64_t{8})}), b),
            (Rows{"0", "-7", "-1", "0", "7", "4"}));
  EXPECT_EQ(Eval(Fn("intDiv", {Col(1, T::kUInt32), Lit(uint64_t{86400})}), b),
            (Rows{"49710", "0", "0", "0", "1", "1"}));
  EXPECT_EQ(Eval(Fn("modulo", {Col(1, T::kUInt32), Lit(uint64_t{10000})}), b),
            (Rows{"7295", "0", "7", "6399", "6400", "3456"}));
}

}  // namespace
}  // namespace granite::core
