// Tests of the GROUP BY tables (FixedHashMap, IntHashMap, UInt128HashMap, StringHashMap, the
// two-level variant), the distinct-value sets Int64HashSet and StringHashSet, and the Arena.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <random>
#include <string>

#include "core/aggregation/arena.h"
#include "core/aggregation/fixed_hash_map.h"
#include "core/aggregation/int_hash_set.h"
#include "core/aggregation/int_hash_map.h"
#include "core/aggregation/slot_pool.h"
#include "core/aggregation/string_hash_map.h"
#include "core/aggregation/string_hash_set.h"
#include "core/aggregation/two_level_hash_map.h"
#include "core/hash.h"

namespace granite::core {
namespace {

TEST(IntHashMapTest, AssignsDenseIdsAcrossGrowth) {
  IntHashMap map(4);
  std::map<uint64_t, uint32_t> reference;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200000; ++i) {
    uint64_t key = rng() % 50000 == 0 ? 0 : rng() % 60000;  // key 0 is a normal key
    auto next = static_cast<uint32_t>(reference.size());
    uint32_t group = map.FindOrInsert(key, HashIntKey(key), next);
    auto [it, inserted] = reference.emplace(key, next);
    ASSERT_EQ(group, it->second);
  }
  EXPECT_EQ(map.size(), reference.size());
  EXPECT_LE(map.size() * 2, map.capacity());
  map.Reset();
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.FindOrInsert(5, HashIntKey(5), 0), 0u);
}

TEST(IntHashMapTest, HugeReservedTableKeepsGroupsAcrossGrowth) {
  // 2^21 slots of 16 bytes: the array takes the huge-page path of SlotArray.
  IntHashMap map;
  map.Reserve(size_t{1} << 20);
  EXPECT_GE(map.capacity(), size_t{1} << 21);
  std::mt19937_64 rng(5);
  std::vector<uint64_t> keys(1500000);
  for (auto& key : keys) key = rng();
  for (uint32_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(map.FindOrInsert(keys[i], HashIntKey(keys[i]), i), i);
  }
  EXPECT_GE(map.capacity(), size_t{1} << 22);  // grew past the reservation
  for (uint32_t i = 0; i < keys.size(); i += 97) {
    ASSERT_EQ(map.FindOrInsert(keys[i], HashIntKey(keys[i]), 0xfffffffe), i);
  }
  EXPECT_EQ(map.size(), keys.size());
}

TEST(StringHashMapTest, CopiesKeysAndFindsThemAgain) {
  StringHashMap map(4);
  Arena arena;
  std::map<std::string, uint32_t> reference;
  std::vector<KeyRef> stored_keys;
  for (int i = 0; i < 30000; ++i) {
    std::string key = std::string(i % 17, 'k') + std::to_string(i % 7001);
    auto next = static_cast<uint32_t>(reference.size());
    KeyRef stored;
    uint32_t group = map.FindOrInsert(key, HashBytes(key), next, arena, &stored);
    if (group == next) stored_keys.push_back(stored);
    key.assign("clobbered");  // the map must hold its own copy
    auto [it, inserted] = reference.emplace(std::string(i % 17, 'k') + std::to_string(i % 7001),
                                            next);
    ASSERT_EQ(group, it->second);
  }
  EXPECT_EQ(map.size(), reference.size());
  for (const auto& [key, group] : reference) EXPECT_EQ(stored_keys[group].View(), key);
  KeyRef stored;
  EXPECT_EQ(map.FindOrInsert("", HashBytes(""), 99999, arena, &stored), 99999u);
  EXPECT_EQ(map.FindOrInsert("", HashBytes(""), 100000, arena, &stored), 99999u);
}

TEST(StringHashMapTest, ShortKeysStayInline) {
  StringHashMap map(4);
  Arena arena;
  KeyRef stored;
  // Keys of up to 8 bytes, including ones that differ only in trailing zero bytes.
  std::vector<std::string> keys = {"", std::string(1, '\0'), std::string(2, '\0'), "a",
                                   std::string("a\0", 2), "12345678"};
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(map.FindOrInsert(keys[i], HashBytes(keys[i]), i, arena, &stored), i) << i;
    EXPECT_EQ(stored.View(), keys[i]);
  }
  EXPECT_EQ(arena.BytesReserved(), 0u);  // nothing copied
  map.FindOrInsert("123456789", HashBytes("123456789"), 50, arena, &stored);
  EXPECT_GT(arena.BytesReserved(), 0u);
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(map.FindOrInsert(keys[i], HashBytes(keys[i]), 99, arena, &stored), i) << i;
  }
}

TEST(UInt128HashMapTest, AssignsDenseIds) {
  UInt128HashMap map(4);
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> reference;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 100000; ++i) {
    UInt128 key{rng() % 300, rng() % 300};
    auto next = static_cast<uint32_t>(reference.size());
    uint32_t group = map.FindOrInsert(key, HashUInt128(key), next);
    auto [it, inserted] = reference.emplace(std::make_pair(key.low, key.high), next);
    ASSERT_EQ(group, it->second);
  }
  EXPECT_EQ(map.size(), reference.size());
}

