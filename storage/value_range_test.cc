#include "storage/value_range.h"

#include <gtest/gtest.h>

#include <cmath>

namespace granite::storage {
namespace {

using core::Value;

TEST(ValueRangeTest, ComparesAcrossNumericFormsExactly) {
  EXPECT_EQ(CompareValues(int64_t{-1}, uint64_t{0}), -1);
  EXPECT_EQ(CompareValues(uint64_t{18446744073709551615ull}, int64_t{5}), 1);
  EXPECT_EQ(CompareValues(uint64_t{3}, 3.0), 0);
  EXPECT_EQ(CompareValues(2.5, int64_t{3}), -1);
  // 2^63 + 1 is not a double; it still compares above 2^63.
  EXPECT_EQ(CompareValues(uint64_t{9223372036854775809ull}, 9223372036854775808.0), 1);
  EXPECT_EQ(CompareValues(std::string("a"), std::string("b")), -1);
  EXPECT_FALSE(CompareValues(std::string("1"), uint64_t{1}).has_value());
  EXPECT_FALSE(CompareValues(std::nan(""), 1.0).has_value());
}

TEST(ValueRangeTest, IntersectionAndOverlap) {
  ValueRange r = ValueRange::AtLeast(uint64_t{10}, true);
  r.IntersectWith(ValueRange::AtMost(uint64_t{20}, false));
  EXPECT_EQ(r.DebugString(), "[10, 20)");
  EXPECT_TRUE(r.MayOverlap(uint64_t{0}, uint64_t{10}));
  EXPECT_FALSE(r.MayOverlap(uint64_t{0}, uint64_t{9}));
  EXPECT_FALSE(r.MayOverlap(uint64_t{20}, uint64_t{30}));
  EXPECT_TRUE(r.MayOverlap(int64_t{-5}, int64_t{15}));

  r.IntersectWith(ValueRange::Points({uint64_t{25}, uint64_t{12}, uint64_t{12}, uint64_t{3}}));
  EXPECT_EQ(r.DebugString(), "{12}");
  EXPECT_FALSE(r.MayOverlap(uint64_t{13}, uint64_t{19}));
  EXPECT_TRUE(r.MayOverlap(uint64_t{11}, uint64_t{13}));

  ValueRange contradiction = ValueRange::Point(uint64_t{1});
  contradiction.IntersectWith(ValueRange::AtLeast(uint64_t{1}, false));
  EXPECT_TRUE(contradiction.empty());
  EXPECT_FALSE(contradiction.MayOverlap(uint64_t{0}, uint64_t{100}));
}

TEST(ValueRangeTest, UnionTakesTheHull) {
  ValueRange a = ValueRange::Point(uint64_t{5});
  a.UniteWith(ValueRange::Point(uint64_t{9}));
  EXPECT_EQ(a.DebugString(), "{5, 9}");
  a.UniteWith(ValueRange::AtLeast(uint64_t{7}, false));
  EXPECT_EQ(a.DebugString(), "[5, +inf)");
  ValueRange b = ValueRange::AtMost(std::string("m"), true);
  b.UniteWith(ValueRange::AtLeast(std::string("x"), true));
  EXPECT_TRUE(b.unbounded());
}

TEST(ValueRangeTest, IncomparableValuesNeverPrune) {
  ValueRange r = ValueRange::Point(std::string("2013-07-01"));
  EXPECT_TRUE(r.MayOverlap(uint64_t{0}, uint64_t{1}));
  EXPECT_TRUE(ValueRange::AtLeast(std::nan(""), true).unbounded());
  ValueRange mixed = ValueRange::Points({uint64_t{1}, std::string("x")});
  EXPECT_TRUE(mixed.unbounded());
}

}  // namespace
}  // namespace granite::storage
