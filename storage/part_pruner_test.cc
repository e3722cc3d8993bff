// Partitioned, sorted inserts and pruning: parts per partition, sorted rows, primary index, and
// PartPruner choosing exactly the parts and granules that can hold matching rows (checked against
// a brute-force scan).
#include "storage/part_pruner.h"

#include <gtest/gtest.h>

#include "core/date_time.h"
#include "storage/store.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::TypeId;

// hits-like: PARTITION BY toYYYYMM(d), ORDER BY (counter, d), 100 rows per granule.
TableSchema HitsSchema() {
  TableSchema schema;
  schema.name = "hits";
  schema.columns = {{"counter", TypeId::kUInt32}, {"d", TypeId::kDate}, {"url", TypeId::kString}};
  schema.partition_by = "toYYYYMM(d)";
  schema.order_by = {"counter", "d"};
  schema.settings["index_granularity"] = "100";
  return schema;
}

uint16_t Day(int y, int m, int d) { return static_cast<uint16_t>(core::DaysFromCivil(y, m, d)); }

// Rows for days [first_day, first_day + days), `per_day` rows each, counters cycling 0..49.
core::Block Rows(uint16_t first_day, int days, int per_day) {
  auto counter = std::make_shared<core::Column>(TypeId::kUInt32);
  auto d = std::make_shared<core::Column>(TypeId::kDate);
  auto url = std::make_shared<core::Column>(TypeId::kString);
  int i = 0;
  for (int day = 0; day < days; ++day) {
    for (int r = 0; r < per_day; ++r, ++i) {
      counter->Append<uint32_t>((i * 7) % 50);
      d->Append<uint16_t>(first_day + day);
      url->AppendString("u" + std::to_string(i));
    }
  }
  return core::Block{{counter, d, url}};
}

class PartPrunerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = Store::Open(dir_.path());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    ASSERT_TRUE(store_->CreateTable(HitsSchema(), false, false).ok());
    table_ = store_->GetTable("hits");
    // One insert spanning June to August 2013: three parts.
    absl::StatusOr<std::string> names = table_->Insert(Rows(Day(2013, 6, 20), 50, 40));
    ASSERT_TRUE(names.ok()) << names.status();
    EXPECT_EQ(*names, "201306_1_1_0,201307_2_2_0,201308_3_3_0");
  }

  // Returns how many rows of the selection satisfy `match`, and checks that no row outside it does.
  size_t CheckSelection(const ColumnRanges& ranges,
                        const std::function<bool(uint32_t, uint16_t)>& match, PruneStats* stats) {
    PartPruner pruner(table_->splitter(), ranges);
    auto snapshot = table_->Snapshot();
    std::vector<SelectedPart> selected = pruner.Select(*snapshot, stats);
    size_t matched_inside = 0, matched_total = 0;
    for (size_t p = 0; p < snapshot->parts.size(); ++p) {
      const Part& part = *snapshot->parts[p];
      auto counters = part.ReadColumn(0, 0, part.granule_count());
      auto days = part.ReadColumn(1, 0, part.granule_count());
      EXPECT_TRUE(counters.ok() && days.ok());
      for (size_t g = 0; g < part.granule_count(); ++g) {
        bool chosen = false;
        for (const SelectedPart& s : selected) {
          if (s.part != p) continue;
          for (const GranuleRange& r : s.granules) chosen |= g >= r.begin && g < r.end;
        }
        for (size_t row = part.granule_first_row(g); row < part.granule_first_row(g + 1); ++row) {
          if (!match((*counters)->Get<uint32_t>(row), (*days)->Get<uint16_t>(row))) continue;
          ++matched_total;
          EXPECT_TRUE(chosen) << "a matching row in a pruned granule: part " << part.name()
                              << " granule " << g;
          if (chosen) ++matched_inside;
        }
      }
    }
    EXPECT_EQ(matched_inside, matched_total);
    return matched_total;
  }

  TempDirectory dir_;
  std::unique_ptr<Store> store_;
  std::shared_ptr<Table> table_;
};

