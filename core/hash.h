// The one 64-bit hash of group keys, used by workers to split partial states into buckets and by the
// coordinator to merge them: the same function on both sides, stable across processes.
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

inline uint64_t HashBytes(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

// Combines the hash of one more key column into `seed`.
inline uint64_t HashCombine(uint64_t seed, uint64_t h) {
  return HashInt(seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

// Returns the bucket of a key hash: its top bits, independent of the slot bits hash tables use.
inline uint32_t BucketOf(uint64_t hash) { return static_cast<uint32_t>(hash >> (64 - kBucketBits)); }

}  // namespace granite::core
