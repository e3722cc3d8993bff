// LocalFinalizer against the path it replaced (LocalMerger::Merge with final-only states, then each
// bucket merged again into a fresh aggregator and finalized): the same groups and results on every
// path (serial, hashed per bucket, direct arrays, no keys), and with a per-piece top-N cut the
// same survivors in the same order, ties included.
#include "core/aggregation/local_finalizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "core/block_sort.h"
#include "core/thread_pool.h"

namespace granite::core {
namespace {

// Three key shapes: (UInt64, UInt8, String) serialized, one String, one UInt16 (direct array).
enum class Keys { kSerialized, kString, kDirect };

std::vector<TypeId> KeyTypes(Keys keys) {
  switch (keys) {
    case Keys::kSerialized:
      return {TypeId::kUInt64, TypeId::kUInt8, TypeId::kString};
    case Keys::kString:
      return {TypeId::kString};
    case Keys::kDirect:
      return {TypeId::kUInt16};
  }
  return {};
}

std::vector<AggregateSpec> Specs() {
  return {AggregateSpec{"count", {}}, AggregateSpec{"sum", {TypeId::kUInt64}},
          AggregateSpec{"uniqExact", {TypeId::kUInt64}}};
}

// Builds `threads` aggregators over overlapping random keys: key ids in [0, distinct), so with
// many rows per id most groups live in several threads, and counts tie often.
std::vector<std::unique_ptr<Aggregator>> Threads(Keys shape, size_t threads, size_t rows,
                                                 uint64_t distinct, uint32_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::unique_ptr<Aggregator>> result;
  for (size_t t = 0; t < threads; ++t) {
    auto aggregator = *Aggregator::Create(KeyTypes(shape), Specs());
    std::vector<MutableColumnPtr> keys;
    for (TypeId type : KeyTypes(shape)) keys.push_back(std::make_shared<Column>(type));
    auto values = std::make_shared<Column>(TypeId::kUInt64);
    for (size_t i = 0; i < rows; ++i) {
      uint64_t id = random() % distinct;
      switch (shape) {
        case Keys::kSerialized:
          keys[0]->Append<uint64_t>(id / 7 * 1000003);
          keys[1]->Append<uint8_t>(static_cast<uint8_t>(id % 7));
          keys[2]->AppendString(id % 3 == 0 ? "" : "phrase number " + std::to_string(id % 11));
          break;
        case Keys::kString:
          keys[0]->AppendString("key-" + std::to_string(id));
          break;
        case Keys::kDirect:
          keys[0]->Append<uint16_t>(static_cast<uint16_t>(id));
          break;
      }
      values->Append<uint64_t>(random() % 5);
    }
    std::vector<ColumnPtr> key_columns(keys.begin(), keys.end());
    std::vector<std::vector<ColumnPtr>> args = {{}, {values}, {values}};
    EXPECT_TRUE(aggregator->Add(key_columns, args, rows).ok());
    result.push_back(std::move(aggregator));
  }
  return result;
}

// The replaced path: final-only partial buckets, each merged again and finalized, then cut.
std::vector<Block> Reference(std::vector<std::unique_ptr<Aggregator>> aggregators,
                             ThreadPool* pool, const LocalMerger::Options& options,
                             const LocalFinalizer::Finish& finish) {
  LocalMerger::Options final_only = options;
  final_only.final_only = true;
  auto prototype = aggregators[0]->CloneEmpty(/*sparse=*/true);
  std::vector<Block> pieces;
  for (Block& bucket : LocalMerger::Merge(std::move(aggregators), pool, final_only)) {
    if (bucket.rows() == 0) continue;
    auto merged = prototype->CloneEmpty(/*sparse=*/true);
    EXPECT_TRUE(merged->Merge(bucket).ok());
    absl::StatusOr<Block> piece = finish(*merged->Finalize());
    EXPECT_TRUE(piece.ok());
    if (piece->rows() > 0) pieces.push_back(std::move(*piece));
  }
  return pieces;
}

// Returns every row of `pieces` as text, in order.
std::vector<std::string> Rows(const std::vector<Block>& pieces) {
  std::vector<std::string> rows;
  for (const Block& block : pieces) {
    for (size_t r = 0; r < block.rows(); ++r) {
      std::string row;
      for (const ColumnPtr& column : block.columns) {
        switch (column->type()) {
          case TypeId::kString:
            row += column->StringAt(r);
            break;
          case TypeId::kUInt8:
            row += std::to_string(column->Get<uint8_t>(r));
            break;
          case TypeId::kUInt16:
            row += std::to_string(column->Get<uint16_t>(r));
            break;
          default:
            row += std::to_string(column->Get<uint64_t>(r));
        }
        row += '|';
      }
      rows.push_back(row);
    }
  }
  return rows;
}

std::vector<std::string> Sorted(std::vector<std::string> rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

// ORDER BY count() DESC LIMIT 5 (the count is the first result column); ties keep input order.
LocalFinalizer::Finish TopByCount(size_t key_count) {
  return [key_count](Block groups) -> absl::StatusOr<Block> {
    return TakeRows(groups, SortPermutation(groups, {{key_count, true}}, 5));
  };
}

LocalFinalizer::Finish Identity() {
  return [](Block groups) -> absl::StatusOr<Block> { return groups; };
}

struct Case {
  Keys keys;
  size_t parallel_threshold;  // 1: the parallel paths; the default: serial
};

class LocalFinalizerTest : public ::testing::TestWithParam<Case> {};

TEST_P(LocalFinalizerTest, SameGroupsAsMergingPartialBucketsAgain) {
  ThreadPool pool(3);
  LocalMerger::Options options;
  options.parallel_threshold = GetParam().parallel_threshold;
  for (uint64_t distinct : {uint64_t{1}, uint64_t{300}, uint64_t{5000}}) {
    auto expected = Reference(Threads(GetParam().keys, 3, 4000, distinct, 7), &pool, options,
                              Identity());
    auto got = LocalFinalizer::Finalize(Threads(GetParam().keys, 3, 4000, distinct, 7), &pool,
                                        options, Identity());
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(Sorted(Rows(*got)), Sorted(Rows(expected))) << "distinct " << distinct;
    EXPECT_FALSE(Rows(*got).empty());
    // worker_finalize_in_place = 0 takes the partial-bucket path on every layout.
    auto old_path = LocalFinalizer::Finalize(Threads(GetParam().keys, 3, 4000, distinct, 7), &pool,
                                             options, Identity(), /*in_place=*/false);
    ASSERT_TRUE(old_path.ok()) << old_path.status();
    EXPECT_EQ(Rows(*old_path), Rows(expected)) << "distinct " << distinct;
  }
}

TEST_P(LocalFinalizerTest, TopNCutKeepsTheSameSurvivorsTiesIncluded) {
  ThreadPool pool(3);
  LocalMerger::Options options;
  options.parallel_threshold = GetParam().parallel_threshold;
  const size_t key_count = KeyTypes(GetParam().keys).size();
  // Counts 1..~20 over thousands of groups: nearly every cut boundary falls inside a tie.
  auto expected_pieces = Reference(Threads(GetParam().keys, 3, 3000, 2000, 11), &pool, options,
                                   TopByCount(key_count));
  auto got_pieces = LocalFinalizer::Finalize(Threads(GetParam().keys, 3, 3000, 2000, 11), &pool,
                                             options, TopByCount(key_count));
  ASSERT_TRUE(got_pieces.ok()) << got_pieces.status();
  // The worker cuts the concatenated survivors once more; the rows shipped must be the same.
  auto final_cut = [&](const std::vector<Block>& pieces) {
    return Rows({*TopByCount(key_count)(ConcatBlocks(pieces))});
  };
  const bool serial = GetParam().parallel_threshold > 100000;
  if (serial) {
    // One piece instead of buckets: the same counts survive (which tied group wins may differ).
    auto counts = [&](const std::vector<std::string>& rows) {
      std::vector<std::string> out;
      for (const std::string& row : rows) {
        size_t at = 0;
        for (size_t k = 0; k < key_count; ++k) at = row.find('|', at) + 1;
        out.push_back(row.substr(at, row.find('|', at) - at));
      }
      return out;
    };
    EXPECT_EQ(counts(final_cut(*got_pieces)), counts(final_cut(expected_pieces)));
  } else {
    EXPECT_EQ(Rows(*got_pieces), Rows(expected_pieces));
    EXPECT_EQ(final_cut(*got_pieces), final_cut(expected_pieces));
  }
}

TEST(LocalFinalizerNoKeysTest, OneRowEvenWithoutGroups) {
  auto aggregator = *Aggregator::Create({}, Specs());
  std::vector<std::unique_ptr<Aggregator>> aggregators;
  aggregators.push_back(std::move(aggregator));
  auto got = LocalFinalizer::Finalize(std::move(aggregators), nullptr, LocalMerger::Options(),
                                      Identity());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(Rows(*got), std::vector<std::string>{"0|0|0|"});
}

INSTANTIATE_TEST_SUITE_P(Paths, LocalFinalizerTest,
                         ::testing::Values(Case{Keys::kSerialized, 1},
                                           Case{Keys::kSerialized, 1000000},
                                           Case{Keys::kString, 1}, Case{Keys::kString, 1000000},
                                           Case{Keys::kDirect, 1}, Case{Keys::kDirect, 1000000}));

}  // namespace
}  // namespace granite::core
