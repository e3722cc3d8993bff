// StringHashMap: the GROUP BY table for one String key and for several keys serialized into bytes.
// Maps key bytes to a dense group id with open addressing and linear probing. The caller passes
// the key hash (HashBytes for one String key, the combined key hash for serialized keys); it is
// saved in the slot so probes compare hashes before bytes and growth needs no rehashing. Key bytes
// are copied into an arena owned by the map on insert. The slot comes from the LOW hash bits
// (buckets use the top bits).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "core/aggregation/arena.h"

namespace granite::core {

// Maps byte strings to uint32 group ids.
// Thread-safety: none; one thread per map.
// Invariants: capacity is a power of two; size() <= capacity / 2. Keys are shorter than 4 GiB.
class StringHashMap {
 public:
  static constexpr uint32_t kEmpty = 0xffffffffu;

  explicit StringHashMap(size_t initial_capacity = 256) { Reset(initial_capacity); }

  // Returns the group of `key`; if absent copies it into the arena, inserts it with group
  // `new_group` and returns that.
  // REQUIRES: `hash` is the same function of the key bytes for every call; new_group != kEmpty.
  uint32_t FindOrInsert(std::string_view key, uint64_t hash, uint32_t new_group) {
    size_t pos = hash & mask_;
    while (true) {
      Slot& slot = slots_[pos];
      if (slot.group == kEmpty) {
        std::string_view copy = arena_.Copy(key);
        slot = Slot{hash, copy.data(), static_cast<uint32_t>(copy.size()), new_group};
        if (++size_ * 2 > slots_.size()) Grow();
        return new_group;
      }
      if (slot.hash == hash && slot.size == key.size() &&
          std::memcmp(slot.data, key.data(), key.size()) == 0) {
        return slot.group;
      }
      pos = (pos + 1) & mask_;
    }
  }

  // Hints the CPU to load the slot of `hash`.
  void Prefetch(uint64_t hash) const { __builtin_prefetch(&slots_[hash & mask_]); }

  size_t size() const { return size_; }
  // Removes every key, frees the arena and shrinks to `initial_capacity` slots.
  void Reset(size_t initial_capacity = 256);

 private:
  struct Slot {
    uint64_t hash;
    const char* data;
    uint32_t size;
    uint32_t group;
  };

  // Doubles the capacity and moves every slot by its saved hash.
  void Grow();

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
  Arena arena_;
};

}  // namespace granite::core
