// StringHashSet: the set of distinct strings behind uniqExact / COUNT(DISTINCT s) of a String
// argument (uniq_exact_function.cc).
//
// Algorithm: open addressing with linear probing over a power-of-two array of 16-byte slots
// {data, size, low 32 bits of the hash}; a null data pointer marks an empty slot. The caller
// passes the hash (core::HashBytes of the bytes), so a batch hashes first and prefetches slots a
// few rows ahead; a probe compares the saved hash bits and the size before touching the bytes, and
// growth and set-to-set merges (InsertAllFrom) place slots by their saved bits without reading or
// rehashing the strings. The slot comes from the LOW hash bits (the saved ones: capacity stays
// below 2^32); the TOP 8 bits name the value's part (core::BucketOf) when a big state is split.
// Load factor at most 1/2; 16 slots first, 4x growth below 2^16 slots and 2x above (like
// IntHashSet). Arrays come from the owner's SlotPool when one is set.
//
// Written instead of absl::flat_hash_set<std::string_view>: that set keeps no hash, so every
// probe of a colliding group and every rehash reads the strings (a cache miss each), and a merge
// hashes every string again.
//
// Strings are not owned: Insert copies new ones into the caller's Arena, InsertKept stores a view
// of bytes that must outlive the set (another set's arena of the same query).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "core/aggregation/arena.h"
#include "core/aggregation/slot_pool.h"

namespace granite::core {

// Holds distinct byte strings.
// Thread-safety: none.
// Invariants: capacity() is 0 or a power of two >= 16 and < 2^32; size() <= capacity() / 2.
class StringHashSet {
 public:
  StringHashSet() = default;
  // Moves the values; the new set keeps other's pool (the pool stays with the owner's storage).
  StringHashSet(StringHashSet&& other) noexcept : pool_(other.pool_) { Swap(other); }
  StringHashSet& operator=(StringHashSet&& other) noexcept {
    Swap(other);
    return *this;
  }
  StringHashSet(const StringHashSet&) = delete;
  StringHashSet& operator=(const StringHashSet&) = delete;
  ~StringHashSet() { SlotPool::Release(pool_, slots_, capacity() * sizeof(Slot)); }

  // Takes arrays from `pool` from now on (null: malloc / free). The pool must outlive the set.
  void set_pool(SlotPool* pool) { pool_ = pool; }

  // Inserts `value`, copying it into `arena` if new. REQUIRES: hash == HashBytes(value).
  __attribute__((always_inline)) void Insert(std::string_view value, uint64_t hash,
                                             Arena& arena) {
    Slot* slot = Find(value, static_cast<uint32_t>(hash));
    if (slot->data != nullptr) return;
    *slot = Slot{arena.Copy(value).data(), static_cast<uint32_t>(value.size()),
                 static_cast<uint32_t>(hash)};
    if (++size_ * 2 > mask_ + 1) Grow();
  }

  // Inserts `value` without copying it. REQUIRES: hash == HashBytes(value); the bytes outlive
  // the set.
  void InsertKept(std::string_view value, uint64_t hash) {
    Slot* slot = Find(value, static_cast<uint32_t>(hash));
    if (slot->data != nullptr) return;
    *slot = Slot{value.data() == nullptr ? kEmptyBytes : value.data(),
                 static_cast<uint32_t>(value.size()), static_cast<uint32_t>(hash)};
    if (++size_ * 2 > mask_ + 1) Grow();
  }

  // Inserts every value of `other` (whose bytes must outlive this set) by its saved hash bits.
  void InsertAllFrom(const StringHashSet& other);

  // Hints the CPU to load the slot of `hash`.
  __attribute__((always_inline)) void Prefetch(uint64_t hash) const {
    if (slots_ != nullptr) __builtin_prefetch(&slots_[hash & mask_]);
  }

  // Calls fn(value) for every value, in slot order; the views point into the arenas.
  template <typename F>
  void ForEach(F&& fn) const {
    for (size_t i = 0; slots_ != nullptr && i <= mask_; ++i) {
      if (slots_[i].data != nullptr) fn(std::string_view(slots_[i].data, slots_[i].size));
    }
  }

  // Makes room for `count` values in total without further growth.
  void Reserve(size_t count) {
    size_t capacity = kInitialCapacity;
    while (capacity < count * 2 + 2) capacity *= 2;
    if (capacity > this->capacity()) Rehash(capacity);
  }

  size_t size() const { return size_; }
  size_t capacity() const { return slots_ == nullptr ? 0 : mask_ + 1; }
  size_t MemoryBytes() const { return capacity() * sizeof(Slot); }

  // Swaps the values, not the pools.
  void Swap(StringHashSet& other) noexcept {
    std::swap(slots_, other.slots_);
    std::swap(mask_, other.mask_);
    std::swap(size_, other.size_);
  }

 private:
  struct Slot {
    const char* data;  // null: empty
    uint32_t size;
    uint32_t hash;  // the low 32 bits of the value's hash
  };
  static_assert(sizeof(Slot) == 16);

  static constexpr size_t kInitialCapacity = 16;
  static constexpr char kEmptyBytes[1] = {0};

  // Returns the slot holding `value`, or the empty slot where it belongs.
  __attribute__((always_inline)) Slot* Find(std::string_view value, uint32_t hash) {
    if (slots_ == nullptr) Rehash(kInitialCapacity);
    size_t pos = hash & mask_;
    auto size = static_cast<uint32_t>(value.size());
    while (true) {
      Slot* slot = &slots_[pos];
      if (slot->data == nullptr) return slot;
      if (slot->hash == hash && slot->size == size &&
          (size == 0 || std::memcmp(slot->data, value.data(), size) == 0)) {
        return slot;
      }
      pos = (pos + 1) & mask_;
    }
  }
  // Places a slot known to be absent.
  void Place(const Slot& slot) {
    size_t pos = slot.hash & mask_;
    while (slots_[pos].data != nullptr) pos = (pos + 1) & mask_;
    slots_[pos] = slot;
  }
  // Rehashes into a larger array (4x below 2^16 slots, 2x above).
  __attribute__((noinline)) void Grow() {
    size_t capacity = mask_ + 1;
    Rehash(capacity < (1u << 16) ? capacity * 4 : capacity * 2);
  }
  void Rehash(size_t capacity);

  SlotPool* pool_ = nullptr;
  Slot* slots_ = nullptr;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace granite::core
