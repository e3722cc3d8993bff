#include "core/block_sort.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace granite::core {
namespace {

// Rows 0..5 of one Nullable(Float64) column: 2, NULL, NaN, -1, NULL, 7.
Block FloatsWithNullAndNan() {
  auto column = std::make_shared<Column>(WithNullable(TypeId::kFloat64, true));
  column->Append<double>(2);
  column->AppendNull();
  column->Append<double>(std::numeric_limits<double>::quiet_NaN());
  column->Append<double>(-1);
  column->AppendNull();
  column->Append<double>(7);
  Block block;
  block.columns.push_back(column);
  return block;
}

TEST(BlockSortTest, PlacesNullThenNanByNullsFirstWhateverTheDirection) {
  const Block block = FloatsWithNullAndNan();
  struct Case {
    bool descending, nulls_first;
    std::vector<uint32_t> want;
  };
  // ClickHouse: NULLS LAST (the default) = values, NaN, NULL; NULLS FIRST = NULL, NaN, values.
  const std::vector<Case> cases = {
      {false, false, {3, 0, 5, 2, 1, 4}},
      {true, false, {5, 0, 3, 2, 1, 4}},
      {false, true, {1, 4, 2, 3, 0, 5}},
      {true, true, {1, 4, 2, 5, 0, 3}},
  };
  for (const Case& c : cases) {
    const std::vector<SortColumn> keys = {{0, c.descending, c.nulls_first}};
    EXPECT_EQ(SortPermutation(block, keys), c.want)
        << "descending " << c.descending << " nulls_first " << c.nulls_first;
    // A partial sort keeps the same first rows.
    std::vector<uint32_t> top(c.want.begin(), c.want.begin() + 3);
    EXPECT_EQ(SortPermutation(block, keys, 3), top);
  }
}

TEST(BlockSortTest, NanOfNonNullableFloatFollowsNullsFirst) {
  auto column = std::make_shared<Column>(TypeId::kFloat64);
  for (double v : {1.0, std::numeric_limits<double>::quiet_NaN(), 3.0}) column->Append<double>(v);
  Block block;
  block.columns.push_back(column);
  EXPECT_EQ(SortPermutation(block, {{0, true, false}}), (std::vector<uint32_t>{2, 0, 1}));
  EXPECT_EQ(SortPermutation(block, {{0, true, true}}), (std::vector<uint32_t>{1, 2, 0}));
}

TEST(BlockSortTest, NullableStringsAndASecondKeyBreakingNullTies) {
  auto s = std::make_shared<Column>(WithNullable(TypeId::kString, true));
  auto id = std::make_shared<Column>(TypeId::kUInt32);
  const std::vector<const char*> values = {"b", nullptr, "a", nullptr, ""};
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] == nullptr) {
      s->AppendNull();
    } else {
      s->AppendString(values[i]);
    }
    id->Append<uint32_t>(static_cast<uint32_t>(10 - i));
  }
  Block block;
  block.columns = {s, id};
  // NULLS FIRST, descending; the NULL rows 1 and 3 are ordered by id ascending (7 < 9).
  EXPECT_EQ(SortPermutation(block, {{0, true, true}, {1, false, false}}),
            (std::vector<uint32_t>{3, 1, 0, 2, 4}));
  EXPECT_EQ(SortPermutation(block, {{0, false, false}, {1, false, false}}),
            (std::vector<uint32_t>{4, 2, 0, 3, 1}));
}

}  // namespace
// One plain integer key sorts by a typed compare: ties keep input order in both directions,
// negative values and the type's ends order as numbers, and a limit keeps the first rows.
TEST(BlockSortTest, OneIntegerKeyIsStableInBothDirections) {
  const int64_t lowest = std::numeric_limits<int64_t>::min();
  const int64_t highest = std::numeric_limits<int64_t>::max();
  auto column = std::make_shared<Column>(TypeId::kInt64);
  for (int64_t v : {int64_t{3}, int64_t{-2}, highest, int64_t{3}, lowest, int64_t{-2}}) {
    column->Append<int64_t>(v);
  }
  Block block;
  block.columns.push_back(column);
  EXPECT_EQ(SortPermutation(block, {SortColumn{0, false}}),
            (std::vector<uint32_t>{4, 1, 5, 0, 3, 2}));
  EXPECT_EQ(SortPermutation(block, {SortColumn{0, true}}),
            (std::vector<uint32_t>{2, 0, 3, 1, 5, 4}));
  EXPECT_EQ(SortPermutation(block, {SortColumn{0, false}}, 3), (std::vector<uint32_t>{4, 1, 5}));
  auto dates = std::make_shared<Column>(TypeId::kDate);
  for (uint16_t v : {uint16_t{9}, uint16_t{1}, uint16_t{65535}}) dates->Append<uint16_t>(v);
  Block by_date;
  by_date.columns.push_back(dates);
  EXPECT_EQ(SortPermutation(by_date, {SortColumn{0, false}}), (std::vector<uint32_t>{1, 0, 2}));
}

