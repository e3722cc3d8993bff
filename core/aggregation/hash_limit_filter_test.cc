#include "core/aggregation/hash_limit_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/aggregation/key_hash.h"
#include "core/block_sort.h"

namespace granite::core {
namespace {

// One input row: its group key and the key's hash (real or synthetic, to force ties).
struct Row {
  uint64_t key;
  uint64_t hash;
  uint64_t value;
};

struct Group {
  uint64_t count = 0;
  uint64_t sum = 0;
  bool operator==(const Group& other) const { return count == other.count && sum == other.sum; }
};

// Returns the exact groups of `rows` smallest in (hash, key) order: `limit` of them after `offset`.
std::vector<std::pair<uint64_t, Group>> ExactBottom(const std::vector<Row>& rows, size_t offset,
                                                    size_t limit) {
  std::map<std::pair<uint64_t, uint64_t>, Group> all;
  for (const Row& row : rows) {
    Group& g = all[{row.hash, row.key}];
    ++g.count;
    g.sum += row.value;
  }
  std::vector<std::pair<uint64_t, Group>> out;
  size_t index = 0;
  for (const auto& [hk, group] : all) {
    if (index++ < offset) continue;
    if (out.size() == limit) break;
    out.emplace_back(hk.second, group);
  }
  return out;
}

// Splits `rows` over `threads` filters of L = offset + limit (each thread gets a random share,
// in random order), aggregates what each admits, merges the partial groups like the coordinator
// and keeps the L smallest (hash, key) of every group received; returns rows [offset, L).
std::vector<std::pair<uint64_t, Group>> Filtered(std::vector<Row> rows, size_t threads,
                                                 size_t offset, size_t limit, uint32_t seed,
                                                 size_t* received = nullptr) {
  std::mt19937_64 rng(seed);
  std::shuffle(rows.begin(), rows.end(), rng);
  std::vector<HashLimitFilter> filters;
  for (size_t t = 0; t < threads; ++t) filters.emplace_back(offset + limit);
  std::map<std::pair<uint64_t, uint64_t>, Group> merged;  // (hash, key) -> merged partials
  constexpr size_t kBatch = 97;
  for (size_t start = 0; start < rows.size(); start += kBatch) {
    size_t n = std::min(kBatch, rows.size() - start);
    HashLimitFilter& filter = filters[rng() % threads];
    std::vector<uint64_t> hashes(n);
    for (size_t i = 0; i < n; ++i) hashes[i] = rows[start + i].hash;
    std::vector<uint8_t> mask(n);
    size_t kept = filter.FilterHashes(hashes.data(), n, mask.data());
    size_t counted = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!mask[i]) continue;
      const Row& row = rows[start + i];
      Group& g = merged[{row.hash, row.key}];
      ++g.count;
      g.sum += row.value;
      ++counted;
    }
    EXPECT_EQ(kept, counted);
  }
  for (const HashLimitFilter& filter : filters) EXPECT_LE(filter.admitted(), offset + limit);
  if (received != nullptr) *received = merged.size();
  std::vector<std::pair<uint64_t, Group>> out;
  size_t index = 0;
  for (const auto& [hk, group] : merged) {
    if (index++ < offset) continue;
    if (out.size() == limit) break;
    out.emplace_back(hk.second, group);
  }
  return out;
}

// Rows of `keys` distinct keys with Zipf-like repetition; hash = real HashKeys or key / tie.
std::vector<Row> MakeRows(size_t count, size_t keys, uint64_t tie, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Row> rows;
  for (size_t i = 0; i < count; ++i) {
    uint64_t key = (rng() % keys) * (rng() % 2 == 0 ? 1 : (rng() % 4 + 1)) % keys;
    uint64_t hash = tie > 0 ? key / tie : HashInt(key);
    rows.push_back(Row{key, hash, rng() % 1000});
  }
  return rows;
}

TEST(HashLimitFilterTest, ThreadsMergedEqualExactBottomL) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    std::vector<Row> rows = MakeRows(200000, 50000, 0, seed);
    for (size_t threads : {1u, 4u, 13u}) {
      size_t received = 0;
      auto got = Filtered(rows, threads, 0, 10, seed, &received);
      EXPECT_EQ(got, ExactBottom(rows, 0, 10)) << "seed " << seed << " threads " << threads;
      EXPECT_LT(received, 50000u / 10) << "the filter kept too many groups";
    }
  }
}

