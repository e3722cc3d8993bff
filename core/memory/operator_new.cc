// The replaced global operator new and delete: every C++ allocation of the process is counted by
// core/memory/memory_tracker.h (TrackAlloc / TrackFree on a thread-local balance) and served by
// jemalloc. Linked into each executable of a jemalloc build (CMakeLists.txt, granite_executable),
// as malloc_conf.c is; builds without jemalloc (sanitizers, fuzzing) keep the standard operators
// and track only the explicit sites of core/memory/tracked_malloc.h.
//
// Sizes are jemalloc's size classes: nallocx() of the request when allocating and in sized
// delete, sallocx() of the pointer in unsized delete, so the two sides agree and the balance of
// a thread that frees all it allocated returns to zero.
#include <jemalloc/jemalloc.h>

#include <cstddef>
#include <new>

#include "core/memory/memory_tracker.h"

namespace {

using granite::core::TrackAlloc;
using granite::core::TrackFree;

inline void* Allocate(size_t size, int flags) {
  if (size == 0) size = 1;
  void* ptr = flags == 0 ? malloc(size) : mallocx(size, flags);
  if (ptr != nullptr) TrackAlloc(static_cast<int64_t>(nallocx(size, flags)));
  return ptr;
}

inline void* AllocateOrThrow(size_t size, int flags) {
  void* ptr = Allocate(size, flags);
  if (ptr == nullptr) throw std::bad_alloc();
  return ptr;
}

inline void Release(void* ptr) {
  if (ptr == nullptr) return;
  TrackFree(static_cast<int64_t>(sallocx(ptr, 0)));
  free(ptr);
}

inline void ReleaseSized(void* ptr, size_t size, int flags) {
  if (ptr == nullptr) return;
  if (size == 0) size = 1;
  TrackFree(static_cast<int64_t>(nallocx(size, flags)));
  sdallocx(ptr, size, flags);
}

inline int AlignFlags(std::align_val_t align) {
  return MALLOCX_ALIGN(static_cast<size_t>(align));
}

}  // namespace

void* operator new(size_t size) { return AllocateOrThrow(size, 0); }
void* operator new[](size_t size) { return AllocateOrThrow(size, 0); }
void* operator new(size_t size, const std::nothrow_t&) noexcept { return Allocate(size, 0); }
void* operator new[](size_t size, const std::nothrow_t&) noexcept { return Allocate(size, 0); }
void* operator new(size_t size, std::align_val_t align) {
  return AllocateOrThrow(size, AlignFlags(align));
}
void* operator new[](size_t size, std::align_val_t align) {
  return AllocateOrThrow(size, AlignFlags(align));
}
void* operator new(size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  return Allocate(size, AlignFlags(align));
}
void* operator new[](size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  return Allocate(size, AlignFlags(align));
}

void operator delete(void* ptr) noexcept { Release(ptr); }
void operator delete[](void* ptr) noexcept { Release(ptr); }
void operator delete(void* ptr, const std::nothrow_t&) noexcept { Release(ptr); }
void operator delete[](void* ptr, const std::nothrow_t&) noexcept { Release(ptr); }
void operator delete(void* ptr, size_t size) noexcept { ReleaseSized(ptr, size, 0); }
void operator delete[](void* ptr, size_t size) noexcept { ReleaseSized(ptr, size, 0); }
void operator delete(void* ptr, std::align_val_t) noexcept { Release(ptr); }
void operator delete[](void* ptr, std::align_val_t) noexcept { Release(ptr); }
void operator delete(void* ptr, std::align_val_t, const std::nothrow_t&) noexcept { Release(ptr); }
void operator delete[](void* ptr, std::align_val_t, const std::nothrow_t&) noexcept {
  Release(ptr);
}
void operator delete(void* ptr, size_t size, std::align_val_t align) noexcept {
  ReleaseSized(ptr, size, AlignFlags(align));
}
void operator delete[](void* ptr, size_t size, std::align_val_t align) noexcept {
  ReleaseSized(ptr, size, AlignFlags(align));
}
