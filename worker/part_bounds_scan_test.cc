// PartBoundsBlock: which fragments it answers, and that its rows hold each part's bounds.
#include "worker/part_bounds_scan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/functions/expr_builder.h"
#include "storage/store.h"
#include "storage/temp_directory.h"

namespace granite::worker {
namespace {

namespace pb = granite::worker::v1;
using core::Col;
using core::TypeId;

class PartBoundsScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = storage::Store::Open(dir_.path());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    storage::TableSchema schema;
    schema.name = "t";
    schema.columns = {{"d", TypeId::kDate}, {"n", TypeId::kInt32}, {"s", TypeId::kString}};
    schema.settings["index_granularity"] = "16";
    ASSERT_TRUE(store_->CreateTable(schema, false, false).ok());
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
      ASSERT_TRUE(store_->GetTable("t")->Insert(core::Block{{d, n, s}}).ok());
    }
  }

  // SELECT <name>(<column>) ... FROM t, reading `columns`.
  static pb::Fragment MinMax(std::vector<std::pair<std::string, pb::Expr>> calls,
                             std::vector<std::string> columns) {
    pb::Fragment fragment;
    fragment.set_aggregate(true);
    fragment.mutable_source()->set_table("t");
    for (const std::string& column : columns) fragment.mutable_source()->add_columns(column);
    for (auto& [name, arg] : calls) {
      pb::AggregateCall* call = fragment.add_aggregates();
      call->set_name(name);
      *call->add_args() = arg;
    }
    return fragment;
  }

  std::optional<core::Block> Bounds(const pb::Fragment& fragment) {
    auto source = MorselSource::Open(fragment, store_.get());
    EXPECT_TRUE(source.ok()) << source.status();
    return source.ok() ? PartBoundsBlock(fragment, **source) : std::nullopt;
  }

  storage::TempDirectory dir_;
  std::unique_ptr<storage::Store> store_;
};

TEST_F(PartBoundsScanTest, HoldsEachPartsMinimumAndMaximum) {
  pb::Fragment fragment =
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
  pb::Fragment base = MinMax({{"min", Col(0, TypeId::kDate)}}, {"d"});
  ASSERT_TRUE(Bounds(base).has_value());
  pb::Fragment off = base;
  (*off.mutable_settings())["use_part_bounds_for_min_max"] = "0";
  EXPECT_FALSE(Bounds(off).has_value());
  pb::Fragment filtered = base;
  *filtered.mutable_filter() = Col(0, TypeId::kDate);
  EXPECT_FALSE(Bounds(filtered).has_value());
  pb::Fragment grouped = base;
  *grouped.add_group_keys() = Col(0, TypeId::kDate);
  EXPECT_FALSE(Bounds(grouped).has_value());
  EXPECT_FALSE(Bounds(MinMax({{"sum", Col(0, TypeId::kDate)}}, {"d"})).has_value());
  EXPECT_FALSE(Bounds(MinMax({{"max", Col(0, TypeId::kString)}}, {"s"})).has_value());
  // A source column no min / max reads.
  EXPECT_FALSE(Bounds(MinMax({{"min", Col(0, TypeId::kDate)}}, {"d", "n"})).has_value());
}

}  // namespace
}  // namespace granite::worker