namespace {

// The stable order of rows 0..n-1 of `values` (descending when asked): what SortPermutation must
// give for a single integer key.
template <typename T>
std::vector<uint32_t> StableOrder(const std::vector<T>& values, bool descending) {
  std::vector<uint32_t> rows(values.size());
  std::iota(rows.begin(), rows.end(), 0);
  std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
    return descending ? values[b] < values[a] : values[a] < values[b];
  });
  return rows;
}

template <typename T>
Block OneColumn(TypeId type, const std::vector<T>& values) {
  auto column = std::make_shared<Column>(type);
  for (T v : values) column->Append<T>(v);
  Block block;
  block.columns.push_back(column);
  return block;
}

}  // namespace

// Each way of sorting one integer key (rows in order, a few sorted runs, many rows in no order,
// few rows) against a stable comparison sort, in both directions and with LIMIT.
TEST(BlockSortTest, OneIntegerKeyOfManyRowsInEveryShapeMatchesAStableSort) {
  uint64_t x = 0x9e3779b97f4a7c15ull;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  std::vector<int64_t> random_wide, random_narrow, sorted, runs, extremes, few;
  for (int i = 0; i < 20000; ++i) {
    random_wide.push_back(static_cast<int64_t>(next()));
    random_narrow.push_back(static_cast<int64_t>(next() % 300) - 150);  // many ties
    sorted.push_back(i / 3);
  }
  for (int run = 0; run < 5; ++run) {  // five ascending runs, as workers' sorted streams
    for (int i = 0; i < 3000; ++i) runs.push_back(static_cast<int64_t>(i * 7 + run) % 5000);
    std::sort(runs.end() - 3000, runs.end());
  }
  const int64_t picks[] = {std::numeric_limits<int64_t>::min(), -1, 0, 1,
                           std::numeric_limits<int64_t>::max()};
  for (int i = 0; i < 9000; ++i) extremes.push_back(picks[next() % 5]);
  for (int i = 0; i < 500; ++i) few.push_back(static_cast<int64_t>(next() % 50));
  for (const auto& values : {random_wide, random_narrow, sorted, runs, extremes, few}) {
    const Block block = OneColumn<int64_t>(TypeId::kInt64, values);
    for (bool descending : {false, true}) {
      const std::vector<uint32_t> expected = StableOrder(values, descending);
      EXPECT_EQ(SortPermutation(block, {SortColumn{0, descending}}), expected);
      EXPECT_EQ(SortPermutation(block, {SortColumn{0, descending}}, 100),
                std::vector<uint32_t>(expected.begin(), expected.begin() + 100));
    }
  }
  std::vector<uint64_t> unsigned_high;
  std::vector<int8_t> narrow;
  for (int i = 0; i < 10000; ++i) {
    unsigned_high.push_back(next() | (i % 2 == 0 ? uint64_t{1} << 63 : 0));
    narrow.push_back(static_cast<int8_t>(next()));
  }
  for (bool descending : {false, true}) {
    EXPECT_EQ(SortPermutation(OneColumn<uint64_t>(TypeId::kUInt64, unsigned_high),
                              {SortColumn{0, descending}}),
              StableOrder(unsigned_high, descending));
    EXPECT_EQ(SortPermutation(OneColumn<int8_t>(TypeId::kInt8, narrow), {SortColumn{0, descending}}),
              StableOrder(narrow, descending));
  }
}


}  // namespace granite::core
