// IntHashMap / UInt128HashMap: the GROUP BY tables for one fixed-width key of up to 8 bytes (the
// widened key, WidenKey) and for several fixed-width keys packed into 64 or 128 bits
// (packed_keys.h). Each maps the key to a dense group id.
//
// Algorithm: open addressing with linear probing over a power-of-two array of slots {key, group};
// the array grows when a quarter full while small (< kDenseCapacity slots, i.e. 1 MiB) and when
// half full after, 4x below kQuadrupleCapacity slots (single-level) and 2x above. In a
// cache-resident table the cost is the mispredicted end of the probe loop, which the low load
// makes rare (measured: 1.5x faster at 1e3-1e5 keys), while big tables are bound by memory and
// keep the denser layout. The caller passes the key hash (core::HashIntKey of the 64-bit key,
// HashUInt128 of a 128-bit one): computed inside the probe loop for a cache-resident table, for a
// whole batch first (to prefetch slots a few rows ahead) for a big one. The slot comes from the
// LOW hash bits while buckets (core::BucketOf) use the TOP bits, so the two-level variant
// (two_level_hash_map.h) picks its sub-table from bits the slots never use.
// Hashes are not stored: recomputing HashIntKey on growth is cheaper than 8 more bytes a slot.
// An empty slot is all zero bytes (a slot stores ~group), so a new array is one memset rather
// than a loop of {0, kEmpty} stores (string_hash_map.h); big arrays sit on huge pages
// (slot_array.h).
//
// Written instead of absl::flat_hash_map with a custom hasher: 16-byte slots and no control bytes,
// the hash computed once per row by the caller, a prefetch hook. bench/aggregation/hash_map_bench.cc
// compares the two (bench/results/).
#pragma once

#include <bit>
#include <cstdint>

#include "core/aggregation/slot_array.h"
#include "core/hash.h"

namespace granite::core {

// A 128-bit packed key.
struct UInt128 {
  uint64_t low;
  uint64_t high;
  bool operator==(const UInt128& other) const { return low == other.low && high == other.high; }
};

// The key hash of a 128-bit packed key.
inline uint64_t HashUInt128(UInt128 key) { return HashIntKey(key.low, key.high); }

inline uint64_t HashOfKey(uint64_t key) { return HashIntKey(key); }
inline uint64_t HashOfKey(UInt128 key) { return HashUInt128(key); }

// Maps Key (uint64_t or UInt128) to uint32 group ids.
// Thread-safety: none; one thread per map.
// Invariants: capacity is a power of two; size() <= capacity / 4 below kDenseCapacity slots,
// size() <= capacity / 2 above.
template <typename Key>
class IntHashMapT {
 public:
  static constexpr uint32_t kEmpty = 0xffffffffu;
  static constexpr size_t kDenseCapacity = size_t{1} << 16;
  static constexpr size_t kQuadrupleCapacity = size_t{1} << 20;

  explicit IntHashMapT(size_t initial_capacity = 256) { Reset(initial_capacity); }

  // Returns the group of `key`; if absent inserts it with group `new_group` and returns that.
  // REQUIRES: hash == HashOfKey(key); new_group != kEmpty.
  uint32_t FindOrInsert(Key key, uint64_t hash, uint32_t new_group) {
    size_t pos = hash & mask_;
    while (true) {
      Slot& slot = slots_[pos];
      if (slot.inverted_group == 0) {
        slot.key = key;
        slot.inverted_group = ~new_group;
        if (++size_ > limit_) Grow();
        return new_group;
      }
      if (slot.key == key) return ~slot.inverted_group;
      pos = (pos + 1) & mask_;
    }
  }

  // Returns the group of `key`, or kEmpty when it is absent. REQUIRES: hash == HashOfKey(key).
  uint32_t Find(Key key, uint64_t hash) const {
    size_t pos = hash & mask_;
    while (true) {
      const Slot& slot = slots_[pos];
      if (slot.inverted_group == 0) return kEmpty;
      if (slot.key == key) return ~slot.inverted_group;
      pos = (pos + 1) & mask_;
    }
  }

