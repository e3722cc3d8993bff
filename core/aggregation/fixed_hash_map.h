// FixedHashMap: the GROUP BY "table" for keys of at most 16 bits (UInt8, Int8, UInt16, Int16, Date)
// and the small-value side of the 64-bit key table. No hashing, no probing: the key's unsigned
// value indexes an array of 2^16 group ids (256 KiB, allocated on first use).
//
// It tracks the lowest and highest occupied index, so clearing and iterating touch only
// [min, max], and a parallel merge of several threads' maps splits exactly that range into
// disjoint key ranges, one task each, with no hashing and no shared state (FixedRangeMerger in
// local_merger.cc).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace granite::core {

// Maps 16-bit key indexes to uint32 group ids.
// Thread-safety: none; one thread per map.
// Invariants: every occupied index lies in [min(), max()]; empty() iff no index is occupied.
class FixedHashMap {
 public:
  static constexpr uint32_t kEmpty = 0xffffffffu;
  static constexpr uint32_t kSize = 1u << 16;

  // Returns the group of `index`, inserting `new_group` if it has none.
  // REQUIRES: index < kSize; new_group != kEmpty.
  uint32_t FindOrInsert(uint32_t index, uint32_t new_group) {
    if (groups_.empty()) groups_.assign(kSize, kEmpty);
    uint32_t group = groups_[index];
    if (group != kEmpty) return group;
    groups_[index] = new_group;
    min_ = std::min(min_, index);
    max_ = std::max(max_, index);
    return new_group;
  }

  // Returns the group of `index`, or kEmpty. REQUIRES: index < kSize.
  uint32_t Find(uint32_t index) const { return groups_.empty() ? kEmpty : groups_[index]; }

  // Returns the raw array (kSize entries) for tight loops, allocating it first.
  uint32_t* Data() {
    if (groups_.empty()) groups_.assign(kSize, kEmpty);
    return groups_.data();
  }
  // Records that `index` became occupied through Data(). REQUIRES: index < kSize.
  void NoteOccupied(uint32_t index) {
    min_ = std::min(min_, index);
    max_ = std::max(max_, index);
  }

  bool empty() const { return min_ > max_; }
  uint32_t min() const { return min_; }
  uint32_t max() const { return max_; }

  // Calls fn(index, group) for every occupied index in [lo, hi), in index order.
  template <typename F>
  void ForEachInRange(uint32_t lo, uint32_t hi, F&& fn) const {
    if (empty()) return;
    lo = std::max(lo, min_);
    hi = std::min(hi, max_ + 1);
    for (uint32_t i = lo; i < hi; ++i) {
      if (groups_[i] != kEmpty) fn(i, groups_[i]);
    }
  }

  // Empties the map, touching only [min, max]; keeps the array.
  void Clear() {
    if (!empty()) std::fill(groups_.begin() + min_, groups_.begin() + max_ + 1, kEmpty);
    min_ = UINT32_MAX;
    max_ = 0;
  }

  size_t MemoryBytes() const { return groups_.capacity() * sizeof(uint32_t); }

 private:
  std::vector<uint32_t> groups_;  // empty until first use
  uint32_t min_ = UINT32_MAX;
  uint32_t max_ = 0;
};

}  // namespace granite::core
