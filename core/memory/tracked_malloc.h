// Tracked malloc: the allocation functions for code that calls the C allocator directly (the
// zeroed slot arrays of hash tables, core/aggregation/slot_array.h and slot_pool.h), so their
// bytes count in the query's MemoryTracker like those of operator new (core/memory/operator_new.cc).
// Sizes are the allocator's usable sizes, the same on both sides.
#pragma once

#include <malloc.h>

#include <cstddef>
#include <cstdlib>

#include "core/memory/memory_tracker.h"

namespace granite::core {

// malloc(bytes), counted. Returns null when the allocator has no memory.
inline void* TrackedMalloc(size_t bytes) {
  void* ptr = std::malloc(bytes);
  if (ptr != nullptr) TrackAlloc(static_cast<int64_t>(malloc_usable_size(ptr)));
  return ptr;
}

// aligned_alloc(alignment, bytes), counted. REQUIRES: bytes is a multiple of alignment.
inline void* TrackedAlignedAlloc(size_t alignment, size_t bytes) {
  void* ptr = std::aligned_alloc(alignment, bytes);
  if (ptr != nullptr) TrackAlloc(static_cast<int64_t>(malloc_usable_size(ptr)));
  return ptr;
}

// free(ptr) of a pointer from TrackedMalloc or TrackedAlignedAlloc, counted.
inline void TrackedFree(void* ptr) {
  if (ptr == nullptr) return;
  TrackFree(static_cast<int64_t>(malloc_usable_size(ptr)));
  std::free(ptr);
}

}  // namespace granite::core
