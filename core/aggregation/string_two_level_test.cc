// String-key tables across the two-level conversion: TwoLevelHashMap::ConvertFrom keeps every key
// and group and reserves each sub-table for its share; the Aggregator's byte threshold counts the
// table, not the key arena; and results stay right through a conversion.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/aggregation/aggregator.h"
#include "core/aggregation/arena.h"
#include "core/aggregation/string_hash_map.h"
#include "core/aggregation/two_level_hash_map.h"
#include "core/hash.h"

namespace granite::core {
namespace {

std::string KeyOf(int i) { return "https://example.com/page/" + std::to_string(i * 7919); }

TEST(StringTwoLevelTest, ConvertFromKeepsKeysAndReservesSubTables) {
  constexpr int kKeys = 60000;
  Arena arena;
  StringHashMap single;
  for (int i = 0; i < kKeys; ++i) {
    std::string key = i % 3 == 0 ? std::to_string(i) : KeyOf(i);  // inline and arena keys
    KeyRef stored;
    ASSERT_EQ(single.FindOrInsert(key, HashBytes(key), static_cast<uint32_t>(i), arena, &stored),
              static_cast<uint32_t>(i));
  }
  TwoLevelHashMap<StringHashMap> two;
  two.ConvertFrom(single);
  ASSERT_EQ(two.size(), static_cast<size_t>(kKeys));
  for (uint32_t b = 0; b < kBucketCount; ++b) {
    EXPECT_GT(two.bucket(b).size(), 0u) << b;  // ~234 keys each
    EXPECT_LE(two.bucket(b).size() * 2, two.bucket(b).capacity()) << b;
  }
  for (int i = 0; i < kKeys; ++i) {
    std::string key = i % 3 == 0 ? std::to_string(i) : KeyOf(i);
    uint64_t hash = HashBytes(key);
    KeyRef stored;
    // A present key returns its group; kEmpty - 1 would be the group of an absent one.
    ASSERT_EQ(two.sub(hash).FindOrInsert(key, hash, StringHashMap::kEmpty - 1, arena, &stored),
              static_cast<uint32_t>(i))
        << key;
  }
  EXPECT_EQ(two.size(), static_cast<size_t>(kKeys));
}

// Adds `count` rows of keys key_of(first .. first + count) to `aggregator` (count()).
template <typename KeyOfFn>
void AddKeys(Aggregator& aggregator, int first, int count, KeyOfFn key_of) {
  auto column = std::make_shared<Column>(TypeId::kString);
  for (int i = first; i < first + count; ++i) column->AppendString(key_of(i));
  ASSERT_TRUE(aggregator.Add({column}, {{}}, static_cast<size_t>(count)).ok());
}

TEST(StringTwoLevelTest, ByteThresholdCountsTableNotKeyArena) {
  AggregatorOptions options;
  options.two_level_threshold = 0;
  options.two_level_threshold_bytes = size_t{1} << 20;  // 1 MiB
  auto created = Aggregator::Create({TypeId::kString}, {{"count", {}}}, options);
  ASSERT_TRUE(created.ok()) << created.status();
  Aggregator& aggregator = **created;
  // 2000 keys of 2 KiB: ~4 MiB of key arena, but a table of 4096 slots (96 KiB) plus 32 KiB of
  // KeyRefs and 16 KiB of hashes: stays single-level.
  auto long_key = [](int i) { return std::string(2048, 'x') + std::to_string(i); };
  AddKeys(aggregator, 0, 2000, long_key);
  AddKeys(aggregator, 0, 2000, long_key);
  EXPECT_GE(aggregator.MemoryBytes(), size_t{4} << 20);
  EXPECT_FALSE(aggregator.two_level());
  // 60000 more short keys: the table itself passes 1 MiB and converts.
  AddKeys(aggregator, 0, 60000, [](int i) { return KeyOf(i); });
  EXPECT_TRUE(aggregator.two_level());
  AddKeys(aggregator, 0, 60000, [](int i) { return KeyOf(i); });
  auto result = aggregator.Finalize();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->rows(), 62000u);
  std::map<std::string, uint64_t> counts;
  for (size_t r = 0; r < result->rows(); ++r) {
    counts[std::string(result->columns[0]->StringAt(r))] = result->columns[1]->Data<uint64_t>()[r];
  }
  ASSERT_EQ(counts.size(), 62000u);
  EXPECT_EQ(counts[long_key(1999)], 2u);
  EXPECT_EQ(counts[KeyOf(0)], 2u);
  EXPECT_EQ(counts[KeyOf(59999)], 2u);
}

// One String key in batches of 5000 rows, past the size where slots and long keys are prefetched
// (16384 groups), single-level and two-level, through Add and AddSelected: every row lands in its
// key's group (the two prefetch stages are hints only: a prefetched slot of another hash changes
// nothing).
TEST(StringTwoLevelTest, LongBatchesOfRepeatedKeysCountEveryRow) {
  for (bool two_level : {false, true}) {
    AggregatorOptions options;
    if (two_level) options.two_level_threshold = 1000;
    auto created = Aggregator::Create({TypeId::kString}, {{"count", {}}}, options);
    ASSERT_TRUE(created.ok()) << created.status();
    Aggregator& aggregator = **created;
    constexpr int kKeys = 40000;
    // Short (inline) and long (arena) keys, each key i seen (i % 3) + 1 times in all.
    auto key_of = [](int i) { return i % 5 == 0 ? std::to_string(i) : KeyOf(i); };
    std::map<std::string, uint64_t> expected;
    std::vector<std::string> rows;
    for (int i = 0; i < kKeys; ++i) {
      for (int k = 0; k <= i % 3; ++k) rows.push_back(key_of((i * 7 + k * 13) % kKeys));
    }
    constexpr size_t kBatch = 5000;
    for (size_t from = 0; from < rows.size(); from += kBatch) {
      const size_t n = std::min(kBatch, rows.size() - from);
      auto column = std::make_shared<Column>(TypeId::kString);
      for (size_t r = 0; r < n; ++r) column->AppendString(rows[from + r]);
      if ((from / kBatch) % 2 == 0) {
        for (size_t r = 0; r < n; ++r) ++expected[rows[from + r]];
        ASSERT_TRUE(aggregator.Add({column}, {{}}, n).ok());
      } else {  // every other row of the batch, read in place
        std::vector<uint32_t> selection;
        for (size_t r = 1; r < n; r += 2) {
          selection.push_back(static_cast<uint32_t>(r));
          ++expected[rows[from + r]];
        }
        ASSERT_TRUE(
            aggregator.AddSelected({column}, {{}}, selection.data(), selection.size()).ok());
      }
    }
    EXPECT_EQ(aggregator.two_level(), two_level);
    auto result = aggregator.Finalize();
    ASSERT_TRUE(result.ok()) << result.status();
    std::map<std::string, uint64_t> counts;
    for (size_t r = 0; r < result->rows(); ++r) {
      counts[std::string(result->columns[0]->StringAt(r))] =
          result->columns[1]->Data<uint64_t>()[r];
    }
    EXPECT_EQ(counts, expected) << "two_level " << two_level;
  }
}

}  // namespace
}  // namespace granite::core
