// StringHashMap: the GROUP BY table for one String key and for several keys serialized into bytes.
// Maps key bytes to a dense group id.
//
// Algorithm: open addressing with linear probing over a power-of-two array of 24-byte slots
// {saved hash, key reference, group}; the array grows when half full, 4x below kQuadrupleCapacity
// slots and 2x above (a quarter of the moves; growth was 15-23% of a String GROUP BY, mostly
// first touches of fresh pages, which 4x growth does not reduce). The caller passes the key hash
// (HashBytes for one String key, the combined key hash for serialized keys); it is saved in the
// slot, so probes compare hashes before bytes and growth never rehashes.
// Short keys are cheap: a key of at most 8 bytes lives inside its KeyRef (no arena copy, compared
// as one 8-byte word); longer keys are copied once into the caller's per-thread Arena.
// An empty slot is all zero bytes (a slot stores ~group), so a new array is one memset: filling
// 24-byte {.., kEmpty} patterns with scalar stores was 10% of a String GROUP BY's profile (the
// coordinator's bucket merges size their tables up front, Reserve). Big arrays sit on huge pages
// (slot_array.h).
// The slot comes from the LOW hash bits (buckets and two-level sub-tables use the top bits).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "core/aggregation/arena.h"
#include "core/aggregation/slot_array.h"

namespace granite::core {

// A stored key: up to 8 bytes inline, otherwise a pointer into an arena.
struct KeyRef {
  static constexpr uint32_t kInlineBytes = 8;

  union {
    const char* data;
    uint64_t word;  // inline bytes, zero-padded
  };
  uint32_t size;

  // Returns a reference to `key`: inline when short, else to a copy in `arena`.
  static KeyRef Store(std::string_view key, Arena& arena) {
    KeyRef ref;
    ref.size = static_cast<uint32_t>(key.size());
    if (key.size() <= kInlineBytes) {
      ref.word = InlineWord(key);
    } else {
      ref.data = arena.Copy(key).data();
    }
    return ref;
  }
  // Returns the zero-padded first 8 bytes of a key of at most 8 bytes.
  static uint64_t InlineWord(std::string_view key) {
    uint64_t word = 0;
    if (!key.empty()) std::memcpy(&word, key.data(), key.size());
    return word;
  }
  // Returns the key bytes. The view of an inline key points into this KeyRef.
  std::string_view View() const {
    return size <= kInlineBytes ? std::string_view(reinterpret_cast<const char*>(&word), size)
                                : std::string_view(data, size);
  }
  bool Equals(std::string_view key) const {
    if (key.size() != size) return false;
    if (size <= kInlineBytes) return word == InlineWord(key);
    return std::memcmp(data, key.data(), size) == 0;
  }
};

// Maps byte strings to uint32 group ids.
// Thread-safety: none; one thread per map (and per arena).
// Invariants: capacity is a power of two; size() <= capacity / 2. Keys are shorter than 4 GiB.
class StringHashMap {
 public:
  static constexpr uint32_t kEmpty = 0xffffffffu;
  static constexpr size_t kQuadrupleCapacity = size_t{1} << 20;

  explicit StringHashMap(size_t initial_capacity = 256) { Reset(initial_capacity); }

  // Returns the group of `key`; if absent stores it (KeyRef::Store into `arena`), inserts it with
  // group `new_group` and returns that. `*stored` receives the stored key of a new group.
  // REQUIRES: `hash` is the same function of the key bytes for every call; new_group != kEmpty.
  uint32_t FindOrInsert(std::string_view key, uint64_t hash, uint32_t new_group, Arena& arena,
                        KeyRef* stored) {
    size_t pos = hash & mask_;
    while (true) {
      Slot& slot = slots_[pos];
      if (slot.Empty()) {
        *stored = KeyRef::Store(key, arena);
        slot = Slot::Of(*stored, hash, new_group);
        if (++size_ * 2 > capacity_) Grow();
        return new_group;
      }
      if (slot.hash == hash && slot.Key().Equals(key)) return slot.group();
      pos = (pos + 1) & mask_;
    }
  }

  // Inserts a stored key known to be absent (conversion to two-level).
  void InsertNew(const KeyRef& key, uint64_t hash, uint32_t group) {
    if ((size_ + 1) * 2 > capacity_) Grow();
    size_t pos = hash & mask_;
    while (!slots_[pos].Empty()) pos = (pos + 1) & mask_;
    slots_[pos] = Slot::Of(key, hash, group);
    ++size_;
  }

  // Hints the CPU to load the slot of `hash`.
  __attribute__((always_inline)) void Prefetch(uint64_t hash) const {
    __builtin_prefetch(&slots_[hash & mask_]);
  }
  // Second prefetch stage, some rows after Prefetch(hash) (its slot should be in cache by now):
  // if the slot of `hash` holds a key of that hash stored in the arena, hints the CPU to load the
  // first two cache lines of its bytes, which FindOrInsert compares on a hit. A long key that
  // repeats (a URL seen before) otherwise costs a cache miss in the arena on every hit.
  // Always inlined: GCC finds an out-of-line PrefetchKey pure (a prefetch is no side effect) and
  // drops the call, prefetches and all.
  __attribute__((always_inline)) void PrefetchKey(uint64_t hash) const {
    const Slot& slot = slots_[hash & mask_];
    if (slot.hash == hash && slot.size > KeyRef::kInlineBytes) {
      const char* data = reinterpret_cast<const char*>(slot.payload);
      __builtin_prefetch(data);
      __builtin_prefetch(data + 64);
    }
  }

  // Calls fn(key_ref, hash, group) for every key, in slot order.
  template <typename F>
  void ForEach(F&& fn) const {
    for (size_t i = 0; i < capacity_; ++i) {
      const Slot& slot = slots_[i];
      if (!slot.Empty()) fn(slot.Key(), slot.hash, slot.group());
    }
  }

  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  size_t MemoryBytes() const { return capacity_ * sizeof(Slot); }
  // Makes room for `keys` keys without growth. REQUIRES: the map is empty.
  void Reserve(size_t keys) {
    size_t capacity = capacity_;
    while (capacity < keys * 2) capacity *= 2;
    if (capacity > capacity_) Reset(capacity);
  }
  // Removes every key and shrinks to `initial_capacity` slots. Keys in arenas are not freed here.
  void Reset(size_t initial_capacity = 256);

 private:
  // A KeyRef flattened with the hash and the group into 24 bytes; all zero when empty.
  struct Slot {
    uint64_t hash;
    uint64_t payload;  // KeyRef::word or the bits of KeyRef::data
    uint32_t size;
    uint32_t inverted_group;  // ~group: 0 (~kEmpty) marks an empty slot

    static Slot Of(const KeyRef& key, uint64_t hash, uint32_t group) {
      return Slot{hash, key.word, key.size, ~group};
    }
    bool Empty() const { return inverted_group == 0; }
    uint32_t group() const { return ~inverted_group; }
    KeyRef Key() const {
      KeyRef key;
      key.word = payload;
      key.size = size;
      return key;
    }
  };
  static_assert(sizeof(Slot) == 24);

  // Grows the capacity (4x or 2x) and moves every slot by its saved hash.
  void Grow();
  SlotArray<Slot> slots_;
  size_t capacity_ = 0;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace granite::core