TEST_F(PartPrunerTest, InsertSplitsByPartitionAndSortsByKey) {
  auto snapshot = table_->Snapshot();
  ASSERT_EQ(snapshot->Partitions().size(), 3u);
  const Part& july = *snapshot->parts[1];
  EXPECT_EQ(july.partition_id(), "201307");
  EXPECT_EQ(july.partition().value, core::Value(uint64_t{201307}));
  EXPECT_EQ(july.rows(), 31u * 40);
  EXPECT_EQ(july.sort_key(), (std::vector<std::string>{"counter", "d"}));
  auto counters = july.ReadColumn(0, 0, july.granule_count());
  auto days = july.ReadColumn(1, 0, july.granule_count());
  ASSERT_TRUE(counters.ok() && days.ok());
  for (size_t r = 1; r < july.rows(); ++r) {
    auto prev = std::make_pair((*counters)->Get<uint32_t>(r - 1), (*days)->Get<uint16_t>(r - 1));
    auto cur = std::make_pair((*counters)->Get<uint32_t>(r), (*days)->Get<uint16_t>(r));
    ASSERT_LE(prev, cur) << "row " << r;
  }
  // The sparse index holds the key at every granule start and at the last row.
  const PrimaryIndex& index = july.primary_index();
  ASSERT_EQ(index.values.size(), 2u);
  ASSERT_EQ(index.values[0].size(), july.granule_count() + 1);
  EXPECT_EQ(index.values[0][1], core::Value(uint64_t{(*counters)->Get<uint32_t>(100)}));
  EXPECT_EQ(index.values[1].back(),
            core::Value(uint64_t{(*days)->Get<uint16_t>(july.rows() - 1)}));

  // Everything survives a restart.
  store_.reset();
  table_.reset();
  auto store = Store::Open(dir_.path());
  ASSERT_TRUE(store.ok());
  auto reopened = (*store)->GetTable("hits")->Snapshot();
  ASSERT_EQ(reopened->parts.size(), 3u);
  EXPECT_EQ(reopened->parts[1]->primary_index().values, index.values);
  EXPECT_EQ(reopened->parts[1]->partition(), july.partition());
}

TEST_F(PartPrunerTest, CounterAndDateRangeReadOnlyMatchingGranules) {
  // ClickBench Q37-Q43 shape: CounterID = 62 AND EventDate BETWEEN '2013-07-01' AND '2013-07-31'.
  ColumnRanges ranges;
  ranges[0] = ValueRange::Point(uint64_t{21});
  ranges[1] = ValueRange::AtLeast(uint64_t{Day(2013, 7, 1)}, true);
  ranges[1].IntersectWith(ValueRange::AtMost(uint64_t{Day(2013, 7, 31)}, true));
  PruneStats stats;
  auto match = [](uint32_t c, uint16_t d) {
    return c == 21 && d >= Day(2013, 7, 1) && d <= Day(2013, 7, 31);
  };
  size_t matched = CheckSelection(ranges, match, &stats);
  EXPECT_GT(matched, 0u);
  EXPECT_EQ(stats.parts_total, 3u);
  EXPECT_EQ(stats.parts_selected, 1u);  // only July's partition
  EXPECT_EQ(stats.granules_total, table_->Snapshot()->granules);
  // counter = 21 is 1/50 of July's 1240 sorted rows: within one or two granules of 100.
  EXPECT_LE(stats.granules_selected, 2u);
  EXPECT_GE(stats.granules_selected, 1u);
}

TEST_F(PartPrunerTest, RangesPointsAndContradictions) {
  PruneStats stats;
  // d < 2013-07-01 (exclusive): June only.
  ColumnRanges before;
  before[1] = ValueRange::AtMost(uint64_t{Day(2013, 7, 1)}, false);
  CheckSelection(before, [](uint32_t, uint16_t d) { return d < Day(2013, 7, 1); }, &stats);
  EXPECT_EQ(stats.parts_selected, 1u);

  // d IN (2013-06-25, 2013-08-02): two partitions by point lookup.
  ColumnRanges points;
  points[1] = ValueRange::Points({uint64_t{Day(2013, 8, 2)}, uint64_t{Day(2013, 6, 25)}});
  CheckSelection(
      points, [](uint32_t, uint16_t d) { return d == Day(2013, 8, 2) || d == Day(2013, 6, 25); },
      &stats);
  EXPECT_EQ(stats.parts_selected, 2u);

  // counter > 48: every partition, few granules.
  ColumnRanges high;
  high[0] = ValueRange::AtLeast(uint64_t{48}, false);
  CheckSelection(high, [](uint32_t c, uint16_t) { return c > 48; }, &stats);
  EXPECT_EQ(stats.parts_selected, 3u);
  EXPECT_LE(stats.granules_selected, 5u);  // of 22: the tail of each part

  // A contradiction selects nothing; no condition selects everything.
  ColumnRanges none;
  none[0] = ValueRange::Point(uint64_t{5});
  none[0].IntersectWith(ValueRange::Point(uint64_t{6}));
  CheckSelection(none, [](uint32_t, uint16_t) { return false; }, &stats);
  EXPECT_EQ(stats.parts_selected, 0u);
  CheckSelection({}, [](uint32_t, uint16_t) { return true; }, &stats);
  EXPECT_EQ(stats.granules_selected, stats.granules_total);
}

TEST_F(PartPrunerTest, PartitionRangeComesThroughTheMonotonicExpression) {
  ColumnRanges ranges;
  ranges[1] = ValueRange::AtLeast(uint64_t{Day(2013, 7, 15)}, false);
  PartPruner pruner(table_->splitter(), ranges);
  ASSERT_TRUE(pruner.partition_range().has_value());
  EXPECT_EQ(pruner.partition_range()->DebugString(), "[201307, +inf)");
}

}  // namespace
}  // namespace granite::storage
