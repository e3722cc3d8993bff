// Filter-to-range derivation and the pruned morsel list of a table scan: parts and granules
// selected vs total, the use_pruning / use_parts_snapshot settings, a part whose data fails its
// checksum leaving the table, and how many granules a morsel holds.
#include "worker/morsel_source.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "core/date_time.h"
#include "core/error.h"
#include "core/functions/expr_builder.h"
#include "worker/store_test_base.h"
#include "worker/filter_ranges.h"

namespace granite::worker {
namespace {

namespace plan = granite::core::plan;
using core::Col;
using core::Lit;
using core::TypeId;

storage::TableSchema Schema() {
  storage::TableSchema schema;
  schema.name = "hits";
  schema.columns = {{"CounterID", TypeId::kUInt32}, {"EventDate", TypeId::kDate},
                    {"URL", TypeId::kString}};
  schema.partition_by = "toYYYYMM(EventDate)";
  schema.primary_key = {"CounterID", "EventDate"};
  schema.settings["index_granularity"] = "128";
  return schema;
}

// A fragment reading (EventDate, CounterID) of hits with `filter` over those two columns.
plan::Fragment Fragment(std::optional<plan::Expr> filter) {
  plan::Fragment fragment;
  fragment.scan.table = "hits";
  fragment.scan.columns.push_back("EventDate");
  fragment.scan.columns.push_back("CounterID");
  if (filter) fragment.filter = *filter;
  return fragment;
}

plan::Expr Call(const char* name, std::vector<plan::Expr> args) {
  absl::StatusOr<plan::Expr> call = core::TypedCall(name, std::move(args));
  EXPECT_TRUE(call.ok()) << call.status();
  return *call;
}

plan::Expr Date() { return Col(0, TypeId::kDate); }
plan::Expr Counter() { return Col(1, TypeId::kUInt32); }

TEST(FilterRangesTest, ComparisonsInAndOr) {
  storage::TableSchema schema = Schema();
  // CounterID = 62 AND EventDate >= '2013-07-01' AND EventDate <= '2013-07-31'
  plan::Expr q37 = Call("and", {Call("equals", {Counter(), Lit(uint64_t{62})}),
                              Call("greaterOrEquals", {Date(), Lit(std::string("2013-07-01"))}),
                              Call("lessOrEquals", {Date(), Lit(std::string("2013-07-31"))})});
  storage::ColumnRanges ranges = RangesFromFilter(Fragment(q37), schema);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].DebugString(), "{62}");
  EXPECT_EQ(ranges[1].DebugString(), "[" + std::to_string(core::DaysFromCivil(2013, 7, 1)) + ", " +
                                         std::to_string(core::DaysFromCivil(2013, 7, 31)) + "]");

  // A mirrored comparison, IN, and OR over one column.
  plan::Expr mirrored = Call("less", {Lit(uint64_t{10}), Counter()});
  EXPECT_EQ(RangesFromFilter(Fragment(mirrored), schema)[0].DebugString(), "(10, +inf)");
  plan::Expr tuple = core::Call("tuple", TypeId::kUInt8, {Lit(uint64_t{7}), Lit(uint64_t{3})});
  plan::Expr in = Call("in", {Counter(), tuple});
  EXPECT_EQ(RangesFromFilter(Fragment(in), schema)[0].DebugString(), "{3, 7}");
  plan::Expr either = Call("or", {Call("equals", {Counter(), Lit(uint64_t{1})}),
                                Call("greater", {Counter(), Lit(uint64_t{100})})});
  EXPECT_EQ(RangesFromFilter(Fragment(either), schema)[0].DebugString(), "[1, +inf)");

  // What constrains nothing: no filter, OR with an unconstrained branch, other functions.
  EXPECT_TRUE(RangesFromFilter(Fragment(std::nullopt), schema).empty());
  plan::Expr loose = Call("or", {Call("equals", {Counter(), Lit(uint64_t{1})}),
                               Call("equals", {Date(), Lit(std::string("2013-07-01"))})});
  EXPECT_TRUE(RangesFromFilter(Fragment(loose), schema).empty());
  plan::Expr other = Call("notEquals", {Counter(), Lit(uint64_t{1})});
  EXPECT_TRUE(RangesFromFilter(Fragment(other), schema).empty());
  // Text that is no date constrains nothing rather than failing.
  plan::Expr bad = core::Call("equals", TypeId::kUInt8, {Date(), Lit(std::string("soon"))});
  EXPECT_TRUE(RangesFromFilter(Fragment(bad), schema).empty());
}

