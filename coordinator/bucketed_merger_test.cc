// Tests of BucketedMerger: the bucket window holds a fast worker back, cancellation releases it,
// and both keyed and no-key (parts) merges return the right rows.
#include "coordinator/bucketed_merger.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/aggregation/local_merger.h"
#include "core/hash.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

const std::vector<core::AggregateSpec> kSpecs = {{"count", {}}, {"uniqExact", {TypeId::kUInt64}}};

// Returns the 256 partial buckets of one worker that saw keys and values 0 .. rows - 1.
std::vector<core::Block> WorkerBuckets(bool keyed, uint64_t rows) {
  std::vector<TypeId> key_types;
  if (keyed) key_types.push_back(TypeId::kUInt64);
  auto aggregator = *core::Aggregator::Create(key_types, kSpecs);
  auto values = std::make_shared<core::Column>(TypeId::kUInt64);
  for (uint64_t i = 0; i < rows; ++i) values->Append<uint64_t>(i);
  std::vector<core::ColumnPtr> keys;
  if (keyed) keys.push_back(values);
  EXPECT_TRUE(aggregator->Add(keys, {{}, {values}}, rows).ok());
  std::vector<std::unique_ptr<core::Aggregator>> threads;
  threads.push_back(std::move(aggregator));
  return core::LocalMerger::Merge(std::move(threads), nullptr, core::LocalMerger::Options());
}

TEST(BucketedMergerTest, WindowHoldsFastWorkerUntilCancelled) {
  core::ThreadPool pool(2);
  std::atomic<bool> cancelled{false};
  BucketedMerger merger({TypeId::kUInt64}, kSpecs, 2, &pool, [&] { return cancelled.load(); },
                        /*window=*/4);
  std::vector<core::Block> fast = WorkerBuckets(true, 1000);
  std::atomic<size_t> sent{0};
  std::thread fast_worker([&] {
    for (uint32_t b = 0; b < core::kBucketCount; ++b) {
      merger.Add(0, b, fast[b]);
      sent = b + 1;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // The slow worker sent nothing: the fast one stops at the window.
  EXPECT_EQ(sent.load(), 4u);
  cancelled = true;
  fast_worker.join();  // released by the cancellation
  EXPECT_LE(merger.peak_pending_blocks(), 4u);
}

TEST(BucketedMergerTest, MergesKeyedBucketsOfAllWorkers) {
  core::ThreadPool pool(2);
  BucketedMerger merger({TypeId::kUInt64}, kSpecs, 3, &pool, [] { return false; }, 2);
  std::vector<std::vector<core::Block>> workers;
  for (int w = 0; w < 3; ++w) workers.push_back(WorkerBuckets(true, 1000 + 500 * w));
  std::vector<std::thread> readers;
  for (int w = 0; w < 3; ++w) {
    readers.emplace_back([&, w] {
      for (uint32_t b = 0; b < core::kBucketCount; ++b) merger.Add(w, b, workers[w][b]);
    });
  }
  for (auto& reader : readers) reader.join();
  auto result = merger.Finish();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->rows(), 2000u);  // keys 0 .. 1999
  uint64_t total = 0;
  for (size_t row = 0; row < result->rows(); ++row) {
    uint64_t key = result->columns[0]->Get<uint64_t>(row);
    uint64_t count = result->columns[1]->Get<uint64_t>(row);
    EXPECT_EQ(count, key < 1000 ? 3u : key < 1500 ? 2u : 1u) << key;
    EXPECT_EQ(result->columns[2]->Get<uint64_t>(row), 1u);
    total += count;
  }
  EXPECT_EQ(total, 4500u);
  EXPECT_GT(merger.merge_ns(), 0u);
}

TEST(BucketedMergerTest, AddsUpPartsOfNoKeyStates) {
  core::ThreadPool pool(2);
  BucketedMerger merger({}, kSpecs, 2, &pool, [] { return false; });
  std::vector<core::Block> first = WorkerBuckets(false, 3000);
  std::vector<core::Block> second = WorkerBuckets(false, 5000);
  for (uint32_t b = 0; b < core::kBucketCount; ++b) {
    merger.Add(0, b, first[b]);
    merger.Add(1, b, second[b]);
  }
  auto result = merger.Finish();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->rows(), 1u);
  EXPECT_EQ(result->columns[0]->Get<uint64_t>(0), 8000u);  // count()
  EXPECT_EQ(result->columns[1]->Get<uint64_t>(0), 5000u);  // uniqExact: 0 .. 4999
}

}  // namespace
}  // namespace granite::coordinator
