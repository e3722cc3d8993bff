// Tests of FragmentPipeline::ConsumeSelected (a filter feeding the aggregator through a selection
// vector): results equal those of the filtered-copy path (aggregate_selected_filter = 0) for a
// String key, a String + integer key, and a distinct count, over blocks where the filter keeps
// none, some and all rows; keys that are expressions keep the filtered-copy path.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/fragment_pipeline.h"
#include "core/functions/test_columns.h"

namespace granite::core {
namespace {

using T = TypeId;

// c0 String (phrase, '' when kind says so), c1 UInt16, c2 UInt64; `kind`: 0 every phrase '',
// 1 every phrase non-empty, 2 about half ''.
Block Input(int kind, uint32_t rows) {
  auto c0 = std::make_shared<Column>(T::kString);
  auto c1 = std::make_shared<Column>(T::kUInt16);
  auto c2 = std::make_shared<Column>(T::kUInt64);
  for (uint32_t row = 0; row < rows; ++row) {
    bool empty = kind == 0 || (kind == 2 && row % 5 < 2);
    c0->AppendString(empty ? "" : "p" + std::to_string(row % 13));
    c1->Append<uint16_t>(static_cast<uint16_t>(row % 3));
    c2->Append<uint64_t>(row % 17);
  }
  return BlockOf({c0, c1, c2});
}

// WHERE c0 <> '' GROUP BY keys: count(), uniqExact(c2).
plan::Fragment GroupBy(std::vector<plan::Expr> keys, bool selected) {
  plan::Fragment fragment;
  fragment.worker_count = 1;
  fragment.filter = Fn("notEquals", {Col(0, T::kString), Lit(std::string())});
  plan::Aggregate& aggregate = fragment.aggregate.emplace();
  aggregate.keys = std::move(keys);
  aggregate.calls.push_back({.name = "count"});
  aggregate.calls.push_back({.name = "uniqExact", .args = {Col(2, T::kUInt64)}});
  if (!selected) fragment.settings.SetValue(&Settings::aggregate_selected_filter, false);
  return fragment;
}

// Runs `fragment` over blocks of every kind on one state; returns sorted finalized rows.
absl::StatusOr<std::vector<std::string>> RunGroups(const plan::Fragment& fragment) {
  ASSIGN_OR_RETURN(auto pipeline, FragmentPipeline::Compile(fragment));
  ASSIGN_OR_RETURN(auto state, pipeline->NewLocalState());
  for (int kind : {2, 0, 1, 2}) RETURN_IF_ERROR(pipeline->Consume(*state, Input(kind, 300)));
  EXPECT_EQ(state->rows_filtered, 1200u);
  EXPECT_EQ(state->rows_passed, 180u + 0u + 300u + 180u);
  std::vector<std::unique_ptr<FragmentPipeline::LocalState>> states;
  states.push_back(std::move(state));
  ASSIGN_OR_RETURN(Block block, pipeline->FinishFinalized(std::move(states), nullptr));
  std::vector<std::string> rows;
  for (size_t r = 0; r < block.rows(); ++r) {
    std::string line;
    for (const ColumnPtr& column : block.columns) line += Texts(*column)[r] + "|";
    rows.push_back(line);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST(FragmentPipelineSelectedTest, StringKeyEqualsFilteredCopies) {
  absl::StatusOr<std::vector<std::string>> selected =
      RunGroups(GroupBy({Col(0, T::kString)}, true));
  absl::StatusOr<std::vector<std::string>> copied =
      RunGroups(GroupBy({Col(0, T::kString)}, false));
  ASSERT_TRUE(selected.ok()) << selected.status();
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_EQ(*selected, *copied);
  ASSERT_EQ(selected->size(), 13u);  // p0 .. p12, never ''
  // "p0": rows 0, 13, 26, ... of each block that pass; the count and distinct c2 values agree.
  EXPECT_EQ((*selected)[0].substr(0, 3), "p0|");
}

TEST(FragmentPipelineSelectedTest, TwoKeysEqualFilteredCopies) {
  absl::StatusOr<std::vector<std::string>> selected =
      RunGroups(GroupBy({Col(1, T::kUInt16), Col(0, T::kString)}, true));
  absl::StatusOr<std::vector<std::string>> copied =
      RunGroups(GroupBy({Col(1, T::kUInt16), Col(0, T::kString)}, false));
  ASSERT_TRUE(selected.ok()) << selected.status();
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_EQ(*selected, *copied);
  EXPECT_EQ(selected->size(), 39u);  // 3 x 13 (13 and 3 are coprime)
}

TEST(FragmentPipelineSelectedTest, ExpressionKeyKeepsCopyPath) {
  // GROUP BY lower(c0): not a plain column, filtered copies as before; same results either way.
  plan::Expr lower = Fn("lower", {Col(0, T::kString)});
  absl::StatusOr<std::vector<std::string>> selected = RunGroups(GroupBy({lower}, true));
  absl::StatusOr<std::vector<std::string>> copied = RunGroups(GroupBy({lower}, false));
  ASSERT_TRUE(selected.ok()) << selected.status();
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_EQ(*selected, *copied);
  EXPECT_EQ(selected->size(), 13u);
}

TEST(FragmentPipelineSelectedTest, BadSettingIsAnError) {
  // A value of the wrong form is refused by the typed settings, before any pipeline exists.
  plan::Fragment fragment = GroupBy({Col(0, T::kString)}, true);
  absl::Status status = fragment.settings.Set("aggregate_selected_filter", "yes");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("aggregate_selected_filter"), std::string::npos);
  EXPECT_FALSE(fragment.settings.IsChanged(&Settings::aggregate_selected_filter));
}

}  // namespace
}  // namespace granite::core
