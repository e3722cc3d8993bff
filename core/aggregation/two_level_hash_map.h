// TwoLevelHashMap<Map>: kBucketCount (256) sub-tables of type Map (IntHashMap, UInt128HashMap,
// StringHashMap); a key goes to sub-table BucketOf(hash), the TOP 8 bits of its hash, while each
// sub-table takes its slot from the LOW bits, so the two choices are independent and every
// sub-table stays evenly filled.
//
// Why: a big single-level table doubles by rehashing everything at once (a pause, and old + new
// arrays alive together); a two-level table grows one small sub-table at a time, and its
// sub-table b holds exactly the groups of output bucket b. An Aggregator starts single-level and
// converts (ConvertFrom) once it passes group_by_two_level_threshold groups or
// group_by_two_level_threshold_bytes bytes; the payoff is measured in bench/results.
#pragma once

#include <cstdint>
#include <vector>

#include "core/hash.h"

namespace granite::core {

// Routes keys to one of kBucketCount sub-tables by the top bits of their hash.
// Thread-safety: none; one thread per map.
template <typename Map>
class TwoLevelHashMap {
 public:
  static constexpr uint32_t kEmpty = Map::kEmpty;

  explicit TwoLevelHashMap(size_t sub_capacity = 4) {
    subs_.reserve(kBucketCount);
    for (uint32_t b = 0; b < kBucketCount; ++b) {
      subs_.emplace_back(sub_capacity);
      if constexpr (requires(Map& m) { m.SetDense(); }) subs_.back().SetDense();
    }
  }

  // Makes room for `keys` keys in every sub-table without growth. REQUIRES: the map is empty.
  void Reserve(size_t keys) {
    for (Map& sub : subs_) sub.Reserve(keys);
  }

  // Returns the sub-table of a key with hash `hash`; callers FindOrInsert there.
  Map& sub(uint64_t hash) { return subs_[BucketOf(hash)]; }
  const Map& bucket(uint32_t b) const { return subs_[b]; }
  // Always inlined, as the sub-tables' Prefetch: GCC finds an out-of-line call of it pure (a
  // prefetch is no side effect) and drops it, prefetch and all.
  __attribute__((always_inline)) void Prefetch(uint64_t hash) const {
    subs_[BucketOf(hash)].Prefetch(hash);
  }
  // StringHashMap only: its PrefetchKey in the key's sub-table.
  __attribute__((always_inline)) void PrefetchKey(uint64_t hash) const {
    subs_[BucketOf(hash)].PrefetchKey(hash);
  }

  // Moves every key of the single-level `single` here (single keeps its keys; Reset it after).
  // Every sub-table is first reserved for its share of the keys (within a few percent; one that
  // overflows just grows), so the move does not grow each sub-table from 4 slots by rehashing.
  // REQUIRES: this map is empty.
  void ConvertFrom(const Map& single) {
    size_t share = single.size() / kBucketCount;
    Reserve(share + share / 16 + 16);
    single.ForEach([&](const auto& key, uint64_t hash, uint32_t group) {
      subs_[BucketOf(hash)].InsertNew(key, hash, group);
    });
  }

  size_t size() const {
    size_t total = 0;
    for (const Map& sub : subs_) total += sub.size();
    return total;
  }
  size_t MemoryBytes() const {
    size_t total = 0;
    for (const Map& sub : subs_) total += sub.MemoryBytes();
    return total;
  }

 private:
  std::vector<Map> subs_;
};

}  // namespace granite::core
