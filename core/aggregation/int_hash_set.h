// IntHashSet<Slot>: the set of distinct integers behind uniqExact / COUNT(DISTINCT x) of
// fixed-width arguments: Int64HashSet (8-byte slots) for 8-byte types, Int32HashSet (4-byte slots)
// for narrower ones, whose half-size table misses the cache and the TLB less (measured 20% faster
// for 5M distinct values).
//
// Algorithm: open addressing with linear probing over a power-of-two array of slots holding the
// values themselves; 0 marks an empty slot and the value 0 is a separate flag, so a slot costs
// sizeof(Slot) (absl::flat_hash_set<uint64_t> pays 9 bytes with its control byte, and hashes again
// on every call). The caller passes the hash (core::HashIntKey of the value), so a batch can hash
// first and prefetch slots a few rows ahead. The slot comes from the LOW hash bits; the TOP 8 bits
// name the value's part (PartOf) when a big state is split into kBucketCount disjoint parts for a
// parallel merge. Load factor at most 1/2; the array starts at 16 slots and grows 4x while small
// (< 2^16 slots) and 2x after, like ClickHouse's HashSet, so the many small per-group sets of a
// GROUP BY rehash rarely. Arrays come from the owner's SlotPool (slot_pool.h) when one is set.
//
// Small sets stay inline: the first kInline nonzero values (2 of 8 bytes, 4 of 4 bytes) live in
// the bytes that hold the array pointer and mask of a large set, found by a linear scan; the
// (kInline + 1)-th value promotes the set to a 16-slot array. Most groups of a GROUP BY with
// uniqExact (SearchPhrase, COUNT(DISTINCT UserID): ~1-2 users per phrase) then never allocate,
// zero or chase an array: their state is one cache line (bench/results/aggregation-2026-11-23.md,
// Session 5).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/aggregation/slot_pool.h"
#include "core/hash.h"

namespace granite::core {

// Holds distinct Slot (uint32_t or uint64_t) values.
// Thread-safety: none.
// Invariants: large_ or in_table_ <= kInline (values inline_[0 .. in_table_), distinct, nonzero);
// capacity() is 0 (not large_) or a power of two >= 16; in_table_ <= capacity() / 2 when large_.
template <typename Slot>
class IntHashSet {
 public:
  // Values held without an array.
  static constexpr size_t kInline = 16 / sizeof(Slot);

  IntHashSet() = default;
  // Moves the values; the new set keeps other's pool (the pool stays with the owner's storage).
  IntHashSet(IntHashSet&& other) noexcept : pool_(other.pool_) { Swap(other); }
  IntHashSet& operator=(IntHashSet&& other) noexcept {
    Swap(other);
    return *this;
  }
  IntHashSet(const IntHashSet&) = delete;
  IntHashSet& operator=(const IntHashSet&) = delete;
  ~IntHashSet() {
    if (large_) Free(table_.slots, capacity());
  }

  // Takes arrays from `pool` from now on (null: malloc / free). The pool must outlive the set.
  void set_pool(SlotPool* pool) { pool_ = pool; }

  // Inserts `value`. REQUIRES: hash == HashIntKey(value).
  __attribute__((always_inline)) void Insert(Slot value, uint64_t hash) {
    if (value == 0) {
      has_zero_ = true;
      return;
    }
    if (!large_) {
      for (size_t i = 0; i < in_table_; ++i) {
        if (inline_[i] == value) return;
      }
      if (in_table_ < kInline) {
        inline_[in_table_++] = value;
        return;
      }
      Rehash(kInitialCapacity);  // promote: the inline values move into an array
    }
    Slot* slots = table_.slots;
    const size_t mask = table_.mask;
    size_t pos = hash & mask;
    while (true) {
      Slot slot = slots[pos];
      if (slot == value) return;
      if (slot == 0) break;
      pos = (pos + 1) & mask;
    }
    slots[pos] = value;
    if (++in_table_ * 2 > mask + 1) Grow();
  }