TEST(HashLimitFilterTest, HashTiesKeepEveryKeyOfAHashTogether) {
  // Three keys share each hash: the bottom-L boundary falls inside groups of tied keys.
  std::vector<Row> rows = MakeRows(100000, 3000, 3, 7);
  for (size_t limit : {1u, 2u, 10u, 11u}) {
    EXPECT_EQ(Filtered(rows, 5, 0, limit, 8), ExactBottom(rows, 0, limit)) << limit;
  }
  // Every key has the same hash: nothing may be dropped.
  std::vector<Row> same = MakeRows(5000, 40, 1000, 9);
  EXPECT_EQ(Filtered(same, 3, 0, 4, 10), ExactBottom(same, 0, 4));
}

TEST(HashLimitFilterTest, OffsetRowsAreExact) {
  std::vector<Row> rows = MakeRows(100000, 20000, 0, 11);
  for (size_t offset : {1u, 5u, 100u}) {
    EXPECT_EQ(Filtered(rows, 4, offset, 7, 12), ExactBottom(rows, offset, 7)) << offset;
  }
}

TEST(HashLimitFilterTest, LimitAboveGroupCountKeepsEveryRow) {
  std::vector<Row> rows = MakeRows(10000, 30, 0, 13);
  HashLimitFilter filter(100);
  std::vector<uint64_t> hashes;
  for (const Row& row : rows) hashes.push_back(row.hash);
  std::vector<uint8_t> mask(rows.size());
  EXPECT_EQ(filter.FilterHashes(hashes.data(), rows.size(), mask.data()), rows.size());
  EXPECT_EQ(filter.threshold(), UINT64_MAX);
  EXPECT_EQ(Filtered(rows, 3, 0, 100, 14), ExactBottom(rows, 0, 100));
}

TEST(HashLimitFilterTest, ThresholdIsTheLthSmallestDistinctHash) {
  HashLimitFilter filter(3);
  std::vector<uint64_t> hashes = {50, 40, 50, 30, 20, 60, 40, 10, 25, 30};
  std::vector<uint8_t> mask(hashes.size());
  size_t kept = filter.FilterHashes(hashes.data(), hashes.size(), mask.data());
  // 50 40 50 30 admitted (T=50); 20 evicts 50 (T=40); 60 dropped; 40 kept; 10 evicts 40 (T=30);
  // 25 evicts 30 (T=25); 30 dropped.
  EXPECT_EQ(std::vector<uint8_t>(mask.begin(), mask.end()),
            (std::vector<uint8_t>{1, 1, 1, 1, 1, 0, 1, 1, 1, 0}));
  EXPECT_EQ(kept, 8u);
  EXPECT_EQ(filter.threshold(), 25u);
  EXPECT_EQ(filter.admitted(), 3u);
}

// Builds a block of a UInt64 key, a String key and a UInt64 count column.
Block KeyBlock(const std::vector<std::pair<uint64_t, std::string>>& keys) {
  auto ids = std::make_shared<Column>(TypeId::kUInt64);
  auto names = std::make_shared<Column>(TypeId::kString);
  auto counts = std::make_shared<Column>(TypeId::kUInt64);
  for (size_t i = 0; i < keys.size(); ++i) {
    ids->Append<uint64_t>(keys[i].first);
    names->AppendString(keys[i].second);
    counts->Append<uint64_t>(i);
  }
  Block block;
  block.columns = {ids, names, counts};
  return block;
}

