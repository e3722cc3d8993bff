// SlotArray<Slot>: the zeroed slot array of a GROUP BY hash table (IntHashMap, StringHashMap),
// where an all-zero slot means empty. Arrays of kHugeBytes and more are 2 MiB-aligned and advised
// onto transparent huge pages (madvise(MADV_HUGEPAGE); the machines run THP in "madvise" mode).
//
// Why: a table of 10^6 groups spans tens of MiB that every row probes at random; with 4 KiB pages
// nearly every probe also misses the TLB, and the first touch of each page faults. perf of
// a GROUP BY of a high-cardinality integer key (10M rows) put 43% of the probe loop on the prefetch
// instruction (its page walk) and ~15% of the worker in page-fault code.
#pragma once

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/memory/tracked_malloc.h"

namespace granite::core {

// Owns an array of trivially copyable Slots, zeroed on allocation.
// Thread-safety: none.
template <typename Slot>
class SlotArray {
 public:
  static constexpr size_t kHugePage = size_t{2} << 20;
  static constexpr size_t kHugeBytes = size_t{4} << 20;

  SlotArray() = default;
  // Allocates `count` zeroed slots.
  explicit SlotArray(size_t count) : slots_(Allocate(count * sizeof(Slot))) {}

  Slot& operator[](size_t i) { return slots_.get()[i]; }
  const Slot& operator[](size_t i) const { return slots_.get()[i]; }
  void swap(SlotArray& other) noexcept { slots_.swap(other.slots_); }

 private:
  struct Free {
    void operator()(Slot* slots) const { TrackedFree(slots); }
  };

  // Big arrays come from jemalloc too (2 MiB-aligned), so a later query reuses their pages. A
  // private mmap per array (kernel-zeroed, no memset) measured no faster: every query then
  // faults and zeroes fresh pages.
  static Slot* Allocate(size_t bytes) {
    void* array = nullptr;
    if (bytes >= kHugeBytes) {
      size_t rounded = (bytes + kHugePage - 1) & ~(kHugePage - 1);
      array = TrackedAlignedAlloc(kHugePage, rounded);
      if (array != nullptr) madvise(array, rounded, MADV_HUGEPAGE);  // a hint: errors are harmless
    }
    if (array == nullptr) array = TrackedMalloc(bytes == 0 ? 1 : bytes);
    if (array == nullptr) std::abort();  // like operator new without exceptions
    std::memset(array, 0, bytes);  // written, never read first: see slot_pool.h
    return static_cast<Slot*>(array);
  }

  std::unique_ptr<Slot, Free> slots_;
};

}  // namespace granite::core
