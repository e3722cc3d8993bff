// The hash algorithms behind ClickHouse's hash functions, bit-exact with ClickHouse's results:
// CityHash64 in its version 1.0.2 (the one ClickHouse embeds, which later CityHash releases
// changed), SipHash-2-4 with a zero key, MurmurHash2 (32 and 64A) and MurmurHash3 (x86_32 and
// x64_128), Java's String.hashCode and Hive's variant, and ClickHouse's intHash32 / intHash64.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace granite::core {

uint64_t CityHash64V102(const char* s, size_t len);
// CityHash's Hash128to64, which ClickHouse uses to combine the hashes of several arguments.
uint64_t CityHash128To64(uint64_t low, uint64_t high);
uint64_t SipHash64(const char* s, size_t len);
uint32_t MurmurHash2_32(const char* s, size_t len, uint32_t seed);
uint64_t MurmurHash2_64(const char* s, size_t len, uint64_t seed);
uint32_t MurmurHash3_32(const char* s, size_t len, uint32_t seed);
void MurmurHash3_128(const char* s, size_t len, uint32_t seed, uint64_t out[2]);
uint64_t IntHash64(uint64_t x);
uint64_t IntHash32(uint64_t x);

}  // namespace granite::core