class MorselSourceTest : public StoreTestBase {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(CreateTable(Schema()));
    // 3 inserts x 3 months x 50 counters x 10 days.
    for (int insert = 0; insert < 3; ++insert) {
      auto counter = std::make_shared<core::Column>(TypeId::kUInt32);
      auto date = std::make_shared<core::Column>(TypeId::kDate);
      auto url = std::make_shared<core::Column>(TypeId::kString);
      for (int month = 6; month <= 8; ++month) {
        for (uint32_t c = 0; c < 50; ++c) {
          for (int day = 1; day <= 10; ++day) {
            counter->Append<uint32_t>(c + 30);
            date->Append<uint16_t>(static_cast<uint16_t>(core::DaysFromCivil(2013, month, day)));
            url->AppendString("http://x/" + std::to_string(insert));
          }
        }
      }
      ASSERT_NO_FATAL_FAILURE(Insert("hits", {counter, date, url}));
    }
  }
};

// Issue 19: the morsels of numbers(N) were listed at Open, which wrapped past 2^64 for the
// largest N (an endless loop) and cost memory in proportion to N.
TEST(NumbersMorselsTest, AreComputedForAnyCountUpTo2To64) {
  constexpr uint64_t kMax = ~uint64_t{0};
  plan::Fragment fragment;
  fragment.scan.function.emplace().name = "numbers";
  for (uint64_t arg : {uint64_t{0}, kMax, uint64_t{1}}) {
    fragment.scan.function->args.push_back(arg);  // offset, count, step
  }
  fragment.worker_count = 3;
  uint64_t next = 0, rows = 0;
  for (uint32_t worker = 0; worker < 3; ++worker) {
    fragment.worker_index = worker;
    auto source = MorselSource::Open(fragment, nullptr);
    ASSERT_TRUE(source.ok()) << source.status();
    const uint64_t count = (*source)->morsel_count();
    ASSERT_GT(count, 0u);
    // The slices tile [0, 2^64 - 1) and the morsels tile each slice in steps of 65,536.
    const Morsel first = (*source)->morsel(0), last = (*source)->morsel(count - 1);
    EXPECT_EQ(first.begin, next);
    EXPECT_EQ(first.end, first.begin + 65536);
    EXPECT_EQ((*source)->morsel(1).begin, first.end);
    EXPECT_GT(last.end, last.begin);
    EXPECT_LE(last.end - last.begin, 65536u);
    EXPECT_EQ(last.begin, first.begin + (count - 1) * 65536);
    rows += (*source)->total_rows();
    next = last.end;
  }
  EXPECT_EQ(next, kMax);
  EXPECT_EQ(rows, kMax);
  // A small count: one short morsel; an empty slice: none.
  fragment.worker_count = 1;
  fragment.worker_index = 0;
  fragment.scan.function->args[1] = 10;
  auto small = MorselSource::Open(fragment, nullptr);
  ASSERT_TRUE(small.ok());
  ASSERT_EQ((*small)->morsel_count(), 1u);
  EXPECT_EQ((*small)->morsel(0).end, 10u);
  fragment.scan.function->args[1] = 0;
  auto empty = MorselSource::Open(fragment, nullptr);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)->morsel_count(), 0u);
}

TEST_F(MorselSourceTest, ReadsOnlyTheGranulesThatCanMatch) {
  plan::Expr q37 = Call("and", {Call("equals", {Counter(), Lit(uint64_t{62})}),
                              Call("greaterOrEquals", {Date(), Lit(std::string("2013-07-01"))}),
                              Call("lessOrEquals", {Date(), Lit(std::string("2013-07-31"))})});
  std::unique_ptr<MorselSource> source = Open(Fragment(q37));
  ASSERT_NE(source, nullptr);
  const storage::PruneStats& stats = source->prune_stats();
  EXPECT_EQ(stats.parts_total, 9u);  // 3 inserts x 3 months
  EXPECT_EQ(stats.parts_selected, 3u);  // July of each insert
  EXPECT_EQ(stats.granules_total, 9u * 4);  // 500 rows per part, 128 per granule
  // Counter 62's 10 rows lie in one granule (or two, at a boundary) of each July part.
  EXPECT_GE(stats.granules_selected, 3u);
  EXPECT_LE(stats.granules_selected, 6u);
  uint64_t matching = 0;
  for (const Morsel& morsel : source->table_morsels()) {
    absl::StatusOr<core::Block> block = source->Read(morsel);
    ASSERT_TRUE(block.ok()) << block.status();
    for (size_t r = 0; r < block->rows(); ++r) {
      matching += block->columns[1]->Get<uint32_t>(r) == 62;
    }
  }
  EXPECT_EQ(matching, 30u);  // every matching row is in the chosen granules

  plan::Fragment unpruned = Fragment(q37);
  ASSERT_TRUE(unpruned.settings.Set("use_pruning", "0").ok());
  EXPECT_EQ(Open(unpruned)->prune_stats().granules_selected, 9u * 4);
  plan::Fragment private_snapshot = Fragment(q37);
  ASSERT_TRUE(private_snapshot.settings.Set("use_parts_snapshot", "0").ok());
  EXPECT_EQ(Open(private_snapshot)->prune_stats().granules_selected, stats.granules_selected);
}

