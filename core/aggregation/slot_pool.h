// SlotPool: recycles the slot arrays of the many small distinct-value sets of one aggregate
// function (uniqExact by 10000 keys grows 10000 sets per thread through the same sizes).
//
// Why: each set growing 16 -> 64 -> ... -> 16384 slots frees its old array. Handing those arrays
// back to jemalloc made it purge pages (madvise) while the other threads kept running, and the
// kernel's TLB-shootdown IPIs and page-table locks took 85% of the worker's CPU (perf, 2 threads).
// A pool keeps freed arrays in per-size free lists and gives them to the next set that grows to
// that size, so memory stays with the query until the function is cleared.
// Arrays of 1 MiB and more bypass the pool (few).
//
// Arrays are zeroed with memset, never taken zeroed from calloc: a probe READS a fresh calloc'ed
// page first, which maps the shared zero page, and the first insert then takes a second
// (write-protect) fault whose TLB flush interrupts the other cores running the query (perf:
// do_wp_page -> flush_tlb_mm_range -> IPIs, 70% of a uniqExact worker's time). Writing first
// takes one fault and no IPI.
#pragma once

#include <bit>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/memory/tracked_malloc.h"

namespace granite::core {

// Hands out zeroed power-of-two byte arrays and takes them back.
// Thread-safety: none; one pool per function object (per thread). A pool must outlive every
// array it handed out that is still in use; arrays may be released to another pool.
class SlotPool {
 public:
  static constexpr size_t kMaxPooledBytes = size_t{1} << 20;

  SlotPool() = default;
  SlotPool(const SlotPool&) = delete;
  SlotPool& operator=(const SlotPool&) = delete;
  ~SlotPool() { Clear(); }

  // Returns `bytes` zeroed bytes (from `pool` if not null). REQUIRES: bytes is a power of two.
  static void* Allocate(SlotPool* pool, size_t bytes) {
    void* array = nullptr;
    if (pool != nullptr && bytes < kMaxPooledBytes) {
      std::vector<void*>& list = pool->free_[std::countr_zero(bytes)];
      if (!list.empty()) {
        array = list.back();
        list.pop_back();
      }
    }
    if (array == nullptr) array = TrackedMalloc(bytes);
    std::memset(array, 0, bytes);
    return array;
  }

  // Takes back an array from Allocate (of any pool) into `pool`, or frees it if pool is null.
  static void Release(SlotPool* pool, void* array, size_t bytes) {
    if (pool != nullptr) {
      pool->Release(array, bytes);
    } else {
      TrackedFree(array);
    }
  }

  // Takes back an array of `bytes` bytes from Allocate (of any pool).
  void Release(void* array, size_t bytes) {
    if (array == nullptr) return;
    if (bytes >= kMaxPooledBytes) {
      TrackedFree(array);
      return;
    }
    free_[std::countr_zero(bytes)].push_back(array);
  }

  // Frees every pooled array.
  void Clear() {
    for (std::vector<void*>& list : free_) {
      for (void* array : list) TrackedFree(array);
      std::vector<void*>().swap(list);
    }
  }

 private:
  std::vector<void*> free_[64];  // by log2(bytes)
};

}  // namespace granite::core
