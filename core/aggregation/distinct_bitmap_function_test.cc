// Tests of the bitmap uniqExact state (distinct_bitmap_function.cc), of disjoint distinct counts
// (AggregateSpec::disjoint, version-3 states of uniq / uniqExact / the bitmap) and of the
// planned-range direct key layout (AggregatorOptions::direct_key): rows split over 1, 2 and 3
// "workers", each emitting partial states by bucket, merged like the coordinator does, must give
// the counts of a reference computed with std::set.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "core/aggregation/aggregator.h"
#include "core/block_codec.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

struct Rows {
  std::vector<uint16_t> keys;
  std::vector<int32_t> values;
};

Rows RandomRows(size_t count, int32_t lo, int32_t hi, uint16_t groups, std::mt19937_64& rng) {
  Rows rows;
  for (size_t i = 0; i < count; ++i) {
    rows.keys.push_back(static_cast<uint16_t>(rng() % groups));
    rows.values.push_back(lo + static_cast<int32_t>(rng() % static_cast<uint64_t>(hi - lo + 1)));
  }
  return rows;
}

template <typename T>
ColumnPtr ColumnOf(TypeId type, const std::vector<T>& values, size_t from, size_t to) {
  auto column = std::make_shared<Column>(type);
  for (size_t i = from; i < to; ++i) column->Append<T>(values[i]);
  return column;
}

AggregateSpec BitmapSpec(int64_t lo, uint64_t bits, bool disjoint = false) {
  AggregateSpec spec{"uniqExact", {TypeId::kInt32}};
  spec.bitmap_base = static_cast<uint64_t>(lo);
  spec.bitmap_bits = bits;
  spec.disjoint = disjoint;
  return spec;
}

// Aggregates rows[bounds[w] .. bounds[w+1]) per worker w with `worker_spec`, sends every bucket
// through the block codec, merges them in one aggregator of `coordinator_spec` and returns
// key -> count (key 0 without keys).
absl::StatusOr<std::map<uint16_t, uint64_t>> RunCluster(const Rows& rows,
                                                        const std::vector<size_t>& bounds,
                                                        const AggregateSpec& worker_spec,
                                                        const AggregateSpec& coordinator_spec,
                                                        bool with_keys) {
  std::vector<TypeId> key_types;
  if (with_keys) key_types.push_back(TypeId::kUInt16);
  ASSIGN_OR_RETURN(auto coordinator, Aggregator::Create(key_types, {coordinator_spec}));
  for (size_t w = 0; w + 1 < bounds.size(); ++w) {
    ASSIGN_OR_RETURN(auto worker, Aggregator::Create(key_types, {worker_spec}));
    // Two batches per worker, so states are updated more than once.
    size_t mid = (bounds[w] + bounds[w + 1]) / 2;
    for (auto [from, to] : {std::pair{bounds[w], mid}, std::pair{mid, bounds[w + 1]}}) {
      std::vector<ColumnPtr> keys;
      if (with_keys) keys.push_back(ColumnOf(TypeId::kUInt16, rows.keys, from, to));
      RETURN_IF_ERROR(
          worker->Add(keys, {{ColumnOf(TypeId::kInt32, rows.values, from, to)}}, to - from));
    }
    for (const Block& bucket : worker->PartialByBucket()) {
      std::string bytes = EncodeBlock(bucket);
      ASSIGN_OR_RETURN(Block decoded, DecodeBlock(bytes));
      RETURN_IF_ERROR(coordinator->Merge(decoded));
    }
  }
  ASSIGN_OR_RETURN(Block result, coordinator->Finalize());
  std::map<uint16_t, uint64_t> counts;
  for (size_t r = 0; r < result.rows(); ++r) {
    uint16_t key = with_keys ? result.columns[0]->Data<uint16_t>()[r] : 0;
    counts[key] = result.columns.back()->Data<uint64_t>()[r];
  }
  return counts;
}

std::map<uint16_t, uint64_t> Reference(const Rows& rows, bool with_keys) {
  std::map<uint16_t, std::set<int32_t>> sets;
  for (size_t i = 0; i < rows.keys.size(); ++i) {
    sets[with_keys ? rows.keys[i] : 0].insert(rows.values[i]);
  }
  std::map<uint16_t, uint64_t> counts;
  for (const auto& [key, set] : sets) counts[key] = set.size();
  return counts;
}

