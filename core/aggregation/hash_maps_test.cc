// Tests of the GROUP BY tables (IntHashMap, StringHashMap) and their Arena.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "core/aggregation/arena.h"
#include "core/aggregation/int_hash_map.h"
#include "core/aggregation/string_hash_map.h"
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
    uint32_t group = map.FindOrInsert(key, HashInt(key), next);
    auto [it, inserted] = reference.emplace(key, next);
    ASSERT_EQ(group, it->second);
  }
  EXPECT_EQ(map.size(), reference.size());
  EXPECT_LE(map.size() * 2, map.capacity());
  map.Reset();
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.FindOrInsert(5, HashInt(5), 0), 0u);
}

TEST(StringHashMapTest, CopiesKeysAndFindsThemAgain) {
  StringHashMap map(4);
  std::map<std::string, uint32_t> reference;
  for (int i = 0; i < 30000; ++i) {
    std::string key = std::string(i % 17, 'k') + std::to_string(i % 7001);
    auto next = static_cast<uint32_t>(reference.size());
    uint32_t group = map.FindOrInsert(key, HashBytes(key), next);
    key.assign("clobbered");  // the map must hold its own copy
    auto [it, inserted] = reference.emplace(std::string(i % 17, 'k') + std::to_string(i % 7001),
                                            next);
    ASSERT_EQ(group, it->second);
  }
  EXPECT_EQ(map.size(), reference.size());
  EXPECT_EQ(map.FindOrInsert("", HashBytes(""), 99999), 99999u);
  EXPECT_EQ(map.FindOrInsert("", HashBytes(""), 100000), 99999u);
}

TEST(ArenaTest, KeepsAllocationsValidAndAligned) {
  Arena arena;
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
