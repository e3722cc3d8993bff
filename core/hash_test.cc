#include "core/hash.h"

#include <set>
#include <vector>

#include <gtest/gtest.h>

namespace granite::core {
namespace {

// Counts the distinct low `bits` bits among the hashes of `keys`.
size_t DistinctSlots(const std::vector<uint64_t>& keys, int bits) {
  std::set<uint64_t> slots;
  for (uint64_t key : keys) slots.insert(HashIntKey(key) & ((uint64_t{1} << bits) - 1));
  return slots.size();
}

// 2^14 keys in 2^16 slots fill ~14,500 distinct slots when the hash behaves randomly; CRC32 filled
// 4,096 for the IP-like keys below (a linear map of the few varying bits).
TEST(HashTest, HashIntKeySpreadsStructuredKeysOverSlots) {
  std::vector<std::vector<uint64_t>> families(5);
  for (uint64_t i = 0; i < (1 << 14); ++i) {
    families[0].push_back(i);                     // sequential
    families[1].push_back(0x0a000007 + 256 * i);  // IP-like: constant low byte
    families[2].push_back(i << 32);               // high word only
    families[3].push_back(i << 50);               // top bits only
    families[4].push_back(~uint64_t{0} - i);      // negative numbers
  }
  for (size_t f = 0; f < families.size(); ++f) {
    EXPECT_GT(DistinctSlots(families[f], 16), 13000u) << "family " << f;
  }
}

TEST(HashTest, HashIntKeyBucketsAndSlotsAreIndependent) {
  // Within one bucket (top 8 bits) sequential keys still spread over the low byte, so the
  // sub-tables of a two-level table and the parts of a uniqExact set fill evenly.
  std::vector<std::set<uint64_t>> slots(kBucketCount);
  for (uint64_t x = 0; x < (1 << 16); ++x) {
    uint64_t h = HashIntKey(x);
    slots[BucketOf(h)].insert(h & 0xff);
  }
  for (const auto& bucket_slots : slots) EXPECT_GT(bucket_slots.size(), 120u);
}

TEST(HashTest, HashIntKeyOf128BitsUsesBothHalves) {
  EXPECT_NE(HashIntKey(1, 0), HashIntKey(0, 1));
  EXPECT_NE(HashIntKey(1, 2), HashIntKey(1, 3));
  EXPECT_EQ(HashIntKey(7, 9), HashIntKey(7, 9));
}

TEST(HashTest, HashesArePinned) {
  // Buckets must agree between processes of different builds, and HashInt places rows on shards
  // (stored data): pin both definitions.
  EXPECT_EQ(HashInt(1), 0xb456bcfc34c2cb2cULL);
  EXPECT_EQ(HashIntKey(0), 0u);
  EXPECT_EQ(HashIntKey(1), 0xbf584768e626ded1ULL);
}

}  // namespace
}  // namespace granite::core
