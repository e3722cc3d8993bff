// Clang thread-safety annotations (no-ops on other compilers).
#pragma once

#if defined(__clang__)
#define GRANITE_TSA(x) __attribute__((x))
#else
#define GRANITE_TSA(x)
#endif

#define CAPABILITY(x) GRANITE_TSA(capability(x))
#define SCOPED_CAPABILITY GRANITE_TSA(scoped_lockable)
#define GUARDED_BY(x) GRANITE_TSA(guarded_by(x))
#define PT_GUARDED_BY(x) GRANITE_TSA(pt_guarded_by(x))
#define ACQUIRE(...) GRANITE_TSA(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) GRANITE_TSA(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) GRANITE_TSA(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) GRANITE_TSA(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) GRANITE_TSA(release_generic_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) GRANITE_TSA(try_acquire_capability(__VA_ARGS__))
#define EXCLUDES(...) GRANITE_TSA(locks_excluded(__VA_ARGS__))
#define REQUIRES(...) GRANITE_TSA(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) GRANITE_TSA(requires_shared_capability(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS GRANITE_TSA(no_thread_safety_analysis)
