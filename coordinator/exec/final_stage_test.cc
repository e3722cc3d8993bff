// Tests of the final stage's top-N by piece: cutting each piece of the stage (a merged bucket) to
// its top limit + offset rows, then sorting the concatenation, gives exactly the rows of the whole
// stage's sort and LIMIT — ties (broken by row position) and HAVING included; so does gathering
// only the top rows of the cut pieces (CombineCutPieces) instead of concatenating them.
#include "coordinator/exec/final_stage.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/block_sort.h"
#include "core/functions/expr_builder.h"

namespace granite::coordinator {
namespace {

namespace pb = granite::worker::v1;
using core::TypeId;

using core::Col;

// Stage columns: key UInt64, count UInt64 (few distinct values: many ties), name String,
// keep UInt8 (the HAVING mask).
core::Block Stage(uint64_t from, uint64_t rows) {
  auto key = std::make_shared<core::Column>(TypeId::kUInt64);
  auto count = std::make_shared<core::Column>(TypeId::kUInt64);
  auto name = std::make_shared<core::Column>(TypeId::kString);
  auto keep = std::make_shared<core::Column>(TypeId::kUInt8);
  for (uint64_t i = from; i < from + rows; ++i) {
    key->Append<uint64_t>(i * 7919 % 1000);
    count->Append<uint64_t>(i * 31 % 5);
    name->AppendString("n" + std::to_string(i % 11));
    keep->Append<uint8_t>(i % 3 != 0);
  }
  core::Block block;
  block.columns = {key, count, name, keep};
  block.rows_without_columns = rows;
  return block;
}

QueryPlan Plan(std::vector<core::SortColumn> order, uint64_t limit, uint64_t offset,
               bool having) {
  QueryPlan plan;
  plan.final_exprs = {Col(2, TypeId::kString), Col(1, TypeId::kUInt64), Col(0, TypeId::kUInt64)};
  plan.visible = 2;  // the key is an extra ORDER BY column only
  plan.order = std::move(order);
  plan.has_limit = true;
  plan.limit = limit;
  plan.offset = offset;
  plan.has_having = having;
  if (having) plan.having = Col(3, TypeId::kUInt8);
  return plan;
}

void ExpectSameRows(const core::Block& got, const core::Block& want) {
  ASSERT_EQ(got.columns.size(), want.columns.size());
  ASSERT_EQ(got.rows(), want.rows());
  for (size_t row = 0; row < want.rows(); ++row) {
    EXPECT_EQ(got.columns[0]->StringAt(row), want.columns[0]->StringAt(row)) << row;
    EXPECT_EQ(got.columns[1]->Get<uint64_t>(row), want.columns[1]->Get<uint64_t>(row)) << row;
  }
}

TEST(FinalStageTest, TopNByPieceEqualsSortOfTheWholeStageWithTies) {
  // Pieces of uneven sizes, some smaller than limit + offset, one empty.
  std::vector<uint64_t> sizes = {400, 3, 0, 1000, 12, 250};
  std::vector<core::Block> pieces;
  uint64_t at = 0;
  for (uint64_t size : sizes) {
    pieces.push_back(Stage(at, size));
    at += size;
  }
  core::Block whole = core::ConcatBlocks(pieces);
  ASSERT_EQ(whole.rows(), at);
  std::vector<QueryPlan> plans = {
      Plan({{1, true}}, 10, 0, false),             // count DESC: ties broken by position
      Plan({{1, true}}, 7, 5, true),               // with OFFSET and HAVING
      Plan({{1, false}, {0, true}}, 20, 0, false), // name ASC, count DESC
      Plan({{2, false}}, 1, 0, true),              // the extra (invisible) column
      Plan({{1, true}}, 5000, 0, false),           // LIMIT above the row count
  };
  for (size_t p = 0; p < plans.size(); ++p) {
    SCOPED_TRACE("plan " + std::to_string(p));
    const QueryPlan& plan = plans[p];
    ASSERT_TRUE(CanCutByPiece(plan));
    auto want = RunFinalStage(plan, whole);
    ASSERT_TRUE(want.ok()) << want.status();
    std::vector<core::Block> cut;
    for (const core::Block& piece : pieces) {
      auto one = CutPiece(plan, piece);
      ASSERT_TRUE(one.ok()) << one.status();
      EXPECT_LE(one->rows(), plan.limit + plan.offset);
      EXPECT_EQ(one->columns.size(), plan.final_exprs.size());
      cut.push_back(std::move(*one));
    }
    auto combined = CombineCutPieces(plan, cut);  // gathers only the top rows
    ASSERT_TRUE(combined.ok()) << combined.status();
    EXPECT_LE(combined->rows(), plan.limit + plan.offset);
    auto got = FinishFinalStage(plan, core::ConcatBlocks(cut));
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectSameRows(*got, *want);
    auto got_combined = FinishFinalStage(plan, std::move(*combined));
    ASSERT_TRUE(got_combined.ok()) << got_combined.status();
    ExpectSameRows(*got_combined, *want);
  }
}

TEST(FinalStageTest, OnlyOrderByWithAPositiveLimitCutsByPiece) {
  EXPECT_TRUE(CanCutByPiece(Plan({{1, true}}, 10, 0, false)));
  EXPECT_FALSE(CanCutByPiece(Plan({{1, true}}, 0, 0, false)));  // LIMIT 0
  EXPECT_FALSE(CanCutByPiece(Plan({}, 10, 0, false)));          // no ORDER BY
  QueryPlan no_limit = Plan({{1, true}}, 10, 0, false);
  no_limit.has_limit = false;
  no_limit.limit = 0;
  EXPECT_FALSE(CanCutByPiece(no_limit));
}

}  // namespace
}  // namespace granite::coordinator
