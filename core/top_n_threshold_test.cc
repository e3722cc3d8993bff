// Tests of TopNThreshold: the bound it keeps, the rows it selects, and that a FragmentPipeline
// cutting rows by it returns exactly the rows of a full sort (with heavy ties on the first key).
#include "core/top_n_threshold.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/block_sort.h"
#include "core/fragment_pipeline.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

namespace pb = granite::core::plan;

pb::Expr ColumnRef(size_t column, TypeId type) {
  pb::Expr expr;
  expr.kind = pb::Expr::Kind::kColumn;
  expr.type = type;
  expr.column = static_cast<uint32_t>(column);
  return expr;
}

// SELECT c0, c1, c3 FROM input WHERE c2 ORDER BY c0 [DESC][, c1] LIMIT limit, with input columns
// c0 Int64 (many ties), c1 UInt64 (unique), c2 UInt8 (the filter), c3 String.
pb::Fragment TopNFragment(bool descending, bool second_key, size_t limit) {
  pb::Fragment fragment;
  fragment.filter = ColumnRef(2, TypeId::kUInt8);
  fragment.projections.push_back(ColumnRef(0, TypeId::kInt64));
  fragment.projections.push_back(ColumnRef(1, TypeId::kUInt64));
  fragment.projections.push_back(ColumnRef(3, TypeId::kString));
  fragment.order_by.push_back({.column = 0, .descending = descending});
  if (second_key) fragment.order_by.push_back({.column = 1});
  fragment.limit = limit;
  return fragment;
}

Block RandomBlock(std::mt19937_64& rng, uint64_t* next_id, size_t rows, int64_t key_range) {
  auto k = std::make_shared<Column>(TypeId::kInt64);
  auto id = std::make_shared<Column>(TypeId::kUInt64);
  auto flag = std::make_shared<Column>(TypeId::kUInt8);
  auto text = std::make_shared<Column>(TypeId::kString);
  for (size_t i = 0; i < rows; ++i) {
    k->Append<int64_t>(static_cast<int64_t>(rng() % key_range) - key_range / 2);
    id->Append<uint64_t>((*next_id)++);
    flag->Append<uint8_t>(rng() % 3 != 0);
    text->AppendString("row" + std::to_string(*next_id));
  }
  Block block;
  block.columns = {k, id, flag, text};
  block.rows_without_columns = rows;
  return block;
}

std::vector<std::string> RowTexts(const Block& block) {
  std::vector<std::string> rows(block.rows());
  for (size_t r = 0; r < block.rows(); ++r) {
    for (const ColumnPtr& column : block.columns) {
      AppendValueText(*column, r, &rows[r]);
      rows[r] += '|';
    }
  }
  return rows;
}

// Runs `fragment` over `blocks` on two thread states (alternating) and returns its rows, and the
// reference: the filtered rows fully sorted by the same keys, cut to the limit.
void RunBoth(const pb::Fragment& fragment, const std::vector<Block>& blocks, Block* got,
             Block* want, bool* bound_set) {
  auto pipeline = FragmentPipeline::Compile(fragment);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  ASSERT_TRUE((*pipeline)->top_n_threshold().has_value());
  std::vector<std::unique_ptr<FragmentPipeline::LocalState>> states;
  for (int t = 0; t < 2; ++t) states.push_back(*(*pipeline)->NewLocalState());
  std::vector<Block> kept;
  for (size_t b = 0; b < blocks.size(); ++b) {
    ASSERT_TRUE((*pipeline)->Consume(*states[b % 2], blocks[b]).ok());
    const Column& flag = *blocks[b].columns[2];
    Block filtered;
    filtered.rows_without_columns = 0;
    for (size_t c : {0, 1, 3}) {
      filtered.columns.push_back(std::make_shared<Column>(blocks[b].columns[c]->Filter(
          flag.Data<uint8_t>())));
    }
    filtered.rows_without_columns = filtered.columns[0]->size();
    kept.push_back(std::move(filtered));
  }
  *bound_set = states[0]->top_n_bound.set && states[1]->top_n_bound.set;
  auto rows = (*pipeline)->FinishRows(std::move(states));
  ASSERT_TRUE(rows.ok()) << rows.status();
  *got = *std::move(rows);
  std::vector<SortColumn> order;
  for (const pb::SortKey& key : fragment.order_by) {
    order.push_back(SortColumn{key.column, key.descending});
  }
  Block all = ConcatBlocks(kept);
  *want = TakeRows(all, SortPermutation(all, order, fragment.limit));
}