TEST(HashLimitFilterTest, ApplyAndBottomGroupsUseTheCombinedKeyHash) {
  std::vector<std::pair<uint64_t, std::string>> keys;
  for (uint64_t i = 0; i < 3000; ++i) keys.emplace_back(i % 300, std::to_string(i % 7));
  Block input = KeyBlock(keys);
  std::vector<ColumnPtr> key_columns = {input.columns[0], input.columns[1]};
  std::vector<uint64_t> hashes(input.rows());
  HashKeys(key_columns, input.rows(), hashes.data());
  std::set<uint64_t> distinct(hashes.begin(), hashes.end());
  uint64_t fifth = *std::next(distinct.begin(), 4);

  HashLimitFilter filter(5);
  Block block = input;
  size_t kept = filter.Apply(&block, &key_columns);
  ASSERT_EQ(block.rows(), kept);
  ASSERT_EQ(key_columns[0]->size(), kept);
  // One pass admits every row hashing at or below the final threshold that arrived before it
  // dropped: at least the rows of the 5 smallest hashes, and every kept row's key hashes as before.
  std::vector<uint64_t> kept_hashes(kept);
  HashKeys(key_columns, kept, kept_hashes.data());
  size_t bottom_rows = 0;
  for (uint64_t h : hashes) bottom_rows += h <= fifth;
  size_t kept_bottom = 0;
  for (uint64_t h : kept_hashes) kept_bottom += h <= fifth;
  EXPECT_EQ(kept_bottom, bottom_rows);
  EXPECT_EQ(filter.threshold(), fifth);

  // Coordinator side: the 5 smallest (hash, key) groups of the distinct keys, in that order.
  std::vector<std::pair<uint64_t, std::string>> unique_keys;
  for (uint64_t i = 0; i < 2100; ++i) unique_keys.emplace_back(i % 300, std::to_string(i % 7));
  Block groups = KeyBlock(unique_keys);
  std::vector<uint32_t> bottom = BottomGroupsByHash(groups, 2, 5);
  ASSERT_EQ(bottom.size(), 5u);
  std::vector<uint64_t> group_hashes(groups.rows());
  HashKeys(std::vector<ColumnPtr>{groups.columns[0], groups.columns[1]}, groups.rows(),
           group_hashes.data());
  std::vector<uint64_t> sorted = group_hashes;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(group_hashes[bottom[i]], sorted[i]);
  EXPECT_EQ(BottomGroupsByHash(groups, 2, 5000).size(), groups.rows());
}

TEST(HashLimitFilterTest, ApplyKeepsOnlyTheAdmittedKeys) {
  HashLimitFilter filter(1);
  std::vector<std::pair<uint64_t, std::string>> keys = {{1, "a"}, {2, "b"}, {3, "c"}};
  Block first = KeyBlock(keys);
  std::vector<ColumnPtr> first_keys = {first.columns[0], first.columns[1]};
  EXPECT_GE(filter.Apply(&first, &first_keys), 1u);
  // The same keys again: only the admitted one survives; a block of far keys leaves nothing.
  Block again = KeyBlock(keys);
  std::vector<ColumnPtr> again_keys = {again.columns[0], again.columns[1]};
  EXPECT_EQ(filter.Apply(&again, &again_keys), 1u);
  EXPECT_EQ(again.rows(), 1u);
}

}  // namespace
}  // namespace granite::core