TEST(FixedHashMapTest, TracksOccupiedRange) {
  FixedHashMap map;
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.Find(7), FixedHashMap::kEmpty);
  EXPECT_EQ(map.FindOrInsert(300, 0), 0u);
  EXPECT_EQ(map.FindOrInsert(65535, 1), 1u);
  EXPECT_EQ(map.FindOrInsert(300, 2), 0u);
  EXPECT_EQ(map.FindOrInsert(12, 2), 2u);
  EXPECT_EQ(map.min(), 12u);
  EXPECT_EQ(map.max(), 65535u);
  std::vector<std::pair<uint32_t, uint32_t>> seen;
  map.ForEachInRange(13, 65535, [&](uint32_t i, uint32_t g) { seen.emplace_back(i, g); });
  EXPECT_EQ(seen, (std::vector<std::pair<uint32_t, uint32_t>>{{300, 0}}));
  map.Clear();
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.Find(300), FixedHashMap::kEmpty);
  EXPECT_EQ(map.Find(65535), FixedHashMap::kEmpty);
}

TEST(TwoLevelHashMapTest, ConversionKeepsGroupsAndSplitsByTopBits) {
  IntHashMap single(4);
  for (uint64_t key = 0; key < 20000; ++key) {
    single.FindOrInsert(key * 7, HashIntKey(key * 7), static_cast<uint32_t>(key));
  }
  TwoLevelHashMap<IntHashMap> two;
  two.ConvertFrom(single);
  EXPECT_EQ(two.size(), 20000u);
  for (uint32_t b = 0; b < kBucketCount; ++b) {
    two.bucket(b).ForEach([&](uint64_t key, uint64_t hash, uint32_t group) {
      EXPECT_EQ(BucketOf(hash), b);
      EXPECT_EQ(key, uint64_t{group} * 7);
    });
    // 20000 keys over 256 sub-tables: each gets some.
    EXPECT_GT(two.bucket(b).size(), 20u);
  }
  for (uint64_t key = 0; key < 20000; ++key) {
    uint64_t hash = HashIntKey(key * 7);
    ASSERT_EQ(two.sub(hash).FindOrInsert(key * 7, hash, 999999), key);
  }
  uint64_t hash = HashIntKey(1);
  EXPECT_EQ(two.sub(hash).FindOrInsert(1, hash, 999999), 999999u);
}

TEST(TwoLevelHashMapTest, StringConversionKeepsGroupsAndSplitsByTopBits) {
  StringHashMap single(4);
  Arena arena;
  KeyRef stored;
  for (uint32_t i = 0; i < 30000; ++i) {
    std::string key = "key-" + std::to_string(i);
    single.FindOrInsert(key, HashBytes(key), i, arena, &stored);
  }
  TwoLevelHashMap<StringHashMap> two;
  two.ConvertFrom(single);
  EXPECT_EQ(two.size(), 30000u);
  for (uint32_t b = 0; b < kBucketCount; ++b) {
    two.bucket(b).ForEach([&](const KeyRef& key, uint64_t hash, uint32_t group) {
      EXPECT_EQ(BucketOf(hash), b);
      EXPECT_EQ(key.View(), "key-" + std::to_string(group));
    });
  }
  for (uint32_t i = 0; i < 30000; ++i) {
    std::string key = "key-" + std::to_string(i);
    uint64_t hash = HashBytes(key);
    ASSERT_EQ(two.sub(hash).FindOrInsert(key, hash, 999999, arena, &stored), i);
  }
}

TEST(Int64HashSetTest, CountsDistinctValuesIncludingZero) {
  Int64HashSet set;
  std::set<uint64_t> reference;
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200000; ++i) {
    uint64_t value = rng() % 70000;
    set.Insert(value, HashIntKey(value));
    reference.insert(value);
  }
  EXPECT_EQ(set.size(), reference.size());
  EXPECT_LE(set.size() * 2, set.capacity() + 2);
  std::set<uint64_t> seen;
  set.ForEach([&](uint64_t value) { EXPECT_TRUE(seen.insert(value).second); });
  EXPECT_EQ(seen, reference);
  Int64HashSet moved = std::move(set);
  EXPECT_EQ(moved.size(), reference.size());
  EXPECT_EQ(set.size(), 0u);  // NOLINT: moved-from is empty by contract (swap)
}