TEST(TopNThresholdTest, EqualsFullSortWithTies) {
  for (bool descending : {false, true}) {
    for (size_t limit : {1, 10, 100}) {
      for (int64_t key_range : {4, 1000, 1000000}) {
        std::mt19937_64 rng(limit * 31 + key_range);
        uint64_t next_id = 0;
        std::vector<Block> blocks;
        for (int b = 0; b < 40; ++b) blocks.push_back(RandomBlock(rng, &next_id, 500, key_range));
        Block got, want;
        bool bound_set = false;
        RunBoth(TopNFragment(descending, true, limit), blocks, &got, &want, &bound_set);
        EXPECT_TRUE(bound_set);
        EXPECT_EQ(RowTexts(got), RowTexts(want))
            << "desc " << descending << " limit " << limit << " range " << key_range;
      }
    }
  }
}

TEST(TopNThresholdTest, FirstKeyOnlyKeepsTheTiedKeys) {
  // ORDER BY c0 alone: which of the tied rows come out is not defined, their keys are.
  std::mt19937_64 rng(7);
  uint64_t next_id = 0;
  std::vector<Block> blocks;
  for (int b = 0; b < 40; ++b) blocks.push_back(RandomBlock(rng, &next_id, 300, 3));
  Block got, want;
  bool bound_set = false;
  RunBoth(TopNFragment(false, false, 50), blocks, &got, &want, &bound_set);
  ASSERT_EQ(got.rows(), 50u);
  ASSERT_EQ(want.rows(), 50u);
  for (size_t r = 0; r < 50; ++r) {
    EXPECT_EQ(got.columns[0]->Get<int64_t>(r), want.columns[0]->Get<int64_t>(r)) << r;
  }
}

TEST(TopNThresholdTest, SelectsRowsWithinTheBound) {
  auto threshold = TopNThreshold::For(TopNFragment(false, false, 3));
  ASSERT_TRUE(threshold.has_value());
  EXPECT_EQ(threshold->input_column(), 0u);
  EXPECT_EQ(threshold->projected_column(), 0u);
  auto top = std::make_shared<Column>(TypeId::kInt64);
  for (int64_t v : {-5, 2, -1}) top->Append<int64_t>(v);
  TopNThreshold::Bound bound;
  auto keys = std::make_shared<Column>(TypeId::kInt64);
  for (int64_t v : {-7, 2, 3, -1, 100}) keys->Append<int64_t>(v);
  std::vector<uint8_t> mask;
  EXPECT_EQ(threshold->Select(*keys, bound, &mask), 5u);  // no bound yet
  threshold->Tighten(*top, &bound);
  ASSERT_TRUE(bound.set);
  EXPECT_EQ(threshold->Select(*keys, bound, &mask), 3u);
  EXPECT_EQ(mask, (std::vector<uint8_t>{1, 1, 0, 1, 0}));  // ties (2) pass
  EXPECT_EQ(threshold->Select(*keys, bound, nullptr), 3u);

  auto desc = TopNThreshold::For(TopNFragment(true, false, 3));
  TopNThreshold::Bound desc_bound;
  desc->Tighten(*top, &desc_bound);  // worst of a descending top is its minimum, -5
  EXPECT_EQ(desc->Select(*keys, desc_bound, &mask), 4u);
  EXPECT_EQ(mask, (std::vector<uint8_t>{0, 1, 1, 1, 1}));
  // A looser top never loosens the bound.
  auto loose = std::make_shared<Column>(TypeId::kInt64);
  for (int64_t v : {-50, 0, 0}) loose->Append<int64_t>(v);
  desc->Tighten(*loose, &desc_bound);
  EXPECT_EQ(desc->Select(*keys, desc_bound, nullptr), 4u);
}

