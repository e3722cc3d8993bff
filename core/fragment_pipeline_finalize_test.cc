// FragmentPipeline::FinishFinalized with a per-bucket cut: cutting each finalized bucket to its
// HAVING survivors and top L, then cutting the concatenated survivors again, gives exactly the rows
// (and their order, ties included) of finalizing everything and cutting once.
#include "core/fragment_pipeline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <vector>

#include "core/fragment_pipeline_test_support.h"

namespace granite::core {
namespace {


// SELECT c0, count() FROM input GROUP BY c0, parallel (bucketed) merge from 100 groups on.
plan::Fragment CountByKey() {
  return test::GroupByFragment({{"group_by_two_level_threshold", "100"}}, 1);
}

using test::Keys;

// HAVING count() >= min_count, then ORDER BY count() DESC LIMIT limit (ties keep input order).
Block Cut(Block groups, uint64_t min_count, size_t limit) {
  std::vector<uint8_t> keep(groups.rows());
  for (size_t i = 0; i < groups.rows(); ++i) {
    keep[i] = groups.columns[1]->Data<uint64_t>()[i] >= min_count;
  }
  Block filtered;
  for (const auto& column : groups.columns) {
    filtered.columns.push_back(std::make_shared<Column>(column->Filter(keep.data())));
  }
  filtered.rows_without_columns = filtered.columns[0]->size();
  return TakeRows(filtered, SortPermutation(filtered, {{1, true}}, limit));
}

// Finalizes the groups of 3 thread states; thread t sees keys 0..2999 once, 0..200(t+1)-1 once
// more and 0..37(t+1)-1 once more, so counts are 1..7 with many ties across buckets.
absl::StatusOr<Block> Finalize(ThreadPool* pool, const FragmentPipeline::BucketCut& cut,
                               size_t* buckets_cut) {
  auto pipeline = FragmentPipeline::Compile(CountByKey());
  if (!pipeline.ok()) return pipeline.status();
  std::vector<std::unique_ptr<FragmentPipeline::LocalState>> states;
  for (uint64_t t = 0; t < 3; ++t) {
    auto state = (*pipeline)->NewLocalState();
    if (!state.ok()) return state.status();
    for (const Block& keys : {Keys(0, 3000), Keys(0, 200 * (t + 1)), Keys(0, 37 * (t + 1))}) {
      absl::Status consumed = (*pipeline)->Consume(**state, keys);
      if (!consumed.ok()) return consumed;
    }
    states.push_back(std::move(*state));
  }
  std::atomic<size_t> calls{0};
  FragmentPipeline::BucketCut counted;
  if (cut) {
    counted = [&](Block groups) {
      ++calls;
      return cut(std::move(groups));
    };
  }
  absl::StatusOr<Block> result = (*pipeline)->FinishFinalized(std::move(states), pool, counted);
  *buckets_cut = calls;
  return result;
}

void ExpectSameRows(const Block& a, const Block& b) {
  ASSERT_EQ(a.rows(), b.rows());
  for (size_t i = 0; i < a.rows(); ++i) {
    EXPECT_EQ(a.columns[0]->Data<uint64_t>()[i], b.columns[0]->Data<uint64_t>()[i]) << "row " << i;
    EXPECT_EQ(a.columns[1]->Data<uint64_t>()[i], b.columns[1]->Data<uint64_t>()[i]) << "row " << i;
  }
}

TEST(FragmentPipelineFinalizeTest, PerBucketCutEqualsCuttingEverything) {
  ThreadPool pool(2);
  size_t calls = 0;
  absl::StatusOr<Block> all = Finalize(&pool, {}, &calls);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->rows(), 3000u);
  EXPECT_EQ(calls, 0u);
  // LIMIT 5 OFFSET 40 ships limit + offset = 45 rows: past the 37 groups of count 7, into ties.
  for (size_t limit : {size_t{1}, size_t{45}, size_t{250}, size_t{5000}}) {
    for (uint64_t min_count : {uint64_t{0}, uint64_t{2}, uint64_t{6}}) {
      auto cut = [&](Block groups) -> absl::StatusOr<Block> {
        return Cut(std::move(groups), min_count, limit);
      };
      absl::StatusOr<Block> per_bucket = Finalize(&pool, cut, &calls);
      ASSERT_TRUE(per_bucket.ok()) << per_bucket.status();
      EXPECT_GT(calls, 1u) << "one bucket only: the per-bucket path is not exercised";
      SCOPED_TRACE(testing::Message() << "limit " << limit << " min_count " << min_count);
      ExpectSameRows(Cut(*per_bucket, min_count, limit), Cut(*all, min_count, limit));
    }
  }
}

TEST(FragmentPipelineFinalizeTest, CutErrorsAreReturned) {
  ThreadPool pool(2);
  size_t calls = 0;
  auto failing = [](Block) -> absl::StatusOr<Block> { return absl::InternalError("cut failed"); };
  absl::StatusOr<Block> result = Finalize(&pool, failing, &calls);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "cut failed");
}

}  // namespace
}  // namespace granite::core
