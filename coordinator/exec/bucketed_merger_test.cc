// Tests of BucketedMerger: the bucket window holds a fast worker back, cancellation releases it,
// both keyed and no-key (parts) merges return the right rows, and single blocks (small results)
// merge serially alone or split into buckets next to bucketed workers that skip empty buckets.
#include "coordinator/exec/bucketed_merger.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "core/aggregation/local_merger.h"
#include "core/block_sort.h"
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

// One thread plays three workers with TryAdd (as stream_set.h reads every stream): a bucket past
// the window is declined, its block left as it was, and taken once the slow workers caught up;
// the merge is the same as with Add.
TEST(BucketedMergerTest, TryAddDeclinesPastTheWindowAndTakesTheBlockLater) {
  core::ThreadPool pool(2);
  BucketedMerger merger({TypeId::kUInt64}, kSpecs, 3, &pool, [] { return false; }, 2);
  std::vector<std::vector<core::Block>> workers;
  for (int w = 0; w < 3; ++w) workers.push_back(WorkerBuckets(true, 1000 + 500 * w));
  // Worker 0 runs ahead: buckets 0 and 1 fit the window, bucket 2 does not.
  ASSERT_TRUE(merger.TryAdd(0, 0, &workers[0][0]));
  ASSERT_TRUE(merger.TryAdd(0, 1, &workers[0][1]));
  const size_t rows = workers[0][2].rows();
  ASSERT_GT(rows, 0u);
  EXPECT_FALSE(merger.TryAdd(0, 2, &workers[0][2]));
  EXPECT_EQ(workers[0][2].rows(), rows);  // untouched: offered again later
  // Round-robin: each worker offers its next bucket; a declined one is offered again.
  std::vector<uint32_t> next = {2, 0, 0};
  size_t declined = 0;
  while (next[0] < core::kBucketCount || next[1] < core::kBucketCount ||
         next[2] < core::kBucketCount) {
    for (int w = 0; w < 3; ++w) {
      if (next[w] == core::kBucketCount) continue;
      if (merger.TryAdd(w, next[w], &workers[w][next[w]])) {
        ++next[w];
      } else {
        ++declined;
      }
    }
  }
  EXPECT_GT(declined, 0u);
  auto result = merger.Finish();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->rows(), 2000u);
  uint64_t total = 0;
  for (size_t row = 0; row < result->rows(); ++row) {
    uint64_t key = result->columns[0]->Get<uint64_t>(row);
    uint64_t count = result->columns[1]->Get<uint64_t>(row);
    EXPECT_EQ(count, key < 1000 ? 3u : key < 1500 ? 2u : 1u) << key;
    total += count;
  }
  EXPECT_EQ(total, 4500u);
}