  // Inserts a key known to be absent (conversion to two-level). REQUIRES: as FindOrInsert.
  void InsertNew(Key key, uint64_t hash, uint32_t group) {
    if (size_ + 1 > limit_) Grow();
    size_t pos = hash & mask_;
    while (slots_[pos].inverted_group != 0) pos = (pos + 1) & mask_;
    slots_[pos] = Slot{key, ~group};
    ++size_;
  }

  // Hints the CPU to load the slot of `hash` (issue a few rows ahead of FindOrInsert).
  __attribute__((always_inline)) void Prefetch(uint64_t hash) const {
    __builtin_prefetch(&slots_[hash & mask_]);
  }

  // Calls fn(key, hash, group) for every key, in slot order.
  template <typename F>
  void ForEach(F&& fn) const {
    for (size_t i = 0; i < capacity_; ++i) {
      const Slot& slot = slots_[i];
      if (slot.inverted_group != 0) fn(slot.key, HashOfKey(slot.key), ~slot.inverted_group);
    }
  }

  // Makes room for `keys` keys without growth. REQUIRES: the map is empty.
  void Reserve(size_t keys) {
    size_t capacity = capacity_;
    while (LimitOf(capacity) < keys) capacity *= 2;
    if (capacity > capacity_) Reset(capacity);
  }

  // Keeps the load factor at 1/2 whatever the capacity: sub-tables of a two-level table are
  // small but together as big as the single-level table they replace.
  void SetDense() {
    dense_ = true;
    limit_ = LimitOf(capacity_);
  }

  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  size_t MemoryBytes() const { return capacity_ * sizeof(Slot); }

  // Removes every key and shrinks to `initial_capacity` slots (rounded up to a power of two).
  void Reset(size_t initial_capacity = 256) {
    size_t capacity = std::bit_ceil(initial_capacity < 4 ? size_t{4} : initial_capacity);
    SlotArray<Slot>(capacity).swap(slots_);
    capacity_ = capacity;
    mask_ = capacity - 1;
    size_ = 0;
    limit_ = LimitOf(capacity);
  }

 private:
  struct Slot {
    Key key;
    uint32_t inverted_group;  // ~group: 0 (~kEmpty) marks an empty slot
  };

  size_t LimitOf(size_t capacity) const {
    return capacity < kDenseCapacity && !dense_ ? capacity / 4 : capacity / 2;
  }

  // Quadruples the capacity below kQuadrupleCapacity slots and doubles it above, then reinserts
  // every key: a table growing to N keys moves ~N/3 keys instead of ~N (growth was 14% of
  // a two-integer-key GROUP BY), like ClickHouse's HashTableGrower. Sub-tables of a two-level table
  // (dense_) always double: quadrupling 256 of them cost 15-25% at 1e6-1e7 keys.
  void Grow() {
    size_t factor = capacity_ < kQuadrupleCapacity && !dense_ ? 4 : 2;
    SlotArray<Slot> old(capacity_ * factor);
    old.swap(slots_);
    size_t old_capacity = capacity_;
    capacity_ *= factor;
    mask_ = capacity_ - 1;
    limit_ = LimitOf(capacity_);
    for (size_t i = 0; i < old_capacity; ++i) {
      const Slot& slot = old[i];
      if (slot.inverted_group == 0) continue;
      size_t pos = HashOfKey(slot.key) & mask_;
      while (slots_[pos].inverted_group != 0) pos = (pos + 1) & mask_;
      slots_[pos] = slot;
    }
  }

  SlotArray<Slot> slots_;
  size_t capacity_ = 0;
  size_t mask_ = 0;
  size_t size_ = 0;
  size_t limit_ = 0;  // grow past this many keys
  bool dense_ = false;
};

using IntHashMap = IntHashMapT<uint64_t>;
using UInt128HashMap = IntHashMapT<UInt128>;

}  // namespace granite::core
