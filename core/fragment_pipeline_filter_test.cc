// Tests of FragmentPipeline's filter step: only the columns read after the filter (keys, aggregate
// arguments, projections, and column 0) are filtered; a column only the filter reads is not, and a
// filtered count() keeps no column at all. Results must equal those of filtering every column.
#include "core/fragment_pipeline.h"

#include <gtest/gtest.h>

#include "core/functions/test_columns.h"

namespace granite::core {
namespace {

using T = TypeId;

// c0 UInt8 (0 every third row), c1 UInt64 (row * 10), c2 UInt32 (row), 100 rows.
Block Input() {
  auto c0 = std::make_shared<Column>(T::kUInt8);
  auto c1 = std::make_shared<Column>(T::kUInt64);
  auto c2 = std::make_shared<Column>(T::kUInt32);
  for (uint32_t row = 0; row < 100; ++row) {
    c0->Append<uint8_t>(row % 3 == 0 ? 0 : 1 + row % 7);
    c1->Append<uint64_t>(row * 10);
    c2->Append<uint32_t>(row);
  }
  return BlockOf({c0, c1, c2});
}

// Runs `fragment` over Input() on one local state; returns the projected rows, or for an
// aggregating fragment the finalized groups.
absl::StatusOr<Block> RunOverInput(const plan::Fragment& fragment) {
  ASSIGN_OR_RETURN(auto pipeline, FragmentPipeline::Compile(fragment));
  ASSIGN_OR_RETURN(auto state, pipeline->NewLocalState());
  RETURN_IF_ERROR(pipeline->Consume(*state, Input()));
  std::vector<std::unique_ptr<FragmentPipeline::LocalState>> states;
  states.push_back(std::move(state));
  if (pipeline->aggregating()) return pipeline->FinishFinalized(std::move(states), nullptr);
  return pipeline->FinishRows(std::move(states));
}

// count() WHERE c0 <> 0: the filter's column is read by nothing after it.
TEST(FragmentPipelineFilterTest, FilteredCountReadsNoColumn) {
  plan::Fragment fragment;
  fragment.worker_count = 1;
  fragment.filter = Fn("notEquals", {Col(0, T::kUInt8), Lit(uint64_t{0})});
  fragment.aggregate.emplace().calls.push_back({.name = "count"});
  absl::StatusOr<Block> result = RunOverInput(fragment);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->rows(), 1u);
  EXPECT_EQ(Texts(*result->columns[0]), (std::vector<std::string>{"66"}));
}

// SELECT c2 WHERE c1 = 420 (column 1 is read only by the filter) and SELECT c0, c2 WHERE c1 >= 900.
TEST(FragmentPipelineFilterTest, ProjectsOnlyTheColumnsItReads) {
  plan::Fragment point;
  point.filter = Fn("equals", {Col(1, T::kUInt64), Lit(uint64_t{420})});
  point.projections.push_back(Col(2, T::kUInt32));
  absl::StatusOr<Block> rows = RunOverInput(point);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->rows(), 1u);
  EXPECT_EQ(Texts(*rows->columns[0]), (std::vector<std::string>{"42"}));

  plan::Fragment range;
  range.filter = Fn("greaterOrEquals", {Col(1, T::kUInt64), Lit(uint64_t{900})});
  range.projections.push_back(Col(0, T::kUInt8));
  range.projections.push_back(Col(2, T::kUInt32));
  rows = RunOverInput(range);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->rows(), 10u);
  EXPECT_EQ(Texts(*rows->columns[1]),
            (std::vector<std::string>{"90", "91", "92", "93", "94", "95", "96", "97", "98", "99"}));
  EXPECT_EQ(Texts(*rows->columns[0])[0], "0");  // row 90: 90 % 3 == 0
  EXPECT_EQ(Texts(*rows->columns[0])[1], "1");  // row 91: 1 + 91 % 7
}

// Filters keeping under one row in 8 gather the kept rows by index (one pass over the mask), and
// a block with no kept row builds no index: SELECT c0, c2 WHERE c1 IN (70, 710) / WHERE c1 = 5.
TEST(FragmentPipelineFilterTest, SelectiveFiltersGatherTheKeptRows) {
  plan::Fragment few;
  few.filter = Fn("or", {Fn("equals", {Col(1, T::kUInt64), Lit(uint64_t{70})}),
                         Fn("equals", {Col(1, T::kUInt64), Lit(uint64_t{710})})});
  few.projections.push_back(Col(0, T::kUInt8));
  few.projections.push_back(Col(2, T::kUInt32));
  absl::StatusOr<Block> rows = RunOverInput(few);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(Texts(*rows->columns[0]), (std::vector<std::string>{"1", "2"}));  // 1 + row % 7
  EXPECT_EQ(Texts(*rows->columns[1]), (std::vector<std::string>{"7", "71"}));

  plan::Fragment none;
  none.filter = Fn("equals", {Col(1, T::kUInt64), Lit(uint64_t{5})});
  none.projections.push_back(Col(2, T::kUInt32));
  rows = RunOverInput(none);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->rows(), 0u);
}

// sum(c2) GROUP BY c0 WHERE c1 < 300: key and argument columns are filtered, c1 is not.
TEST(FragmentPipelineFilterTest, GroupsOverFilteredKeysAndArguments) {
  plan::Fragment fragment;
  fragment.worker_count = 1;
  fragment.filter = Fn("less", {Col(1, T::kUInt64), Lit(uint64_t{300})});
  plan::Aggregate& aggregate = fragment.aggregate.emplace();
  aggregate.keys.push_back(Col(0, T::kUInt8));
  aggregate.calls.push_back({.name = "sum", .args = {Col(2, T::kUInt32)}});
  absl::StatusOr<Block> result = RunOverInput(fragment);
  ASSERT_TRUE(result.ok()) << result.status();
  // Rows 0..29: key 0 for multiples of 3 (sum 0+3+...+27 = 135); all sums add up to 435.
  uint64_t total = 0;
  bool saw_zero_key = false;
  for (size_t r = 0; r < result->rows(); ++r) {
    uint64_t value = std::stoull(Texts(*result->columns[1])[r]);
    total += value;
    if (Texts(*result->columns[0])[r] == "0") {
      saw_zero_key = true;
      EXPECT_EQ(value, 135u);
    }
  }
  EXPECT_TRUE(saw_zero_key);
  EXPECT_EQ(total, 435u);
}

}  // namespace
}  // namespace granite::core