TEST(TopNThresholdTest, DateTimeKey) {
  pb::Fragment fragment;
  fragment.projections.push_back(ColumnRef(0, TypeId::kDateTime));
  fragment.order_by.push_back({.column = 0});
  fragment.limit = 2;
  auto threshold = TopNThreshold::For(fragment);
  ASSERT_TRUE(threshold.has_value());
  auto top = std::make_shared<Column>(TypeId::kDateTime);
  for (uint32_t v : {4000000000u, 10u}) top->Append<uint32_t>(v);
  TopNThreshold::Bound bound;
  threshold->Tighten(*top, &bound);
  auto keys = std::make_shared<Column>(TypeId::kDateTime);
  for (uint32_t v : {4000000001u, 4000000000u, 0u}) keys->Append<uint32_t>(v);
  EXPECT_EQ(threshold->Select(*keys, bound, nullptr), 2u);
}

TEST(TopNThresholdTest, GranuleRangeAgainstTheBound) {
  auto asc = TopNThreshold::For(TopNFragment(false, false, 2));
  auto desc = TopNThreshold::For(TopNFragment(true, false, 2));
  auto top = std::make_shared<Column>(TypeId::kInt64);
  for (int64_t v : {-3, 8}) top->Append<int64_t>(v);
  TopNThreshold::Bound unset, asc_bound, desc_bound;
  EXPECT_TRUE(asc->RangeMayEnter(Value(int64_t{100}), Value(int64_t{200}), unset));
  asc->Tighten(*top, &asc_bound);    // 8
  desc->Tighten(*top, &desc_bound);  // -3
  EXPECT_TRUE(asc->RangeMayEnter(Value(int64_t{8}), Value(int64_t{20}), asc_bound));
  EXPECT_FALSE(asc->RangeMayEnter(Value(int64_t{9}), Value(int64_t{20}), asc_bound));
  EXPECT_TRUE(desc->RangeMayEnter(Value(int64_t{-10}), Value(int64_t{-3}), desc_bound));
  EXPECT_FALSE(desc->RangeMayEnter(Value(int64_t{-10}), Value(int64_t{-4}), desc_bound));
  // Bounds of another form are never trusted.
  EXPECT_TRUE(asc->RangeMayEnter(Value(uint64_t{9}), Value(uint64_t{20}), asc_bound));
}

TEST(TopNThresholdTest, DoesNotApply) {
  pb::Fragment no_limit = TopNFragment(false, false, 0);
  EXPECT_FALSE(TopNThreshold::For(no_limit).has_value());
  pb::Fragment float_key;
  float_key.projections.push_back(ColumnRef(0, TypeId::kFloat64));
  float_key.order_by.push_back({.column = 0});
  float_key.limit = 5;
  EXPECT_FALSE(TopNThreshold::For(float_key).has_value());
  pb::Fragment string_key = TopNFragment(false, false, 5);
  string_key.order_by[0].column = 2;  // c3, a String
  EXPECT_FALSE(TopNThreshold::For(string_key).has_value());
  pb::Fragment computed = TopNFragment(false, false, 5);
  pb::Expr& call = computed.projections[0];
  call.kind = pb::Expr::Kind::kCall;
  call.column = 0;
  call.function = "negate";
  call.args = {ColumnRef(0, TypeId::kInt64)};
  EXPECT_FALSE(TopNThreshold::For(computed).has_value());
}

}  // namespace
}  // namespace granite::core