  // Hints the CPU to load the slot of `hash`.
  __attribute__((always_inline)) void Prefetch(uint64_t hash) const {
    if (large_) __builtin_prefetch(&table_.slots[hash & table_.mask]);
  }

  // Calls fn(value) for every value (0 first when present, then inline values in insertion order
  // or array values in slot order).
  template <typename F>
  void ForEach(F&& fn) const {
    if (has_zero_) fn(Slot{0});
    if (!large_) {
      for (size_t i = 0; i < in_table_; ++i) fn(inline_[i]);
      return;
    }
    for (size_t i = 0; i <= table_.mask; ++i) {
      if (table_.slots[i] != 0) fn(table_.slots[i]);
    }
  }

  // Makes room for `count` values in total without further growth.
  void Reserve(size_t count);

  size_t size() const { return in_table_ + (has_zero_ ? 1 : 0); }
  size_t capacity() const { return large_ ? table_.mask + 1 : 0; }
  size_t MemoryBytes() const { return capacity() * sizeof(Slot); }
  // Returns true once the values live in an array (more than kInline values, or Reserve).
  bool large() const { return large_; }

  // Swaps the values, not the pools.
  void Swap(IntHashSet& other) noexcept {
    // The union's bytes: the array pointer and mask, or the inline values.
    char bytes[sizeof(Table)];
    std::memcpy(bytes, &table_, sizeof(Table));
    std::memcpy(&table_, &other.table_, sizeof(Table));
    std::memcpy(&other.table_, bytes, sizeof(Table));
    std::swap(in_table_, other.in_table_);
    std::swap(has_zero_, other.has_zero_);
    std::swap(large_, other.large_);
  }

 private:
  static constexpr size_t kInitialCapacity = 16;
  struct Table {
    Slot* slots;
    size_t mask;
  };
  static_assert(sizeof(Table) == kInline * sizeof(Slot));

  void Free(Slot* slots, size_t capacity) {
    SlotPool::Release(pool_, slots, capacity * sizeof(Slot));
  }
  // Rehashes into a larger array (4x below 2^16 slots, 2x above).
  __attribute__((noinline)) void Grow() {
    size_t capacity = table_.mask + 1;
    Rehash(capacity < (1u << 16) ? capacity * 4 : capacity * 2);
  }
  // Moves the values (inline or in the array) into a new array of `capacity` slots.
  __attribute__((noinline)) void Rehash(size_t capacity);

  SlotPool* pool_ = nullptr;
  union {
    Table table_{nullptr, 0};  // large_
    Slot inline_[kInline];     // !large_
  };
  size_t in_table_ = 0;  // nonzero values held (inline or in the array)
  bool has_zero_ = false;
  bool large_ = false;
};

template <typename Slot>
void IntHashSet<Slot>::Rehash(size_t capacity) {
  Slot* slots = static_cast<Slot*>(SlotPool::Allocate(pool_, capacity * sizeof(Slot)));
  const size_t mask = capacity - 1;
  auto place = [&](Slot value) {
    size_t pos = HashIntKey(value) & mask;
    while (slots[pos] != 0) pos = (pos + 1) & mask;
    slots[pos] = value;
  };
  if (large_) {
    const size_t old_capacity = table_.mask + 1;
    for (size_t i = 0; i < old_capacity; ++i) {
      if (table_.slots[i] != 0) place(table_.slots[i]);
    }
    Free(table_.slots, old_capacity);
  } else {
    for (size_t i = 0; i < in_table_; ++i) place(inline_[i]);
  }
  table_.slots = slots;
  table_.mask = mask;
  large_ = true;
}

template <typename Slot>
inline void IntHashSet<Slot>::Reserve(size_t count) {
  if (!large_ && count <= kInline) return;
  size_t capacity = kInitialCapacity;
  while (capacity < count * 2 + 2) capacity *= 2;
  if (capacity > this->capacity()) Rehash(capacity);
}

using Int64HashSet = IntHashSet<uint64_t>;
using Int32HashSet = IntHashSet<uint32_t>;

}  // namespace granite::core
