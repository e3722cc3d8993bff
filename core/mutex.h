// Named, instrumented locks. Every process-wide lock in granite is one of these so that contention
// is visible: an uncontended acquisition costs one try-lock; only when that fails is the wait timed
// and counted (in the lock's LockStats, read by the metrics endpoint).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "core/thread_annotations.h"

namespace granite::core {

// Counts acquisitions, contended acquisitions and wait time of one named lock.
// Thread-safety: all members are atomics; each sits on its own cache line.
struct LockStats {
  explicit LockStats(std::string lock_name) : name(std::move(lock_name)) {}
  const std::string name;
  alignas(64) std::atomic<uint64_t> acquisitions{0};
  alignas(64) std::atomic<uint64_t> contended{0};
  std::atomic<uint64_t> wait_ns{0};
};

// Returns the stats of every lock created so far (they live for the whole process).
std::vector<const LockStats*> AllLockStats();

// Returns the (process-lifetime) stats object for a lock name; locks of one name share it.
LockStats* LockStatsFor(const std::string& name);

// Wraps std::mutex with a name and wait accounting.
class CAPABILITY("mutex") Mutex {
 public:
  explicit Mutex(const std::string& name) : stats_(LockStatsFor(name)) {}
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock() ACQUIRE() {
    stats_->acquisitions.fetch_add(1, std::memory_order_relaxed);
    if (mu_.try_lock()) return;
    LockSlow();
  }
  void unlock() RELEASE() { mu_.unlock(); }
  bool try_lock() TRY_ACQUIRE(true) { return mu_.try_lock(); }
  std::mutex& native() { return mu_; }

 private:
  void LockSlow();
  std::mutex mu_;
  LockStats* stats_;
};

// Wraps std::shared_mutex with a name and wait accounting for both modes.
class CAPABILITY("shared_mutex") SharedMutex {
 public:
  explicit SharedMutex(const std::string& name) : stats_(LockStatsFor(name)) {}
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void lock() ACQUIRE() {
    stats_->acquisitions.fetch_add(1, std::memory_order_relaxed);
    if (mu_.try_lock()) return;
    LockSlow();
  }
  void unlock() RELEASE() { mu_.unlock(); }
  void lock_shared() ACQUIRE_SHARED() {
    stats_->acquisitions.fetch_add(1, std::memory_order_relaxed);
    if (mu_.try_lock_shared()) return;
    LockSharedSlow();
  }
  void unlock_shared() RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  void LockSlow();
  void LockSharedSlow();
  std::shared_mutex mu_;
  LockStats* stats_;
};

// Holds a Mutex or the exclusive side of a SharedMutex for a scope.
template <typename M>
class SCOPED_CAPABILITY LockGuard {
 public:
  explicit LockGuard(M& mu) ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~LockGuard() RELEASE() { mu_.unlock(); }

 private:
  M& mu_;
};
using MutexLock = LockGuard<Mutex>;
using WriterLock = LockGuard<SharedMutex>;

// Holds the shared side of a SharedMutex for a scope.
class SCOPED_CAPABILITY ReaderLock {
 public:
  explicit ReaderLock(SharedMutex& mu) ACQUIRE_SHARED(mu) : mu_(mu) { mu_.lock_shared(); }
  ~ReaderLock() RELEASE() { mu_.unlock_shared(); }

 private:
  SharedMutex& mu_;
};

}  // namespace granite::core
