// CutLocalGroups: HAVING first, then the first local_limit groups in local_order order (ties keep
// input order; no order: the first groups), and nothing cut without a limit.
#include "worker/local_group_cut.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/functions/expr_builder.h"

namespace granite::worker {
namespace {

namespace plan = granite::core::plan;
using core::Col;
using core::Lit;
using core::TypeId;

// Groups (key k, count c): k = 0..9 with c = {5, 1, 5, 3, 5, 2, 7, 1, 3, 5}.
core::Block Groups() {
  const std::vector<uint64_t> counts = {5, 1, 5, 3, 5, 2, 7, 1, 3, 5};
  auto k = std::make_shared<core::Column>(TypeId::kUInt32);
  auto c = std::make_shared<core::Column>(TypeId::kUInt64);
  for (uint32_t i = 0; i < counts.size(); ++i) {
    k->Append<uint32_t>(i);
    c->Append<uint64_t>(counts[i]);
  }
  core::Block block;
  block.columns = {k, c};
  return block;
}

std::vector<uint32_t> Keys(const core::Block& block) {
  std::vector<uint32_t> keys;
  for (size_t i = 0; i < block.rows(); ++i) keys.push_back(block.columns[0]->Data<uint32_t>()[i]);
  return keys;
}

TEST(LocalGroupCutTest, ACutIsActiveOnlyWithHavingOrLimit) {
  plan::LocalCut cut_spec;
  EXPECT_FALSE(cut_spec.active());
  cut_spec.limit = 3;
  EXPECT_TRUE(cut_spec.active());
  cut_spec.limit = 0;
  cut_spec.having = Lit(core::Value(uint64_t{1}), TypeId::kUInt8);
  EXPECT_TRUE(cut_spec.active());
}

TEST(LocalGroupCutTest, OrdersAndKeepsTheFirstLimitGroupsTiesInInputOrder) {
  plan::LocalCut cut_spec;
  cut_spec.order.push_back(Col(1, TypeId::kUInt64));
  cut_spec.descending.push_back(true);
  cut_spec.limit = 4;
  absl::StatusOr<core::Block> cut = CutLocalGroups(cut_spec, Groups());
  ASSERT_TRUE(cut.ok()) << cut.status();
  // c = 7 (k 6), then the c = 5 ties in input order: k 0, 2, 4 (k 9 is past the limit).
  EXPECT_EQ(Keys(*cut), (std::vector<uint32_t>{6, 0, 2, 4}));
  EXPECT_EQ(cut->columns[1]->Data<uint64_t>()[0], 7u);

  cut_spec.limit = 20;  // more than there are groups: all, unchanged
  cut = CutLocalGroups(cut_spec, Groups());
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(cut->rows(), 10u);
}

TEST(LocalGroupCutTest, HavingBeforeTheLimitAndNoOrderKeepsTheFirst) {
  plan::LocalCut cut_spec;
  absl::StatusOr<plan::Expr> having = core::TypedCall(
      "less", {Col(1, TypeId::kUInt64), Lit(core::Value(uint64_t{3}), TypeId::kUInt64)});
  ASSERT_TRUE(having.ok()) << having.status();
  cut_spec.having = *having;
  absl::StatusOr<core::Block> cut = CutLocalGroups(cut_spec, Groups());  // no limit
  ASSERT_TRUE(cut.ok()) << cut.status();
  EXPECT_EQ(Keys(*cut), (std::vector<uint32_t>{1, 5, 7}));

  cut_spec.limit = 2;  // the first two passing groups, not the first two groups
  cut = CutLocalGroups(cut_spec, Groups());
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(Keys(*cut), (std::vector<uint32_t>{1, 5}));

  cut_spec.order.push_back(Col(0, TypeId::kUInt32));
  cut_spec.descending.push_back(true);
  cut = CutLocalGroups(cut_spec, Groups());
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(Keys(*cut), (std::vector<uint32_t>{7, 5}));

  cut = CutLocalGroups(cut_spec, core::Block());  // no groups at all
  ASSERT_TRUE(cut.ok()) << cut.status();
  EXPECT_EQ(cut->rows(), 0u);
}

TEST(LocalGroupCutTest, MismatchedDirectionsAreAnError) {
  plan::LocalCut cut_spec;
  cut_spec.order.push_back(Col(1, TypeId::kUInt64));
  cut_spec.limit = 1;
  EXPECT_FALSE(CutLocalGroups(cut_spec, Groups()).ok());
}

}  // namespace
}  // namespace granite::worker
