// PartBoundsBlock: which fragments it answers, and that its rows hold each part's bounds.
#include "worker/part_bounds_scan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/functions/expr_builder.h"
#include "storage/store.h"
#include "worker/store_test_base.h"

namespace granite::worker {
namespace {

namespace plan = granite::core::plan;
using core::Col;
using core::TypeId;

class PartBoundsScanTest : public StoreTestBase {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(CreateTable(
        "t", {{"d", TypeId::kDate}, {"n", TypeId::kInt32}, {"s", TypeId::kString}}, 16));
    // Two parts: d 100..199 and n -50..49, then d 300..309 and n 1000..1009.
    for (auto [first_d, first_n, rows] : {std::tuple{100, -50, 100}, std::tuple{300, 1000, 10}}) {
      auto d = std::make_shared<core::Column>(TypeId::kDate);
      auto n = std::make_shared<core::Column>(TypeId::kInt32);
      auto s = std::make_shared<core::Column>(TypeId::kString);
      for (int r = 0; r < rows; ++r) {
        d->Append<uint16_t>(static_cast<uint16_t>(first_d + r));
        n->Append<int32_t>(first_n + r);
        s->AppendString("x");
      }
      ASSERT_NO_FATAL_FAILURE(Insert("t", {d, n, s}));
    }
  }

  // SELECT <name>(<column>) ... FROM t, reading `columns`.
  static plan::Fragment MinMax(std::vector<std::pair<std::string, plan::Expr>> calls,
                             std::vector<std::string> columns) {
    plan::Fragment fragment;
    fragment.aggregate.emplace();
    fragment.scan.table = "t";
    for (const std::string& column : columns) fragment.scan.columns.push_back(column);
    for (auto& [name, arg] : calls) {
      fragment.aggregate->calls.push_back({.name = name, .args = {arg}});
    }
    return fragment;
  }

  std::optional<core::Block> Bounds(const plan::Fragment& fragment) {
    std::unique_ptr<MorselSource> source = Open(fragment);
    return source != nullptr ? PartBoundsBlock(fragment, *source) : std::nullopt;
  }
};

TEST_F(PartBoundsScanTest, HoldsEachPartsMinimumAndMaximum) {
  plan::Fragment fragment =
      MinMax({{"min", Col(0, TypeId::kDate)}, {"max", Col(1, TypeId::kInt32)}}, {"d", "n"});
  std::optional<core::Block> block = Bounds(fragment);
  ASSERT_TRUE(block.has_value());
  ASSERT_EQ(block->rows(), 4u);
  std::vector<uint16_t> d;
  std::vector<int32_t> n;
  for (size_t r = 0; r < 4; ++r) {
    d.push_back(block->columns[0]->Get<uint16_t>(r));
    n.push_back(block->columns[1]->Get<int32_t>(r));
  }
  std::sort(d.begin(), d.end());
  std::sort(n.begin(), n.end());
  EXPECT_EQ(d, (std::vector<uint16_t>{100, 199, 300, 309}));
  EXPECT_EQ(n, (std::vector<int32_t>{-50, 49, 1000, 1009}));
}

TEST_F(PartBoundsScanTest, LeavesOtherFragmentsToTheScan) {
  plan::Fragment base = MinMax({{"min", Col(0, TypeId::kDate)}}, {"d"});
  ASSERT_TRUE(Bounds(base).has_value());
  plan::Fragment off = base;
  ASSERT_TRUE(off.settings.Set("use_part_bounds_for_min_max", "0").ok());
  EXPECT_FALSE(Bounds(off).has_value());
  plan::Fragment filtered = base;
  filtered.filter = Col(0, TypeId::kDate);
  EXPECT_FALSE(Bounds(filtered).has_value());
  plan::Fragment grouped = base;
  grouped.aggregate->keys.push_back(Col(0, TypeId::kDate));
  EXPECT_FALSE(Bounds(grouped).has_value());
  EXPECT_FALSE(Bounds(MinMax({{"sum", Col(0, TypeId::kDate)}}, {"d"})).has_value());
  EXPECT_FALSE(Bounds(MinMax({{"max", Col(0, TypeId::kString)}}, {"s"})).has_value());
  // A source column no min / max reads.
  EXPECT_FALSE(Bounds(MinMax({{"min", Col(0, TypeId::kDate)}}, {"d", "n"})).has_value());
}

}  // namespace
}  // namespace granite::worker
