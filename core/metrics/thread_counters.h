// ThreadCounters: the storage behind every hot counter in granite (event counters, lock
// acquisitions, histogram buckets). Each thread owns one cache-line-aligned block of slots and
// increments its own slots with a plain load + store (no atomic read-modify-write, no shared cache
// line); a reader sums the slot over every block. This is the cure for the seed story in which one
// shared counter array cost 36% of CPU through false sharing (DESIGN.md §5.8).
//
// Slot layout (fixed at compile time, so an increment is one indexed add):
//   [0, kEventSlots)                               event counters (events.h)
//   [kLockSlotBase, kLockSlotBase + kLockSlots)    acquisitions of each named lock (mutex.h)
//   [kHistogramSlotBase, ... + kHistogramSlots)    histogram buckets and sums (histogram.h)
//
// Blocks are never freed: when a thread exits its block goes back to a free list, keeping its
// counts, and the next new thread continues adding to it, so sums stay cumulative and the number of
// blocks is the peak number of threads alive at once.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace granite::core {

inline constexpr size_t kEventSlots = 128;
inline constexpr size_t kLockSlots = 256;
inline constexpr size_t kHistogramSlots = 64;
inline constexpr size_t kLockSlotBase = kEventSlots;
inline constexpr size_t kHistogramSlotBase = kLockSlotBase + kLockSlots;
inline constexpr size_t kSlotsPerThread = kHistogramSlotBase + kHistogramSlots;

// One thread's block of counter slots.
// Thread-safety: only the owning thread writes (Add); any thread may read (Load). Slots are relaxed
// atomics so concurrent reads are not data races, but writes are not read-modify-write: two
// writers to one block could lose an increment, which the ownership rule excludes.
class alignas(64) ThreadCounters {
 public:
  // Returns the calling thread's block, claiming one on first use.
  static ThreadCounters& Local() {
    ThreadCounters* block = local_;
    return block != nullptr ? *block : Claim();
  }

  // Adds `n` to `slot` of the calling thread's block.
  // REQUIRES: slot < kSlotsPerThread; called on the owning thread.
  void Add(size_t slot, uint64_t n) {
    std::atomic<uint64_t>& s = slots_[slot];
    s.store(s.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  // Returns the sum of `slot` over every block ever claimed.
  static uint64_t Sum(size_t slot);
  // Sums slots [first, first + count) over every block into out[0, count).
  static void SumRange(size_t first, size_t count, uint64_t* out);
  // Returns how many blocks exist (the peak number of threads that counted at once).
  static size_t BlockCount();

 private:
  ThreadCounters() = default;
  static ThreadCounters& Claim();
  friend struct ThreadCountersRelease;

  std::atomic<uint64_t> slots_[kSlotsPerThread] = {};

  // The calling thread's block; constant-initialized so reading it needs no TLS init call.
  static constinit thread_local ThreadCounters* local_;
};

}  // namespace granite::core