// LIMIT n without ORDER BY: the merge stops once merged buckets hold n groups; every returned
// group is complete (its count from all three workers), later blocks are dropped.
TEST(BucketedMergerTest, GroupLimitStopsAtCompleteBuckets) {
  core::ThreadPool pool(2);
  BucketedMerger merger({TypeId::kUInt64}, kSpecs, 3, &pool, [] { return false; }, 300);
  merger.SetGroupLimit(50);
  std::vector<std::vector<core::Block>> workers;
  for (int w = 0; w < 3; ++w) workers.push_back(WorkerBuckets(true, 1000 + 500 * w));
  std::vector<std::thread> readers;
  for (int w = 0; w < 3; ++w) {
    readers.emplace_back([&, w] {
      for (uint32_t b = 0; b < core::kBucketCount && !merger.enough(); ++b) {
        if (w == 2 && b == 20) {
          // The slow worker pauses: buckets 0..19 (about 150 groups) are complete and merge.
          for (int i = 0; i < 500 && !merger.enough(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
        }
        merger.Add(w, b, workers[w][b]);
      }
    });
  }
  for (auto& reader : readers) reader.join();
  EXPECT_TRUE(merger.enough());
  auto result = merger.Finish();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GE(result->rows(), 50u);
  EXPECT_LT(result->rows(), 2000u);
  std::vector<uint32_t> bucket_of(2000);  // worker 2 saw every key
  for (uint32_t b = 0; b < core::kBucketCount; ++b) {
    for (size_t row = 0; row < workers[2][b].rows(); ++row) {
      bucket_of[workers[2][b].columns[0]->Get<uint64_t>(row)] = b;
    }
  }
  size_t below = 0;  // keys of the buckets that were complete when the slow worker paused
  for (uint32_t bucket : bucket_of) below += bucket < 20;
  EXPECT_LE(result->rows(), below);
  for (size_t row = 0; row < result->rows(); ++row) {
    uint64_t key = result->columns[0]->Get<uint64_t>(row);
    EXPECT_LT(bucket_of[key], 20u) << key;
    EXPECT_EQ(result->columns[1]->Get<uint64_t>(row), key < 1000 ? 3u : key < 1500 ? 2u : 1u)
        << key;
  }
}

TEST(BucketedMergerTest, GroupLimitAboveTheGroupCountKeepsEverything) {
  core::ThreadPool pool(2);
  BucketedMerger merger({TypeId::kUInt64}, kSpecs, 2, &pool, [] { return false; }, 300);
  merger.SetGroupLimit(5000);
  std::vector<core::Block> buckets = WorkerBuckets(true, 1000);
  for (int w = 0; w < 2; ++w) {
    for (uint32_t b = 0; b < core::kBucketCount; ++b) merger.Add(w, b, buckets[b]);
  }
  auto result = merger.Finish();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(merger.enough());
  EXPECT_EQ(result->rows(), 1000u);
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

// Returns what one worker that saw keys and values from .. from + rows - 1 sends
// (LocalMerger::MergeToPartial): a single block below `single_threshold` groups, else buckets.
core::LocalMerger::PartialResult WorkerPartial(uint64_t from, uint64_t rows,
                                               size_t single_threshold) {
  auto aggregator = *core::Aggregator::Create({TypeId::kUInt64}, kSpecs);
  auto values = std::make_shared<core::Column>(TypeId::kUInt64);
  for (uint64_t i = from; i < from + rows; ++i) values->Append<uint64_t>(i);
  EXPECT_TRUE(aggregator->Add({values}, {{}, {values}}, rows).ok());
  std::vector<std::unique_ptr<core::Aggregator>> threads;
  threads.push_back(std::move(aggregator));
  core::LocalMerger::Options options;
  options.single_threshold = single_threshold;
  return core::LocalMerger::MergeToPartial(std::move(threads), nullptr, options);
}

// Sends a worker's partial result the way FanOut does.
void Send(BucketedMerger& merger, size_t worker, core::LocalMerger::PartialResult partial) {
  for (size_t i = 0; i < partial.blocks.size(); ++i) {
    if (partial.single) {
      merger.AddSingle(worker, std::move(partial.blocks[i]));
    } else {
      merger.Add(worker, partial.bucket_ids[i], std::move(partial.blocks[i]),
                 i + 1 == partial.blocks.size());
    }
  }
}

// Checks keys from .. from + count - 1, each counted `times` times, uniqExact 1.
void ExpectKeys(const core::Block& result, uint64_t from, uint64_t count, uint64_t times) {
  ASSERT_EQ(result.rows(), count);
  std::vector<bool> seen(count, false);
  for (size_t row = 0; row < result.rows(); ++row) {
    uint64_t key = result.columns[0]->Get<uint64_t>(row);
    ASSERT_TRUE(key >= from && key < from + count) << key;
    EXPECT_FALSE(seen[key - from]) << "key " << key << " twice";
    seen[key - from] = true;
    EXPECT_EQ(result.columns[1]->Get<uint64_t>(row), times) << key;
    EXPECT_EQ(result.columns[2]->Get<uint64_t>(row), 1u) << key;
  }
}

TEST(BucketedMergerTest, SingleBlocksMergeSeriallyWithoutPoolTasks) {
  core::ThreadPool pool(2);
  BucketedMerger merger({TypeId::kUInt64}, kSpecs, 3, &pool, [] { return false; });
  for (size_t w = 0; w < 3; ++w) {
    core::LocalMerger::PartialResult partial = WorkerPartial(0, 16, 4096);
    ASSERT_TRUE(partial.single);
    ASSERT_EQ(partial.blocks.size(), 1u);
    Send(merger, w, std::move(partial));
  }
  auto result = merger.Finish();
  ASSERT_TRUE(result.ok()) << result.status();
  ExpectKeys(*result, 0, 16, 3);
  EXPECT_EQ(merger.bucket_merges(), 0u);
}

TEST(BucketedMergerTest, MixedSingleAndBucketedWorkersInEitherOrder) {
  core::ThreadPool pool(2);
  // The single block arrives first (held, then split when buckets show up) or last (split at
  // once); the bucketed worker skips the buckets its 40 keys miss.
  for (bool single_first : {true, false}) {
    // No cancellation check, so no window: one thread plays both workers.
    BucketedMerger merger({TypeId::kUInt64}, kSpecs, 2, &pool);
    core::LocalMerger::PartialResult small = WorkerPartial(0, 30, 4096);
    core::LocalMerger::PartialResult big = WorkerPartial(10, 30, /*single_threshold=*/0);
    ASSERT_TRUE(small.single);
    ASSERT_FALSE(big.single);
    for (const core::Block& block : big.blocks) EXPECT_GT(block.rows(), 0u);  // non-empty only
    for (size_t i = 1; i < big.bucket_ids.size(); ++i) {
      EXPECT_LT(big.bucket_ids[i - 1], big.bucket_ids[i]);
    }
    if (single_first) Send(merger, 0, std::move(small));
    Send(merger, 1, std::move(big));
    if (!single_first) Send(merger, 0, std::move(small));
    auto result = merger.Finish();
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(result->rows(), 40u) << single_first;
    for (size_t row = 0; row < result->rows(); ++row) {
      uint64_t key = result->columns[0]->Get<uint64_t>(row);
      EXPECT_EQ(result->columns[1]->Get<uint64_t>(row), key >= 10 && key < 30 ? 2u : 1u) << key;
    }
    EXPECT_GT(merger.bucket_merges(), 0u);
    EXPECT_LE(merger.bucket_merges(), 40u);
  }
}

TEST(BucketedMergerTest, WorkersSkippingFarAheadDoNotDeadlockTheWindow) {
  core::ThreadPool pool(2);
  BucketedMerger merger({TypeId::kUInt64}, kSpecs, 2, &pool, [] { return false; }, 2);
  std::vector<core::Block> first = WorkerBuckets(true, 5000);
  std::vector<core::Block> second = WorkerBuckets(true, 5000);
  // Worker 0 sends buckets 0, 1 and 200..255; worker 1 sends 0, 1, 2 and 250..255: each jumps
  // far past the other's progress, and the one behind must not wait for the one ahead.
  auto sends = [](uint32_t b, size_t w) {
    return w == 0 ? (b < 2 || b >= 200) : (b < 3 || b >= 250);
  };
  std::vector<std::thread> readers;
  for (size_t w = 0; w < 2; ++w) {
    readers.emplace_back([&, w] {
      std::vector<core::Block>& mine = w == 0 ? first : second;
      for (uint32_t b = 0; b < core::kBucketCount; ++b) {
        if (sends(b, w)) merger.Add(w, b, mine[b], b + 1 == core::kBucketCount);
      }
    });
  }
  for (auto& reader : readers) reader.join();
  auto result = merger.Finish();
  ASSERT_TRUE(result.ok()) << result.status();
  uint64_t expected = 0;
  uint64_t total = 0;
  for (uint32_t b = 0; b < core::kBucketCount; ++b) {
    expected += (sends(b, 0) ? first[b].rows() : 0) + (sends(b, 1) ? second[b].rows() : 0);
  }
  for (size_t row = 0; row < result->rows(); ++row) total += result->columns[1]->Get<uint64_t>(row);
  EXPECT_EQ(total, expected);
}

TEST(BucketedMergerTest, EmptyResultsKeepTheirColumnTypes) {
  core::ThreadPool pool(2);
  for (size_t single_threshold : {size_t{0}, size_t{4096}}) {
    BucketedMerger merger({TypeId::kUInt64}, kSpecs, 2, &pool, [] { return false; });
    for (size_t w = 0; w < 2; ++w) {
      core::LocalMerger::PartialResult partial = WorkerPartial(0, 0, single_threshold);
      ASSERT_EQ(partial.blocks.size(), 1u);
      EXPECT_EQ(partial.single, single_threshold > 0);
      if (!partial.single) {
        EXPECT_EQ(partial.bucket_ids[0], core::kBucketCount - 1);  // the empty last bucket
      }
      Send(merger, w, std::move(partial));
    }
    auto result = merger.Finish();
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->rows(), 0u);
    ASSERT_EQ(result->columns.size(), 3u);
    EXPECT_EQ(result->columns[0]->type(), TypeId::kUInt64);
    EXPECT_EQ(merger.bucket_merges(), 0u);
  }
}

// The piece cut (ORDER BY ... LIMIT) runs on every finalized bucket, on the serially merged
// singles and on an empty result, and Finish concatenates what it returns.
TEST(BucketedMergerTest, PieceCutRunsOnEveryFinalizedPiece) {
  core::ThreadPool pool(2);
  for (uint64_t rows : {uint64_t{0}, uint64_t{16}, uint64_t{5000}}) {
    for (size_t single_threshold : {size_t{0}, size_t{4096}}) {
      SCOPED_TRACE(std::to_string(rows) + " rows, single " + std::to_string(single_threshold));
      // No cancellation callback: no window, so one thread may send both workers' buckets.
      BucketedMerger merger({TypeId::kUInt64}, kSpecs, 2, &pool);
      std::atomic<size_t> cuts{0};
      merger.SetPieceCut([&cuts](const core::Block& piece) -> absl::StatusOr<core::Block> {
        ++cuts;
        return core::SliceRows(piece, 0, 1);  // first row only
      });
      size_t non_empty = 0;
      for (size_t w = 0; w < 2; ++w) {
        core::LocalMerger::PartialResult partial = WorkerPartial(0, rows, single_threshold);
        if (w == 0 && !partial.single) {
          for (const core::Block& block : partial.blocks) non_empty += block.rows() > 0;
        }
        Send(merger, w, std::move(partial));
      }
      auto result = merger.Finish();
      ASSERT_TRUE(result.ok()) << result.status();
      ASSERT_EQ(result->columns.size(), 3u);
      bool serial = rows == 0 || (single_threshold > 0 && rows < single_threshold);
      size_t expected = rows == 0 ? 0 : serial ? 1 : non_empty;
      EXPECT_EQ(result->rows(), expected);
      EXPECT_EQ(cuts.load(), rows == 0 ? 1 : serial ? 1 : non_empty);
      for (size_t row = 0; row < result->rows(); ++row) {
        EXPECT_EQ(result->columns[1]->Get<uint64_t>(row), 2u);  // complete: both workers
      }
    }
  }
}

TEST(BucketedMergerTest, NoKeySingleBlocksAndEmptyInputGiveOneRow) {
  core::ThreadPool pool(2);
  const std::vector<core::AggregateSpec> specs = {{"count", {}}, {"sum", {TypeId::kUInt64}}};
  BucketedMerger merger({}, specs, 2, &pool, [] { return false; });
  for (size_t w = 0; w < 2; ++w) {
    auto aggregator = *core::Aggregator::Create({}, specs);
    auto values = std::make_shared<core::Column>(TypeId::kUInt64);
    for (uint64_t i = 0; i < 100; ++i) values->Append<uint64_t>(i);
    ASSERT_TRUE(aggregator->Add({}, {{}, {values}}, 100).ok());
    std::vector<std::unique_ptr<core::Aggregator>> threads;
    threads.push_back(std::move(aggregator));
    core::LocalMerger::PartialResult partial =
        core::LocalMerger::MergeToPartial(std::move(threads), nullptr, {});
    ASSERT_TRUE(partial.single);
    Send(merger, w, std::move(partial));
  }
  auto result = merger.Finish();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->rows(), 1u);
  EXPECT_EQ(result->columns[0]->Get<uint64_t>(0), 200u);
  EXPECT_EQ(result->columns[1]->Get<uint64_t>(0), 9900u);

  BucketedMerger empty({}, specs, 2, &pool, [] { return false; });
  auto nothing = empty.Finish();  // e.g. every worker's filter dropped every row
  ASSERT_TRUE(nothing.ok()) << nothing.status();
  ASSERT_EQ(nothing->rows(), 1u);
  EXPECT_EQ(nothing->columns[0]->Get<uint64_t>(0), 0u);
}

// The piece sink streams the result: the same groups in the same (bucket) order as Finish
// would concatenate them, delivered one thread at a time, while Finish returns nothing; the
// serially merged singles go there too; a sink error fails Finish.
TEST(BucketedMergerTest, PieceSinkDeliversBucketsInOrder) {
  core::ThreadPool pool(4);
  std::vector<std::vector<core::Block>> workers;
  for (int w = 0; w < 3; ++w) workers.push_back(WorkerBuckets(true, 3000 + 500 * w));
  auto run = [&](BucketedMerger& merger) {
    std::vector<std::thread> readers;
    for (int w = 0; w < 3; ++w) {
      readers.emplace_back([&, w] {
        for (uint32_t b = 0; b < core::kBucketCount; ++b) merger.Add(w, b, workers[w][b]);
      });
    }
    for (auto& reader : readers) reader.join();
    return merger.Finish();
  };
  BucketedMerger whole({TypeId::kUInt64}, kSpecs, 3, &pool, [] { return false; }, 4);
  absl::StatusOr<core::Block> expected = run(whole);
  ASSERT_TRUE(expected.ok()) << expected.status();

  BucketedMerger streamed({TypeId::kUInt64}, kSpecs, 3, &pool, [] { return false; }, 4);
  std::vector<core::Block> pieces;
  std::atomic<int> in_sink{0};
  std::atomic<bool> overlapped{false};
  streamed.SetPieceSink([&](core::Block piece) -> absl::Status {
    if (in_sink.fetch_add(1) != 0) overlapped = true;
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // a slow client
    pieces.push_back(std::move(piece));
    in_sink.fetch_sub(1);
    return absl::OkStatus();
  });
  absl::StatusOr<core::Block> rest = run(streamed);
  ASSERT_TRUE(rest.ok()) << rest.status();
  EXPECT_EQ(rest->rows(), 0u);
  EXPECT_FALSE(overlapped.load());
  core::Block concatenated = core::ConcatBlocks(pieces);
  ASSERT_EQ(concatenated.rows(), expected->rows());
  for (size_t row = 0; row < concatenated.rows(); ++row) {
    ASSERT_EQ(concatenated.columns[0]->Get<uint64_t>(row), expected->columns[0]->Get<uint64_t>(row))
        << row;
    ASSERT_EQ(concatenated.columns[1]->Get<uint64_t>(row), expected->columns[1]->Get<uint64_t>(row))
        << row;
  }

  BucketedMerger singles({TypeId::kUInt64}, kSpecs, 2, &pool, [] { return false; });
  size_t single_rows = 0;
  singles.SetPieceSink([&](core::Block piece) -> absl::Status {
    single_rows += piece.rows();
    return absl::OkStatus();
  });
  Send(singles, 0, WorkerPartial(0, 10, 1000));
  Send(singles, 1, WorkerPartial(5, 10, 1000));
  ASSERT_TRUE(singles.Finish().ok());
  EXPECT_EQ(single_rows, 15u);

  BucketedMerger failing({TypeId::kUInt64}, kSpecs, 3, &pool, [] { return false; }, 4);
  failing.SetPieceSink([](core::Block) { return absl::CancelledError("the client went away"); });
  EXPECT_EQ(run(failing).status().code(), absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace granite::coordinator