TEST_F(MorselSourceTest, APartFailingItsChecksumIsDetached) {
  std::shared_ptr<storage::Table> table = store_->GetTable("hits");
  std::shared_ptr<const storage::Part> part = table->Snapshot()->parts[0];
  std::string name = part->name();
  {
    // Flips a byte in the middle of the compressed EventDate data (column 1's section of a
    // compact part's data.bin).
    std::fstream file(part->column_file(1), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(part->column_file_offset(1) + 20));
    file.put('\x7f');
  }
  part.reset();
  std::unique_ptr<MorselSource> source = Open(Fragment(std::nullopt));
  absl::Status failure;
  for (const Morsel& morsel : source->table_morsels()) {
    absl::StatusOr<core::Block> block = source->Read(morsel);
    if (!block.ok()) {
      failure = block.status();
      break;
    }
  }
  EXPECT_EQ(core::CodeOf(failure), core::ErrorCode::kChecksumDoesntMatch) << failure;
  EXPECT_NE(failure.message().find("table hits, part " + name + ", column EventDate"),
            std::string::npos)
      << failure.message();
  EXPECT_NE(failure.message().find("moved to detached/broken_" + name), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/tables/hits/detached/broken_" + name));
  EXPECT_EQ(table->Snapshot()->parts.size(), 8u);
  // The next query answers from the other parts.
  std::unique_ptr<MorselSource> next = Open(Fragment(std::nullopt));
  for (const Morsel& morsel : next->table_morsels()) EXPECT_TRUE(next->Read(morsel).ok());
}

class MorselSizeTest : public StoreTestBase {};

// A table's morsel holds whole granules up to 8,192 rows, at most 8 of them and at least one:
// one granule at the default granularity, two of 4,096 rows, eight small ones.
TEST_F(MorselSizeTest, MorselsHoldGranulesUpTo8192RowsAndAtMostEight) {
  struct Case {
    size_t granularity;
    std::vector<std::pair<size_t, size_t>> morsels;
  };
  for (const Case& c : {Case{8192, {{0, 1}, {1, 2}, {2, 3}}}, Case{4096, {{0, 2}, {2, 4}, {4, 5}}},
                        Case{1000, {{0, 8}, {8, 16}, {16, 20}}}}) {
    const std::string name = "t" + std::to_string(c.granularity);
    ASSERT_NO_FATAL_FAILURE(CreateTable(name, {{"v", TypeId::kUInt64}}, c.granularity));
    auto values = std::make_shared<core::Column>(TypeId::kUInt64);
    for (uint64_t i = 0; i < 20000; ++i) values->Append<uint64_t>(i);
    ASSERT_NO_FATAL_FAILURE(Insert(name, {values}));
    plan::Fragment fragment;
    fragment.scan.table = name;
    fragment.scan.columns.push_back("v");
    std::unique_ptr<MorselSource> source = Open(fragment);
    ASSERT_NE(source, nullptr);
    std::vector<std::pair<size_t, size_t>> morsels;
    uint64_t rows = 0;
    for (const Morsel& morsel : source->table_morsels()) {
      morsels.emplace_back(morsel.begin, morsel.end);
      absl::StatusOr<core::Block> block = source->Read(morsel);
      ASSERT_TRUE(block.ok()) << block.status();
      EXPECT_LE(block->rows(), 8192u);
      rows += block->rows();
    }
    EXPECT_EQ(morsels, c.morsels) << c.granularity;
    EXPECT_EQ(rows, 20000u);
  }
}

}  // namespace
}  // namespace granite::worker
