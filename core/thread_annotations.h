// Clang thread-safety annotations (no-ops on other compilers).
#pragma once

#if defined(__clang__)
#define GRANITE_TSA(x) __attribute__((x))
#else
#define GRANITE_TSA(x)
#endif

#ifndef CAPABILITY
#define CAPABILITY(x) GRANITE_TSA(capability(x))
#endif
#ifndef SCOPED_CAPABILITY
#define SCOPED_CAPABILITY GRANITE_TSA(scoped_lockable)
#endif
#ifndef GUARDED_BY
#define GUARDED_BY(x) GRANITE_TSA(guarded_by(x))
#endif
#ifndef PT_GUARDED_BY
#define PT_GUARDED_BY(x) GRANITE_TSA(pt_guarded_by(x))
#endif
#ifndef ACQUIRE
#define ACQUIRE(...) GRANITE_TSA(acquire_capability(__VA_ARGS__))
#endif
#ifndef ACQUIRE_SHARED
#define ACQUIRE_SHARED(...) GRANITE_TSA(acquire_shared_capability(__VA_ARGS__))
#endif
#ifndef RELEASE
#define RELEASE(...) GRANITE_TSA(release_capability(__VA_ARGS__))
#endif
#ifndef RELEASE_SHARED
#define RELEASE_SHARED(...) GRANITE_TSA(release_shared_capability(__VA_ARGS__))
#endif
#ifndef RELEASE_GENERIC
#define RELEASE_GENERIC(...) GRANITE_TSA(release_generic_capability(__VA_ARGS__))
#endif
#ifndef TRY_ACQUIRE
#define TRY_ACQUIRE(...) GRANITE_TSA(try_acquire_capability(__VA_ARGS__))
#endif
#ifndef EXCLUDES
#define EXCLUDES(...) GRANITE_TSA(locks_excluded(__VA_ARGS__))
#endif
#ifndef REQUIRES
#define REQUIRES(...) GRANITE_TSA(requires_capability(__VA_ARGS__))
#endif
#ifndef REQUIRES_SHARED
#define REQUIRES_SHARED(...) GRANITE_TSA(requires_shared_capability(__VA_ARGS__))
#endif
#ifndef NO_THREAD_SAFETY_ANALYSIS
#define NO_THREAD_SAFETY_ANALYSIS GRANITE_TSA(no_thread_safety_analysis)
#endif
