// The 64-bit hashes of group keys, used by workers to split partial states into buckets and by the
// coordinator to merge them: the same function on both sides, stable across processes.
//   HashInt     murmur3 finalizer; also places rows on shards (sharding_key.cc), so it never
//               changes. Used for combined and string-mixed keys and by uniq.
//   HashIntKey  one multiply between two xor-shifts (the first half of splitmix64's finalizer),
//               for integer GROUP BY keys (IntHashMap, packed keys) and the integer sets of
//               uniqExact: the hash is computed in the probe loop of cache-resident tables, where
//               murmur's second multiply cost ~10% (bench/results/aggregation-2026-11-22.md). Every
//               input bit still reaches the low (slot) and the top (BucketOf) bits. Not CRC32 as in
//               ClickHouse: CRC is linear, so keys varying in few bits fill few slots (keys
//               0x0a000007 + 256 i land on a quarter of the slots; sequential keys use 16 of the
//               256 low-byte values within one bucket), and it only saves ~2% more.
#pragma once

#include <cstdint>
#include <string_view>

#include <xxhash.h>

namespace granite::core {

inline constexpr int kBucketBits = 8;
inline constexpr uint32_t kBucketCount = 1u << kBucketBits;  // 256

// Mixes a 64-bit integer key (murmur3 finalizer): every input bit affects every output bit.
inline uint64_t HashInt(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// Hashes one integer GROUP BY key or uniqExact value (see the file comment).
inline uint64_t HashIntKey(uint64_t x) {
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ULL;
  return x ^ (x >> 29);
}

// Hashes a 128-bit packed key (low, high).
inline uint64_t HashIntKey(uint64_t low, uint64_t high) {
  return HashIntKey(HashIntKey(low) ^ high);
}

inline uint64_t HashBytes(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

// Combines the hash of one more key column into `seed`.
inline uint64_t HashCombine(uint64_t seed, uint64_t h) {
  return HashInt(seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

// Returns the bucket of a key hash: its top bits, independent of the slot bits hash tables use.
inline uint32_t BucketOf(uint64_t hash) { return static_cast<uint32_t>(hash >> (64 - kBucketBits)); }

}  // namespace granite::core