namespace granite::core {
namespace {

// GROUP BY k1, k2 ORDER BY k1 [DESC], k2 LIMIT limit OFFSET offset over rows spread across
// `threads` ByKeyOrder filters ranking k1 (an Int64 key, key 0): the merged groups, sorted, must
// equal the exact answer, though groups past the limit may be incomplete.
using KeyPair = std::pair<int64_t, int64_t>;

std::vector<std::pair<KeyPair, uint64_t>> TopByFirstKey(
    const std::map<KeyPair, uint64_t>& groups, bool descending, size_t offset, size_t limit) {
  std::vector<std::pair<KeyPair, uint64_t>> sorted(groups.begin(), groups.end());
  std::stable_sort(sorted.begin(), sorted.end(), [&](const auto& a, const auto& b) {
    if (a.first.first != b.first.first) {
      return descending ? a.first.first > b.first.first : a.first.first < b.first.first;
    }
    return a.first.second < b.first.second;
  });
  if (offset >= sorted.size()) return {};
  sorted.erase(sorted.begin(), sorted.begin() + offset);
  if (sorted.size() > limit) sorted.resize(limit);
  return sorted;
}

TEST(HashLimitFilterTest, ByKeyOrderThreadsMergedEqualExactTopL) {
  std::mt19937_64 rng(21);
  std::vector<KeyPair> rows;
  for (size_t i = 0; i < 60000; ++i) {
    rows.emplace_back(static_cast<int64_t>(rng() % 5000) - 2500, static_cast<int64_t>(rng() % 3));
  }
  std::map<KeyPair, uint64_t> exact;
  for (const KeyPair& row : rows) ++exact[row];
  for (bool descending : {false, true}) {
    for (size_t offset : {0u, 7u}) {
      const size_t limit = 10;
      std::vector<HashLimitFilter> filters;
      for (size_t t = 0; t < 4; ++t) {
        filters.push_back(HashLimitFilter::ByKeyOrder(offset + limit, 0, descending));
      }
      std::map<KeyPair, uint64_t> merged;
      size_t kept_rows = 0;
      for (size_t start = 0; start < rows.size(); start += 101) {
        const size_t n = std::min<size_t>(101, rows.size() - start);
        auto k1 = std::make_shared<Column>(TypeId::kInt64);
        auto k2 = std::make_shared<Column>(TypeId::kInt64);
        for (size_t i = 0; i < n; ++i) {
          k1->Append<int64_t>(rows[start + i].first);
          k2->Append<int64_t>(rows[start + i].second);
        }
        Block block;
        block.columns = {k1, k2};
        std::vector<ColumnPtr> keys = {k1, k2};
        const size_t kept = filters[rng() % filters.size()].Apply(&block, &keys);
        kept_rows += kept;
        for (size_t i = 0; i < kept; ++i) {
          ++merged[{keys[0]->Get<int64_t>(i), keys[1]->Get<int64_t>(i)}];
        }
      }
      EXPECT_EQ(TopByFirstKey(merged, descending, offset, limit),
                TopByFirstKey(exact, descending, offset, limit))
          << "descending " << descending << " offset " << offset;
      EXPECT_LT(kept_rows, rows.size() / 4) << "the filter dropped too few rows";
    }
  }
}

// Feeds `values` as Int64 key rows in batches of 4096; returns the rows kept.
size_t FeedKeyOrder(HashLimitFilter& filter, const std::vector<int64_t>& values) {
  size_t kept = 0;
  for (size_t start = 0; start < values.size(); start += 4096) {
    const size_t n = std::min<size_t>(4096, values.size() - start);
    auto k = std::make_shared<Column>(TypeId::kInt64);
    for (size_t i = 0; i < n; ++i) k->Append<int64_t>(values[start + i]);
    std::vector<uint8_t> mask(n);
    kept += filter.Filter({k}, n, mask.data());
  }
  return kept;
}

TEST(HashLimitFilterTest, ByKeyOrderFreezesOnlyWhenItDropsAlmostNothing) {
  // L distinct values and no more: nothing to drop, nothing evicted: frozen after the window.
  std::vector<int64_t> few;
  for (size_t i = 0; i < 2 * HashLimitFilter::kObservationRows; ++i) few.push_back(i % 3);
  HashLimitFilter full = HashLimitFilter::ByKeyOrder(3, 0, false);
  EXPECT_EQ(FeedKeyOrder(full, few), few.size());
  EXPECT_TRUE(full.frozen());
  // Random keys: most rows dropped, never frozen.
  std::mt19937_64 rng(5);
  std::vector<int64_t> random;
  for (size_t i = 0; i < 2 * HashLimitFilter::kObservationRows; ++i) random.push_back(rng() % 1000);
  HashLimitFilter tight = HashLimitFilter::ByKeyOrder(3, 0, false);
  EXPECT_LT(FeedKeyOrder(tight, random), random.size() / 10);
  EXPECT_FALSE(tight.frozen());
  // Ascending keys under DESC: every new value evicts one, nothing is dropped: frozen; the same
  // data ascending drops all but the first values.
  std::vector<int64_t> ascending;
  for (size_t i = 0; i < 2 * HashLimitFilter::kObservationRows; ++i) ascending.push_back(i / 100);
  HashLimitFilter descending = HashLimitFilter::ByKeyOrder(5, 0, true);
  EXPECT_EQ(FeedKeyOrder(descending, ascending), ascending.size());
  EXPECT_TRUE(descending.frozen());
  HashLimitFilter ascending_filter = HashLimitFilter::ByKeyOrder(5, 0, false);
  EXPECT_EQ(FeedKeyOrder(ascending_filter, ascending), 500u);
  EXPECT_FALSE(ascending_filter.frozen());
}

}  // namespace
}  // namespace granite::core