TEST(Int64HashSetTest, PooledSetsRecycleArraysAndStayCorrect) {
  SlotPool pool;
  void* first = SlotPool::Allocate(&pool, 1024);
  static_cast<char*>(first)[5] = 7;
  pool.Release(first, 1024);
  void* again = SlotPool::Allocate(&pool, 1024);
  EXPECT_EQ(again, first);                       // recycled
  EXPECT_EQ(static_cast<char*>(again)[5], 0);    // and zeroed
  pool.Release(again, 1024);
  std::vector<Int32HashSet> sets(50);
  for (auto& set : sets) set.set_pool(&pool);
  for (uint32_t round = 0; round < 3; ++round) {
    for (size_t s = 0; s < sets.size(); ++s) {
      for (uint32_t v = 0; v < 3000; ++v) sets[s].Insert(v * 7 + s, HashIntKey(v * 7 + s));
    }
  }
  for (auto& set : sets) EXPECT_EQ(set.size(), 3000u);
  Int32HashSet other;
  other.Swap(sets[0]);  // contents move, pools stay
  EXPECT_EQ(other.size(), 3000u);
  EXPECT_EQ(sets[0].size(), 0u);
}

TEST(Int64HashSetTest, MovedSetKeepsValues) {
  Int64HashSet set;
  std::set<uint64_t> reference = {0, 1, 99};
  for (uint64_t v : reference) set.Insert(v, HashIntKey(v));
  Int64HashSet moved = std::move(set);
  EXPECT_EQ(moved.size(), reference.size());
  EXPECT_EQ(set.size(), 0u);  // NOLINT: moved-from is empty by contract (swap)
}

TEST(StringHashSetTest, PartialSetsMergedEqualOnePass) {
  // Random strings (empty, short, long, shared prefixes) split over three partial sets; merging
  // them by saved hash (InsertAllFrom) must equal one set filled in a single pass.
  std::mt19937_64 rng(23);
  std::vector<std::string> rows;
  for (int i = 0; i < 60000; ++i) {
    uint64_t id = rng() % 20000;
    rows.push_back(id % 97 == 0 ? std::string() : "prefix-" + std::to_string(id) +
                                                     std::string(id % 23, 'x'));
  }
  SlotPool pool;
  Arena arena;
  StringHashSet single;
  single.set_pool(&pool);
  StringHashSet parts[3];
  std::set<std::string> reference;
  for (size_t i = 0; i < rows.size(); ++i) {
    uint64_t hash = HashBytes(rows[i]);
    single.Insert(rows[i], hash, arena);
    parts[i % 3].Insert(rows[i], hash, arena);
    reference.insert(rows[i]);
  }
  EXPECT_EQ(single.size(), reference.size());
  EXPECT_LE(single.size() * 2, single.capacity());
  StringHashSet merged;
  merged.InsertAllFrom(parts[0]);
  merged.InsertAllFrom(parts[1]);
  merged.InsertAllFrom(parts[2]);
  merged.InsertAllFrom(parts[2]);  // twice: nothing new
  merged.InsertKept(rows[5], HashBytes(rows[5]));
  EXPECT_EQ(merged.size(), reference.size());
  std::set<std::string> seen;
  merged.ForEach([&](std::string_view value) {
    EXPECT_TRUE(seen.insert(std::string(value)).second) << value;
  });
  EXPECT_EQ(seen, reference);
  seen.clear();
  single.ForEach([&](std::string_view value) { seen.insert(std::string(value)); });
  EXPECT_EQ(seen, reference);
  // Moves and swaps carry the values, the pool stays.
  StringHashSet moved = std::move(single);
  EXPECT_EQ(moved.size(), reference.size());
  EXPECT_EQ(single.size(), 0u);  // NOLINT: moved-from is empty by contract (swap)
  single.Insert("again", HashBytes("again"), arena);
  EXPECT_EQ(single.size(), 1u);
}

TEST(StringHashSetTest, SameHashBitsDifferentBytesStayDistinct) {
  // Values inserted with one forced hash: only the size and bytes tell them apart.
  Arena arena;
  StringHashSet set;
  std::vector<std::string> values = {"", "a", "b", "ab", "ba", "abcdefghijklmnopq",
                                     "abcdefghijklmnopr"};
  for (int round = 0; round < 2; ++round) {
    for (const std::string& value : values) set.Insert(value, 42, arena);
  }
  EXPECT_EQ(set.size(), values.size());
  set.Reserve(1000);
  EXPECT_GE(set.capacity(), 2000u);
  for (const std::string& value : values) set.Insert(value, 42, arena);
  EXPECT_EQ(set.size(), values.size());
}

TEST(ArenaTest, KeepsAllocationsValidAndAligned) {
  Arena arena;
  EXPECT_NE(arena.Allocate(0), nullptr);  // even before the first chunk
  std::vector<std::string_view> copies;
  for (int i = 0; i < 10000; ++i) {
    copies.push_back(arena.Copy(std::string(i % 300, static_cast<char>('a' + i % 26))));
  }
  for (int i = 0; i < 10000; ++i) {
    ASSERT_EQ(copies[i], std::string(i % 300, static_cast<char>('a' + i % 26)));
  }
  char* big = arena.Allocate(size_t{1} << 20);  // larger than a chunk
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big) % 8, 0u);
  EXPECT_NE(arena.Allocate(0), nullptr);
  EXPECT_GE(arena.BytesReserved(), size_t{1} << 20);
  arena.Clear();
  EXPECT_EQ(arena.BytesReserved(), 0u);
}

}  // namespace
}  // namespace granite::core