std::vector<size_t> RandomBounds(size_t rows, size_t workers, std::mt19937_64& rng) {
  std::vector<size_t> bounds = {0, rows};
  for (size_t w = 1; w < workers; ++w) bounds.push_back(rng() % (rows + 1));
  std::sort(bounds.begin(), bounds.end());
  return bounds;
}

TEST(DistinctBitmapFunctionTest, PartialMergeAcrossWorkersEqualsSinglePass) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 6; ++round) {
    bool with_keys = round % 2 == 1;
    int32_t lo = round < 2 ? 0 : -1000 * round;
    int32_t hi = lo + 50 + static_cast<int32_t>(rng() % 5000);
    Rows rows = RandomRows(20000, lo, hi, 37, rng);
    AggregateSpec spec = BitmapSpec(lo, static_cast<uint64_t>(hi - lo + 1));
    for (size_t workers : {1, 2, 3}) {
      auto counts = RunCluster(rows, RandomBounds(rows.values.size(), workers, rng), spec, spec,
                               with_keys);
      ASSERT_TRUE(counts.ok()) << counts.status();
      EXPECT_EQ(*counts, Reference(rows, with_keys)) << "round " << round << ", " << workers;
    }
  }
}

TEST(DistinctBitmapFunctionTest, ValuesOutsideThePlannedRangeStillCountExactly) {
  std::mt19937_64 rng(11);
  Rows rows = RandomRows(5000, -300, 300, 5, rng);
  // The bitmap covers only [0, 100): the rest are outliers, kept exactly.
  AggregateSpec spec = BitmapSpec(0, 100);
  for (size_t workers : {1, 3}) {
    auto counts = RunCluster(rows, RandomBounds(5000, workers, rng), spec, spec, true);
    ASSERT_TRUE(counts.ok()) << counts.status();
    EXPECT_EQ(*counts, Reference(rows, true));
  }
}

TEST(DistinctBitmapFunctionTest, MergesOnlyWithTheSameBitmap) {
  std::mt19937_64 rng(3);
  Rows rows = RandomRows(100, 0, 99, 1, rng);
  auto counts = RunCluster(rows, {0, 50, 100}, BitmapSpec(0, 100), BitmapSpec(0, 128), false);
  EXPECT_EQ(CodeOf(counts.status()), ErrorCode::kLogicalError);
  // A hash-set uniqExact state is not a bitmap state.
  counts = RunCluster(rows, {0, 50, 100}, AggregateSpec{"uniqExact", {TypeId::kInt32}},
                      BitmapSpec(0, 100), false);
  EXPECT_FALSE(counts.ok());
}

// Sorts rows by value so each worker's slice holds values no other worker has.
Rows DisjointByWorker(Rows rows) {
  std::vector<size_t> order(rows.values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return rows.values[a] < rows.values[b]; });
  Rows sorted;
  for (size_t i : order) {
    sorted.keys.push_back(rows.keys[i]);
    sorted.values.push_back(rows.values[i]);
  }
  return sorted;
}

// Bounds that never split one value between two workers.
std::vector<size_t> ValueAlignedBounds(const Rows& rows, size_t workers) {
  std::vector<size_t> bounds = {0};
  for (size_t w = 1; w < workers; ++w) {
    size_t at = rows.values.size() * w / workers;
    while (at > 0 && at < rows.values.size() && rows.values[at] == rows.values[at - 1]) ++at;
    bounds.push_back(at);
  }
  bounds.push_back(rows.values.size());
  return bounds;
}

