#include "core/functions/hash_algorithms.h"

#include <gtest/gtest.h>

#include <string>

namespace granite::core {
namespace {

uint64_t City(const std::string& s) { return CityHash64V102(s.data(), s.size()); }

// Expected values are ClickHouse's (chdb 4.4): cityHash64, sipHash64, murmurHash3_64,
// murmurHash2_32, intHash64, intHash32.
TEST(HashAlgorithmsTest, CityHash64MatchesClickHouseForEveryLengthClass) {
  EXPECT_EQ(City(""), 11160318154034397263ULL);
  EXPECT_EQ(City("abc"), 4220206313085259313ULL);
  EXPECT_EQ(City(std::string(100, 'x')), 8273723555210364035ULL);
}

TEST(HashAlgorithmsTest, OtherHashesMatchClickHouse) {
  EXPECT_EQ(SipHash64("abc", 3), 4596069200710135518ULL);
  uint64_t murmur[2];
  MurmurHash3_128("abc", 3, 0, murmur);
  EXPECT_EQ(murmur[0] ^ murmur[1], 10318955651176813877ULL);
  EXPECT_EQ(MurmurHash2_32("abc", 3, 0), 324500635u);
  EXPECT_EQ(IntHash64(12345), 16722121143744093920ULL);
  EXPECT_EQ(IntHash32(1), 1343103100u);
}

}  // namespace
}  // namespace granite::core
