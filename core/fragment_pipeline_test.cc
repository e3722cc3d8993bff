// Tests of FragmentPipeline's aggregation settings: group_by_single_block_threshold picks between
// one single block and buckets, and group_by_two_level_threshold converts the thread tables to
// two-level — counted in HashTableTwoLevelConversions — or, left at its default, does not.
#include "core/fragment_pipeline.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/fragment_pipeline_test_support.h"
#include "core/metrics/events.h"

namespace granite::core {
namespace {


using test::GroupByFragment;
using test::Keys;

// Runs the fragment over `keys` keys on `threads` thread states, each seeing all keys.
absl::StatusOr<LocalMerger::PartialResult> RunFragment(const plan::Fragment& fragment,
                                                       uint64_t keys, size_t threads,
                                                       ThreadPool* pool) {
  auto pipeline = FragmentPipeline::Compile(fragment);
  if (!pipeline.ok()) return pipeline.status();
  std::vector<std::unique_ptr<FragmentPipeline::LocalState>> states;
  for (size_t t = 0; t < threads; ++t) {
    auto state = (*pipeline)->NewLocalState();
    if (!state.ok()) return state.status();
    absl::Status consumed = (*pipeline)->Consume(**state, Keys(0, keys));
    if (!consumed.ok()) return consumed;
    states.push_back(std::move(*state));
  }
  return (*pipeline)->FinishPartial(std::move(states), pool);
}

size_t TotalRows(const LocalMerger::PartialResult& partial) {
  size_t rows = 0;
  for (const Block& block : partial.blocks) rows += block.rows();
  return rows;
}

TEST(FragmentPipelineTest, SingleBlockThresholdSetting) {
  ThreadPool pool(2);
  // Default (4096): 16 groups travel as one block.
  auto small = RunFragment(GroupByFragment({}), 16, 2, &pool);
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_TRUE(small->single);
  EXPECT_EQ(TotalRows(*small), 16u);
  // Forced low: buckets, only the non-empty ones.
  auto forced =
      RunFragment(GroupByFragment({{"group_by_single_block_threshold", "0"}}), 16, 2, &pool);
  ASSERT_TRUE(forced.ok()) << forced.status();
  EXPECT_FALSE(forced->single);
  EXPECT_LE(forced->blocks.size(), 16u);
  EXPECT_EQ(TotalRows(*forced), 16u);
  // Just at the threshold: buckets; one below: single.
  plan::Fragment hundred = GroupByFragment({{"group_by_single_block_threshold", "100"}});
  auto at = RunFragment(hundred, 100, 2, &pool);
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_FALSE(at->single);
  auto below = RunFragment(hundred, 99, 2, &pool);
  ASSERT_TRUE(below.ok()) << below.status();
  EXPECT_TRUE(below->single);
  // Forced high: 10000 groups in one block.
  plan::Fragment million = GroupByFragment({{"group_by_single_block_threshold", "1000000"}});
  auto high = RunFragment(million, 10000, 2, &pool);
  ASSERT_TRUE(high.ok()) << high.status();
  EXPECT_TRUE(high->single);
  EXPECT_EQ(TotalRows(*high), 10000u);
}

TEST(FragmentPipelineTest, RejectsUnparsableThreshold) {
  auto pipeline = test::GroupByFragmentFromWire({{"group_by_single_block_threshold", "many"}});
  ASSERT_FALSE(pipeline.ok());
  EXPECT_NE(std::string(pipeline.status().message()).find("'many'"), std::string::npos)
      << pipeline.status();
}

TEST(FragmentPipelineTest, CountsTwoLevelConversions) {
  ThreadPool pool(2);
  uint64_t before = EventTotal(Event::kHashTableTwoLevelConversions);
  // Forced low: each of the 3 thread tables converts once, and the result goes out as buckets.
  // (Without size statistics: an earlier run of this shape would presize the tables two-level.)
  plan::Fragment forced_low = GroupByFragment(
      {{"group_by_two_level_threshold", "1"}, {"collect_hash_table_stats_during_aggregation", "0"}});
  auto converted = RunFragment(forced_low, 1000, 3, &pool);
  ASSERT_TRUE(converted.ok()) << converted.status();
  EXPECT_FALSE(converted->single);
  EXPECT_EQ(TotalRows(*converted), 1000u);
  EXPECT_EQ(EventTotal(Event::kHashTableTwoLevelConversions) - before, 3u);

  // Default thresholds: 20000 groups stay single-level (parallel merge, no conversion).
  before = EventTotal(Event::kHashTableTwoLevelConversions);
  auto plain = RunFragment(GroupByFragment({}), 20000, 3, &pool);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(TotalRows(*plain), 20000u);
  EXPECT_EQ(EventTotal(Event::kHashTableTwoLevelConversions) - before, 0u);
}

// collect_hash_table_stats_during_aggregation: the second run of a shape creates its thread
// tables two-level at the first run's size (no conversion), with the same result; off, every
// run converts. Each case uses its own source table, so no other test's runs share its shape.
TEST(FragmentPipelineTest, PresizesThreadTablesFromTheLastRunOfTheShape) {
  ThreadPool pool(2);
  for (const char* collect : {"1", "0"}) {
    plan::Fragment fragment = GroupByFragment({{"group_by_two_level_threshold", "1000"},
                                             {"collect_hash_table_stats_during_aggregation",
                                              collect}});
    fragment.scan.table = std::string("presize_") + collect;
    const bool on = std::string(collect) == "1";
    for (int run = 0; run < 2; ++run) {
      uint64_t conversions = EventTotal(Event::kHashTableTwoLevelConversions);
      uint64_t presized = EventTotal(Event::kHashTablePresized);
      auto result = RunFragment(fragment, 5000, 2, &pool);
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_FALSE(result->single);
      EXPECT_EQ(TotalRows(*result), 5000u) << "collect " << collect << " run " << run;
      const bool presize = on && run == 1;
      EXPECT_EQ(EventTotal(Event::kHashTableTwoLevelConversions) - conversions, presize ? 0u : 2u)
          << "collect " << collect << " run " << run;
      EXPECT_EQ(EventTotal(Event::kHashTablePresized) - presized, presize ? 2u : 0u)
          << "collect " << collect << " run " << run;
    }
  }
  auto bad = test::GroupByFragmentFromWire({{"collect_hash_table_stats_during_aggregation", "yes"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("'yes'"), std::string::npos);
}

}  // namespace
}  // namespace granite::core
