// Tests of LocalMerger paths the randomized Aggregator tests reach only with small data: a no-key
// uniqExact state big enough to split into parts while it is filled, and the bucket placement of
// the parallel direct-array and hashed merges; what MergeToPartial sends (one single block for a
// small result, else only non-empty buckets).
#include "core/aggregation/local_merger.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "core/block_codec.h"
#include "core/hash.h"
#include "core/thread_pool.h"

namespace granite::core {
namespace {

ColumnPtr Sequence(TypeId type, uint64_t from, uint64_t count, uint64_t modulo) {
  auto column = std::make_shared<Column>(type);
  for (uint64_t i = from; i < from + count; ++i) {
    if (type == TypeId::kUInt64) column->Append<uint64_t>(i % modulo);
    if (type == TypeId::kUInt32) column->Append<uint32_t>(static_cast<uint32_t>(i % modulo));
    if (type == TypeId::kUInt16) column->Append<uint16_t>(static_cast<uint16_t>(i % modulo));
  }
  return column;
}

// Adds values [from, from + count) % modulo in batches of 65536 as argument of every aggregate.
void AddValues(Aggregator* aggregator, size_t aggregates, uint64_t from, uint64_t count,
               uint64_t modulo, TypeId type) {
  for (uint64_t at = from; at < from + count; at += 65536) {
    uint64_t n = std::min<uint64_t>(65536, from + count - at);
    ColumnPtr values = Sequence(type, at, n, modulo);
    std::vector<std::vector<ColumnPtr>> args(aggregates, {values});
    ASSERT_TRUE(aggregator->Add({}, args, n).ok());
  }
}

TEST(LocalMergerTest, CountDistinctSplitsWhileFillingAndAddsUpParts) {
  ThreadPool pool(2);
  for (bool final_only : {false, true}) {
    for (TypeId type : {TypeId::kUInt64, TypeId::kUInt32}) {
      std::vector<AggregateSpec> specs = {{"uniqExact", {type}}, {"sum", {type}}, {"uniq", {type}}};
      std::vector<std::unique_ptr<Aggregator>> threads;
      for (int t = 0; t < 2; ++t) {
        auto aggregator = Aggregator::Create({}, specs);
        ASSERT_TRUE(aggregator.ok());
        // Thread 0 sees 0..149999, thread 1 sees 100000..249999: 250000 distinct in total, and
        // each thread's set passes the split threshold (65536) while it is filled.
        AddValues(aggregator->get(), specs.size(), t * 100000, 150000, 1u << 30, type);
        threads.push_back(std::move(*aggregator));
      }
      LocalMerger::Options options;
      options.final_only = final_only;
      std::vector<Block> buckets = LocalMerger::Merge(std::move(threads), &pool, options);
      ASSERT_EQ(buckets.size(), kBucketCount);
      // Coordinator side: parts merged one by one, then added up.
      std::vector<std::unique_ptr<Aggregator>> parts;
      size_t non_empty = 0;
      for (const Block& bucket : buckets) {
        auto part = Aggregator::Create({}, specs);
        auto decoded = DecodeBlock(EncodeBlock(bucket));
        ASSERT_TRUE(decoded.ok());
        ASSERT_TRUE((*part)->Merge(*decoded).ok());
        non_empty += bucket.rows();
        parts.push_back(std::move(*part));
      }
      EXPECT_EQ(non_empty, kBucketCount);  // every part holds some of the 250000 values
      for (size_t p = 1; p < parts.size(); ++p) parts[0]->MergeDisjointFrom(*parts[p]);
      auto result = parts[0]->Finalize();
      ASSERT_TRUE(result.ok());
      EXPECT_EQ(result->columns[0]->Get<uint64_t>(0), 250000u) << final_only;
      // sum travels whole in part 0: 0..149999 plus 100000..249999.
      uint64_t sum = 149999ull * 150000 / 2 + (100000ull + 249999) * 150000 / 2;
      EXPECT_EQ(result->columns[1]->Get<uint64_t>(0), sum);
      double uniq = static_cast<double>(result->columns[2]->Get<uint64_t>(0));
      EXPECT_NEAR(uniq, 250000, 2500);
    }
  }
}

// The same for String values: sets keep each value's hash through the split, the part merges
// and the coordinator's re-read, so a value hashed differently on two paths would count twice.
TEST(LocalMergerTest, CountDistinctStringsSplitAndMergeByPart) {
  ThreadPool pool(2);
  std::vector<AggregateSpec> specs = {{"uniqExact", {TypeId::kString}}};
  // final_only: the worker's own count travels (a value its merge held twice would show).
  for (bool final_only : {false, true}) {
    std::vector<std::unique_ptr<Aggregator>> threads;
    for (int t = 0; t < 2; ++t) {
      auto aggregator = Aggregator::Create({}, specs);
      ASSERT_TRUE(aggregator.ok());
      // Thread 0: v0..v99999, thread 1: v60000..v159999 (160000 distinct; both split at 65536).
      auto values = std::make_shared<Column>(TypeId::kString);
      for (int i = 0; i < 100000; ++i) values->AppendString("v" + std::to_string(t * 60000 + i));
      ASSERT_TRUE((*aggregator)->Add({}, {{values}}, values->size()).ok());
      threads.push_back(std::move(*aggregator));
    }
    LocalMerger::Options options;
    options.final_only = final_only;
    std::vector<Block> buckets = LocalMerger::Merge(std::move(threads), &pool, options);
    ASSERT_EQ(buckets.size(), kBucketCount);
    std::vector<std::unique_ptr<Aggregator>> parts;
    for (const Block& bucket : buckets) {
      auto part = Aggregator::Create({}, specs);
      auto decoded = DecodeBlock(EncodeBlock(bucket));
      ASSERT_TRUE(decoded.ok());
      ASSERT_TRUE((*part)->Merge(*decoded).ok());
      // The same part twice: still counted once.
      if (!final_only) {
        ASSERT_TRUE((*part)->Merge(*decoded).ok());
      }
      parts.push_back(std::move(*part));
    }
    for (size_t p = 1; p < parts.size(); ++p) parts[0]->MergeDisjointFrom(*parts[p]);
    auto result = parts[0]->Finalize();
    ASSERT_TRUE(result.ok());
    EXPECT_EQ(result->columns[0]->Get<uint64_t>(0), 160000u) << final_only;
  }
}

TEST(LocalMergerTest, ParallelPathsPlaceEveryKeyInItsBucketOnce) {
  ThreadPool pool(2);
  for (TypeId type : {TypeId::kUInt16, TypeId::kUInt64}) {
    std::vector<AggregateSpec> specs = {{"count", {}}};
    std::vector<std::unique_ptr<Aggregator>> threads;
    for (int t = 0; t < 3; ++t) {
      AggregatorOptions options;
      options.two_level_threshold = 1;
      auto aggregator = Aggregator::Create({type}, specs, options);
      ASSERT_TRUE(aggregator.ok());
      ColumnPtr keys = Sequence(type, t * 7, 30000, 20000);
      ASSERT_TRUE((*aggregator)->Add({keys}, {{}}, 30000).ok());
      threads.push_back(std::move(*aggregator));
    }
    LocalMerger::Options options;
    options.parallel_threshold = 0;
    std::vector<Block> buckets = LocalMerger::Merge(std::move(threads), &pool, options);
    std::vector<uint64_t> count_of(20000, 0);
    for (uint32_t b = 0; b < kBucketCount; ++b) {
      for (size_t row = 0; row < buckets[b].rows(); ++row) {
        uint64_t key = type == TypeId::kUInt16 ? buckets[b].columns[0]->Get<uint16_t>(row)
                                               : buckets[b].columns[0]->Get<uint64_t>(row);
        EXPECT_EQ(BucketOf(HashIntKey(key)), b);
        ASSERT_LT(key, 20000u);
        EXPECT_EQ(count_of[key], 0u) << "key " << key << " twice";
        count_of[key] = buckets[b].columns[1]->Get<uint64_t>(row);
      }
    }
    // 3 threads x 30000 rows over 20000 keys: each thread hits a key once or twice.
    EXPECT_EQ(std::accumulate(count_of.begin(), count_of.end(), uint64_t{0}), 90000u);
    for (uint64_t count : count_of) EXPECT_TRUE(count >= 3 && count <= 6) << count;
  }
}

// Returns `threads` aggregators over UInt64 keys, thread t seeing keys t .. t + keys - 1.
std::vector<std::unique_ptr<Aggregator>> KeyedThreads(size_t threads, uint64_t keys,
                                                      size_t two_level_threshold = 4'000'000) {
  std::vector<std::unique_ptr<Aggregator>> result;
  for (size_t t = 0; t < threads; ++t) {
    AggregatorOptions options;
    options.two_level_threshold = two_level_threshold;
    auto aggregator = Aggregator::Create({TypeId::kUInt64}, {{"count", {}}}, options);
    EXPECT_TRUE(aggregator.ok());
    // Large values: the hash table, not the direct array in front of it.
    auto column = std::make_shared<Column>(TypeId::kUInt64);
    for (uint64_t k = t; k < t + keys; ++k) column->Append<uint64_t>(k + (uint64_t{1} << 40));
    EXPECT_TRUE((*aggregator)->Add({column}, {{}}, keys).ok());
    result.push_back(std::move(*aggregator));
  }
  return result;
}

TEST(LocalMergerTest, SmallResultTravelsAsOneSingleBlock) {
  ThreadPool pool(2);
  LocalMerger::Options options;
  options.single_threshold = 100;
  // 3 threads, keys 0 .. 51: 52 groups, below the threshold.
  LocalMerger::PartialResult small =
      LocalMerger::MergeToPartial(KeyedThreads(3, 50), &pool, options);
  ASSERT_TRUE(small.single);
  ASSERT_EQ(small.blocks.size(), 1u);
  EXPECT_TRUE(small.bucket_ids.empty());
  ASSERT_EQ(small.blocks[0].rows(), 52u);
  uint64_t total = 0;
  for (size_t row = 0; row < 52; ++row) total += small.blocks[0].columns[1]->Get<uint64_t>(row);
  EXPECT_EQ(total, 150u);

  // 100 groups: at the threshold, so buckets — only the non-empty ones, in order, each the same
  // as that bucket of Merge's full list.
  LocalMerger::PartialResult at =
      LocalMerger::MergeToPartial(KeyedThreads(1, 100), &pool, options);
  std::vector<Block> all = LocalMerger::Merge(KeyedThreads(1, 100), &pool, options);
  ASSERT_FALSE(at.single);
  ASSERT_EQ(at.blocks.size(), at.bucket_ids.size());
  size_t non_empty = 0;
  for (const Block& bucket : all) non_empty += bucket.rows() > 0;
  EXPECT_EQ(at.blocks.size(), non_empty);
  size_t rows = 0;
  for (size_t i = 0; i < at.blocks.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(at.bucket_ids[i - 1], at.bucket_ids[i]);
    }
    const Block& expected = all[at.bucket_ids[i]];
    ASSERT_GT(at.blocks[i].rows(), 0u);
    ASSERT_EQ(at.blocks[i].rows(), expected.rows());
    for (size_t row = 0; row < expected.rows(); ++row) {
      EXPECT_EQ(at.blocks[i].columns[0]->Get<uint64_t>(row),
                expected.columns[0]->Get<uint64_t>(row));
    }
    rows += at.blocks[i].rows();
  }
  EXPECT_EQ(rows, 100u);
}

TEST(LocalMergerTest, TwoLevelTablesAndSplitStatesNeverTravelSingle) {
  ThreadPool pool(2);
  LocalMerger::Options options;
  options.single_threshold = 1'000'000;
  LocalMerger::PartialResult two_level = LocalMerger::MergeToPartial(
      KeyedThreads(2, 10, /*two_level_threshold=*/1), &pool, options);
  EXPECT_FALSE(two_level.single);
  size_t rows = 0;
  for (const Block& block : two_level.blocks) rows += block.rows();
  EXPECT_EQ(rows, 11u);

  // COUNT(DISTINCT x) without keys: parts, even for three values.
  std::vector<std::unique_ptr<Aggregator>> threads;
  auto aggregator = Aggregator::Create({}, {{"uniqExact", {TypeId::kUInt64}}});
  ASSERT_TRUE(aggregator.ok());
  AddValues(aggregator->get(), 1, 0, 3, 1000, TypeId::kUInt64);
  threads.push_back(std::move(*aggregator));
  LocalMerger::PartialResult parts =
      LocalMerger::MergeToPartial(std::move(threads), &pool, options);
  EXPECT_FALSE(parts.single);
  EXPECT_FALSE(parts.blocks.empty());
}

// Returns `threads` aggregators of count() by UInt64 keys, thread t seeing keys
// t * stride .. t * stride + keys - 1 (offset past the direct array).
std::vector<std::unique_ptr<Aggregator>> ShiftedThreads(size_t threads, uint64_t keys,
                                                        uint64_t stride) {
  std::vector<std::unique_ptr<Aggregator>> result;
  for (size_t t = 0; t < threads; ++t) {
    auto aggregator = Aggregator::Create({TypeId::kUInt64}, {{"count", {}}});
    EXPECT_TRUE(aggregator.ok());
    auto column = std::make_shared<Column>(TypeId::kUInt64);
    for (uint64_t k = t * stride; k < t * stride + keys; ++k) {
      column->Append<uint64_t>(k + (uint64_t{1} << 40));
    }
    EXPECT_TRUE((*aggregator)->Add({column}, {{}}, keys).ok());
    result.push_back(std::move(*aggregator));
  }
  return result;
}

struct SentRows {
  size_t rows = 0;       // rows of all buckets (a key sent unmerged counts once per thread)
  size_t groups = 0;     // distinct keys after merging every bucket again
  uint64_t counts = 0;   // sum of count() after that merge
};

// Merges each bucket like the coordinator does and checks every key sits in its own bucket.
SentRows MergeLikeCoordinator(const std::vector<Block>& buckets) {
  SentRows sent;
  for (uint32_t b = 0; b < buckets.size(); ++b) {
    sent.rows += buckets[b].rows();
    for (size_t row = 0; row < buckets[b].rows(); ++row) {
      EXPECT_EQ(BucketOf(HashIntKey(buckets[b].columns[0]->Get<uint64_t>(row))), b);
    }
    auto merged = Aggregator::Create({TypeId::kUInt64}, {{"count", {}}});
    EXPECT_TRUE(merged.ok());
    EXPECT_TRUE((*merged)->Merge(buckets[b]).ok());
    auto final_block = (*merged)->Finalize();
    EXPECT_TRUE(final_block.ok());
    sent.groups += final_block->rows();
    for (size_t row = 0; row < final_block->rows(); ++row) {
      sent.counts += final_block->columns[1]->Get<uint64_t>(row);
    }
  }
  return sent;
}

// group_by_worker_merge: 'auto' merges when the threads share most keys and sends the threads'
// groups unmerged when they share few; either way the coordinator's merge gives the same groups.
TEST(LocalMergerTest, WorkerMergeIsSkippedWhenItWouldNotReduceTheGroups) {
  ThreadPool pool(2);
  using WorkerMerge = LocalMerger::Options::WorkerMerge;
  auto run = [&](uint64_t stride, WorkerMerge mode, bool final_only) {
    LocalMerger::Options options;
    options.parallel_threshold = 0;
    options.worker_merge = mode;
    options.final_only = final_only;
    return MergeLikeCoordinator(
        LocalMerger::Merge(ShiftedThreads(3, 20000, stride), &pool, options));
  };
  // Threads shifted by 18000 keys: 56000 distinct of 60000 (ratio 0.93): auto merges only the
  // probe buckets (8 of 256) and sends the others unmerged.
  SentRows skipped = run(18000, WorkerMerge::kAuto, false);
  EXPECT_GT(skipped.rows, 59500u);
  EXPECT_LT(skipped.rows, 60000u);
  EXPECT_EQ(skipped.groups, 56000u);
  EXPECT_EQ(skipped.counts, 60000u);
  SentRows merged = run(18000, WorkerMerge::kAlways, false);
  EXPECT_EQ(merged.rows, 56000u);
  EXPECT_EQ(merged.groups, 56000u);
  EXPECT_EQ(merged.counts, 60000u);
  // Final-only states are never sent unmerged (the receiver would not merge them).
  EXPECT_EQ(run(18000, WorkerMerge::kNever, true).rows, 56000u);

  // Shifted by one key: 20002 distinct of 60000: auto merges, 'never' does not.
  SentRows shared = run(1, WorkerMerge::kAuto, false);
  EXPECT_EQ(shared.rows, 20002u);
  EXPECT_EQ(shared.counts, 60000u);
  SentRows never = run(1, WorkerMerge::kNever, false);
  EXPECT_EQ(never.rows, 60000u);
  EXPECT_EQ(never.groups, 20002u);
  EXPECT_EQ(never.counts, 60000u);
}

}  // namespace
}  // namespace granite::core
