// Named, instrumented locks. Every process-wide lock in granite is one of these so that contention
// is visible (DESIGN.md §5.1): an uncontended acquisition costs one try-lock plus one add to the
// calling thread's own counter slot (core/metrics/thread_counters.h); only when the try-lock fails
// is the wait timed and counted. The metrics endpoint and system.events read the totals per lock
// name (granite_lock_acquisitions_total, granite_lock_contended_total,
// granite_lock_wait_seconds_total).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics/thread_counters.h"
#include "core/thread_annotations.h"

namespace granite::core {

// The statistics of one lock name; every lock created with that name shares them.
// Thread-safety: counters are relaxed atomics (written only on the contended path); acquisitions
// live in per-thread counter slots.
class LockStats {
 public:
  LockStats(std::string name, size_t slot) : name_(std::move(name)), slot_(slot) {}

  const std::string& name() const { return name_; }
  // The absolute ThreadCounters slot that counts acquisitions.
  size_t slot() const { return slot_; }
  // Records one contended acquisition that waited `wait_ns`.
  void RecordWait(uint64_t wait_ns) {
    contended_.fetch_add(1, std::memory_order_relaxed);
    wait_ns_.fetch_add(wait_ns, std::memory_order_relaxed);
  }
  uint64_t contended() const { return contended_.load(std::memory_order_relaxed); }
  uint64_t wait_ns() const { return wait_ns_.load(std::memory_order_relaxed); }

 private:
  const std::string name_;
  const size_t slot_;
  alignas(64) std::atomic<uint64_t> contended_{0};
  std::atomic<uint64_t> wait_ns_{0};
};

// Returns the stats for a lock name, registering it on first use. Lookups of a known name take no
// lock (a probe of a publish-once table). Past kLockSlots - 1 distinct names, further names share
// the stats named "other".
LockStats* LockStatsFor(std::string_view name);

// The totals of one lock name at the time of the call.
struct LockTotals {
  std::string name;
  uint64_t acquisitions = 0;
  uint64_t contended = 0;
  uint64_t wait_ns = 0;
};

// Returns the totals of every lock name registered so far, sorted by name.
std::vector<LockTotals> AllLockTotals();

// Wraps std::mutex with a name and wait accounting.
class CAPABILITY("mutex") Mutex {
 public:
  explicit Mutex(std::string_view name) : stats_(LockStatsFor(name)) {}
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock() ACQUIRE() {
    ThreadCounters::Local().Add(stats_->slot(), 1);
    if (!mu_.try_lock()) LockSlow();
  }
  void unlock() RELEASE() { mu_.unlock(); }
  bool try_lock() TRY_ACQUIRE(true) {
    if (!mu_.try_lock()) return false;
    ThreadCounters::Local().Add(stats_->slot(), 1);
    return true;
  }
  // Tries as long as a contended lock() spins (a few microseconds), then gives up instead of
  // blocking: for callers that have something cheaper than waiting for a holder that may be
  // preempted (a cache can report a miss). A failed attempt counts as contended.
  bool try_lock_briefly() TRY_ACQUIRE(true);
  std::mutex& native() { return mu_; }
  const LockStats& stats() const { return *stats_; }

 private:
  void LockSlow();
  std::mutex mu_;
  LockStats* const stats_;
};

// Wraps std::shared_mutex with a name and wait accounting for both modes.
class CAPABILITY("shared_mutex") SharedMutex {
 public:
  explicit SharedMutex(std::string_view name) : stats_(LockStatsFor(name)) {}
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void lock() ACQUIRE() {
    ThreadCounters::Local().Add(stats_->slot(), 1);
    if (!mu_.try_lock()) LockSlow();
  }
  void unlock() RELEASE() { mu_.unlock(); }
  void lock_shared() ACQUIRE_SHARED() {
    ThreadCounters::Local().Add(stats_->slot(), 1);
    if (!mu_.try_lock_shared()) LockSharedSlow();
  }
  void unlock_shared() RELEASE_SHARED() { mu_.unlock_shared(); }
  const LockStats& stats() const { return *stats_; }

 private:
  void LockSlow();
  void LockSharedSlow();
  std::shared_mutex mu_;
  LockStats* const stats_;
};

// Holds a Mutex or the exclusive side of a SharedMutex for a scope.
template <typename M>
class SCOPED_CAPABILITY LockGuard {
 public:
  explicit LockGuard(M& mu) ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  // Takes over `mu`, already locked by this thread (after a successful try_lock).
  LockGuard(M& mu, std::adopt_lock_t) REQUIRES(mu) : mu_(mu) {}
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
