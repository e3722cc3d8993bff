// UniquesHashSet: the state of uniq(x), an approximate distinct count by adaptive sampling (the
// algorithm of ClickHouse's uniq, after Flajolet's "adaptive sampling").
//
// Algorithm: every value is reduced to a 32-bit hash. The set keeps the distinct hashes whose low
// `skip_degree` bits are zero, in an open-addressing table of up to 2^17 slots. While at most
// kMaxSize (2^16) hashes are kept, skip_degree stays 0 and the count is exact (up to 32-bit hash
// collisions). When the set would hold more, skip_degree rises by one and every kept hash with a
// non-zero bit at the new position is dropped (about half), until the set fits again.
// Estimate: size * 2^skip_degree, corrected for 32-bit collisions: n = -2^32 * ln(1 - D / 2^32).
//
// Error bound: once sampling, the set holds K in (2^15, 2^16] hashes, each distinct value being kept
// with probability 2^-skip_degree independently, so the relative standard error is about
// 1 / sqrt(K) <= 0.56% (0.4% near K = 2^16); the 1% bound holds at about two standard deviations.
// Below 65536 distinct values the count is exact except for hash collisions (about n^2 / 2^33).
//
// Merging is exact: the merged state equals the state of a single set fed both inputs, whatever
// the order, because the final skip_degree is the smallest one at which the union fits.
// Memory: 4 bytes per slot, at most 512 KiB per set; small sets start with 8 slots.
//
// Serialized forms (versioned): 1 = full set (mergeable); 2 = final-only summary (skip_degree and
// count, no hashes), written when this process holds the group's only state (one worker): it can
// be finalized, and merged into an empty set, but not merged with another non-empty set.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace granite::core {

// Counts distinct 32-bit hashes approximately, exactly while they are few.
// Thread-safety: none.
class UniquesHashSet {
 public:
  static constexpr int kMaxSizeDegree = 17;
  static constexpr uint32_t kMaxSize = 1u << (kMaxSizeDegree - 1);
  static constexpr int kInitialSizeDegree = 3;

  UniquesHashSet() = default;
  UniquesHashSet(UniquesHashSet&&) = default;
  UniquesHashSet& operator=(UniquesHashSet&&) = default;

  // Adds one value's hash.
  void Insert(uint32_t hash);
  // Adds every hash kept by `other`.
  void Merge(const UniquesHashSet& other);
  // Merges `other` into this set, consuming it: an empty side is swapped rather than copied, and
  // the smaller set is inserted into the larger. A final-only set merged with a non-empty set keeps
  // the larger estimate (callers never do this: final-only states meet only empty ones).
  void MergeConsuming(UniquesHashSet& other);
  // Returns the estimated number of distinct values inserted.
  uint64_t Estimate() const;

  // Appends the serialized set: version byte (1), skip_degree byte, varint count, then count
  // 32-bit little-endian hashes.
  void Serialize(std::string* out) const;
  // Appends the final-only summary: version byte (2), skip_degree byte, varint count.
  void SerializeFinalOnly(std::string* out) const;
  // Merges a serialized set into this one. Fails with CORRUPTED_DATA on malformed bytes, and with
  // LOGICAL_ERROR when a final-only summary meets a non-empty set.
  absl::Status MergeSerialized(std::string_view bytes);

  // Returns the bytes of the table.
  size_t MemoryBytes() const { return size_degree_ == 0 ? 0 : (size_t{4} << size_degree_); }
  // Returns the number of hashes kept.
  uint32_t size() const { return count_; }
  int skip_degree() const { return skip_degree_; }

 private:
  bool Good(uint32_t hash) const { return (hash & ((1u << skip_degree_) - 1)) == 0; }
  uint32_t Slot(uint32_t hash) const {
    return static_cast<uint32_t>(hash * 0x9E3779B1u) >> (32 - size_degree_);
  }
  // Inserts a non-zero hash already known to be Good(); returns true if it was new.
  bool InsertIntoTable(uint32_t hash);
  // Grows the table or raises skip_degree_ when the set is over its fill limit.
  void ShrinkIfNeeded();
  // Rebuilds the table with 2^new_degree slots, dropping hashes that are no longer Good().
  void Rehash(int new_degree);

  std::unique_ptr<uint32_t[]> table_;  // 0 marks an empty slot; hash 0 is has_zero_
  uint32_t count_ = 0;                 // hashes kept, including zero
  uint8_t size_degree_ = 0;            // 0: no table yet
  uint8_t skip_degree_ = 0;
  bool has_zero_ = false;
  bool final_only_ = false;  // count_ and skip_degree_ only; no table
};

}  // namespace granite::core
