// IntHashMap: the GROUP BY table for one fixed-width key of up to 8 bytes. Maps the widened key
// (WidenKey) to a dense group id with open addressing and linear probing. The hash is the key hash
// (HashInt of the widened key); the slot comes from its LOW bits while buckets (core::BucketOf)
// use the top bits, so a later two-level table can split by bucket without skewing its slots.
// Hashes are not stored: recomputing HashInt on growth is cheaper than the extra 8 bytes a slot.
#pragma once

#include <cstdint>
#include <vector>

#include "core/hash.h"

namespace granite::core {

// Maps uint64 keys to uint32 group ids.
// Thread-safety: none; one thread per map.
// Invariants: capacity is a power of two; size() <= capacity / 2 (load factor at most 0.5).
class IntHashMap {
 public:
  static constexpr uint32_t kEmpty = 0xffffffffu;

  explicit IntHashMap(size_t initial_capacity = 256) { Reset(initial_capacity); }

  // Returns the group of `key`; if absent inserts it with group `new_group` and returns that.
  // REQUIRES: hash == HashInt(key); new_group != kEmpty.
  uint32_t FindOrInsert(uint64_t key, uint64_t hash, uint32_t new_group) {
    size_t pos = hash & mask_;
    while (true) {
      Slot& slot = slots_[pos];
      if (slot.group == kEmpty) {
        slot.key = key;
        slot.group = new_group;
        if (++size_ * 2 > slots_.size()) Grow();
        return new_group;
      }
      if (slot.key == key) return slot.group;
      pos = (pos + 1) & mask_;
    }
  }

  // Hints the CPU to load the slot of `hash` (issue a few rows ahead of FindOrInsert).
  void Prefetch(uint64_t hash) const { __builtin_prefetch(&slots_[hash & mask_]); }

  size_t size() const { return size_; }
  size_t capacity() const { return slots_.size(); }
  // Removes every key and shrinks to `initial_capacity` slots.
  void Reset(size_t initial_capacity = 256);

 private:
  struct Slot {
    uint64_t key;
    uint32_t group;
  };

  // Doubles the capacity and reinserts every key.
  void Grow();

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace granite::core