TEST(DistinctBitmapFunctionTest, DisjointCountsAddUpExactly) {
  std::mt19937_64 rng(5);
  Rows rows = DisjointByWorker(RandomRows(30000, -5000, 5000, 23, rng));
  AggregateSpec hashed{"uniqExact", {TypeId::kInt32}};
  AggregateSpec hashed_disjoint = hashed;
  hashed_disjoint.disjoint = true;
  for (bool with_keys : {false, true}) {
    for (size_t workers : {1, 2, 3}) {
      std::vector<size_t> bounds = ValueAlignedBounds(rows, workers);
      auto counts = RunCluster(rows, bounds, hashed_disjoint, hashed, with_keys);
      ASSERT_TRUE(counts.ok()) << counts.status();
      EXPECT_EQ(*counts, Reference(rows, with_keys));
      counts = RunCluster(rows, bounds, BitmapSpec(-5000, 10001, true), BitmapSpec(-5000, 10001),
                          with_keys);
      ASSERT_TRUE(counts.ok()) << counts.status();
      EXPECT_EQ(*counts, Reference(rows, with_keys));
    }
  }
  // A disjoint count never merges with a state holding values: that would double count.
  Rows overlapping = RandomRows(1000, 0, 10, 1, rng);
  auto workers = Aggregator::Create({}, {hashed_disjoint});
  auto plain = Aggregator::Create({}, {hashed});
  ASSERT_TRUE(workers.ok() && plain.ok());
  ASSERT_TRUE((*workers)->Add({}, {{ColumnOf(TypeId::kInt32, overlapping.values, 0, 500)}}, 500).ok());
  ASSERT_TRUE((*plain)->Add({}, {{ColumnOf(TypeId::kInt32, overlapping.values, 500, 1000)}}, 500).ok());
  auto coordinator = Aggregator::Create({}, {hashed});
  ASSERT_TRUE((*coordinator)->Merge((*workers)->Partial()).ok());
  EXPECT_EQ(CodeOf((*coordinator)->Merge((*plain)->Partial())), ErrorCode::kLogicalError);
}

TEST(DistinctBitmapFunctionTest, DisjointUniqIsTheSumOfWorkerEstimates) {
  std::mt19937_64 rng(9);
  Rows rows = DisjointByWorker(RandomRows(200000, 0, 1'000'000, 3, rng));
  AggregateSpec uniq{"uniq", {TypeId::kInt32}};
  AggregateSpec disjoint = uniq;
  disjoint.disjoint = true;
  std::map<uint16_t, uint64_t> exact = Reference(rows, true);
  for (size_t workers : {2, 3}) {
    auto counts = RunCluster(rows, ValueAlignedBounds(rows, workers), disjoint, uniq, true);
    ASSERT_TRUE(counts.ok()) << counts.status();
    ASSERT_EQ(counts->size(), exact.size());
    for (const auto& [key, count] : exact) {
      double error = std::abs(static_cast<double>((*counts)[key]) - static_cast<double>(count));
      EXPECT_LT(error, 0.05 * static_cast<double>(count)) << key;
    }
  }
}

TEST(DistinctBitmapFunctionTest, DirectKeyOfAPlannedRange) {
  std::mt19937_64 rng(13);
  const uint64_t base = 1'000'000'000'000ULL;
  std::vector<uint64_t> keys;
  for (int i = 0; i < 50000; ++i) keys.push_back(base + rng() % 65536);
  AggregatorOptions options;
  options.direct_key = true;
  options.direct_key_base = base;
  auto aggregator = Aggregator::Create({TypeId::kUInt64}, {{"count", {}}}, options);
  ASSERT_TRUE(aggregator.ok());
  EXPECT_EQ((*aggregator)->layout(), Aggregator::KeyLayout::kDirect16);
  ASSERT_TRUE((*aggregator)->Add({ColumnOf(TypeId::kUInt64, keys, 0, keys.size())}, {{}},
                                 keys.size()).ok());
  // Its buckets merge into an ordinary (hashed) aggregator: the key hash is the layout's.
  auto merged = Aggregator::Create({TypeId::kUInt64}, {{"count", {}}});
  for (const Block& bucket : (*aggregator)->PartialByBucket()) {
    ASSERT_TRUE((*merged)->Merge(bucket).ok());
  }
  auto result = (*merged)->Finalize();
  ASSERT_TRUE(result.ok());
  std::map<uint64_t, uint64_t> want, got;
  for (uint64_t key : keys) ++want[key];
  for (size_t r = 0; r < result->rows(); ++r) {
    got[result->columns[0]->Data<uint64_t>()[r]] = result->columns[1]->Data<uint64_t>()[r];
  }
  EXPECT_EQ(got, want);
  // A key outside the planned range fails the batch instead of landing in a wrong group.
  std::vector<uint64_t> outside = {base + 5, base + 65536};
  absl::Status status = (*aggregator)->Add({ColumnOf(TypeId::kUInt64, outside, 0, 2)}, {{}}, 2);
  EXPECT_EQ(CodeOf(status), ErrorCode::kLogicalError);
}

}  // namespace
}  // namespace granite::core
