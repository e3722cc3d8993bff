// MemoryTracker: counts the bytes a query (or the whole process) holds and fails the query that
// goes over its limit: `max_memory_usage` per query, `max_server_memory_usage` per process
// (MEMORY_LIMIT_EXCEEDED, 241). docs/adr/0003-memory-tracker.md explains the choice.
//
// How memory gets charged: every allocation of the process is counted on the allocating thread
// (core/memory/operator_new.cc replaces operator new/delete; the few direct malloc users go
// through core/memory/tracked_malloc.h) into a thread-local balance, which is handed to the
// thread's current tracker once it passes kBatchBytes either way. The hot path is one
// thread-local add and compare; trackers see one atomic add per MiB. A query sets its tracker
// on its handler thread (MemoryTrackerScope); core::ThreadPool carries the submitter's tracker
// into each task, so morsels and bucket merges charge their query. A thread without a query
// tracker charges the server tracker directly.
//
// Going over a limit does not fail the allocation (the code has no exceptions to unwind with):
// the tracker records the first excess, raises its query's cancel flag, and the executors,
// which poll that flag between morsels and merges, end the query with ExceededStatus(). A
// query may so run past its limit by what one thread allocates between two polls (one morsel,
// one hash-table resize).
//
// Attribution is approximate, as in ClickHouse: bytes freed on another thread or after the
// query are credited to whatever tracker is current there. The server tracker is re-synced
// from jemalloc's count of allocated bytes about once a second, so its drift stays bounded.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"

namespace granite::core {

// Counts bytes against an optional limit, and passes every change on to its parent.
// Thread-safety: Add() and the readers from any thread; set_limit/set_cancel_flag before the
// tracker is shared with other threads.
// Invariants: a query tracker's parent (the server tracker) outlives it.
class MemoryTracker : public std::enable_shared_from_this<MemoryTracker> {
 public:
  // What the limit is named in the error: ClickHouse's "(for query)" and "(total)".
  enum class Level : uint8_t { kQuery, kServer };

  constexpr MemoryTracker(Level level, MemoryTracker* parent) : level_(level), parent_(parent) {}
  // Gives what is still counted here back to the parent (the query's memory leaves the server
  // total with the query; the periodic re-sync corrects what was not freed yet).
  ~MemoryTracker();
  MemoryTracker(const MemoryTracker&) = delete;
  MemoryTracker& operator=(const MemoryTracker&) = delete;

  // Makes a query tracker under the server tracker with limit `limit` bytes (0 = none).
  static std::shared_ptr<MemoryTracker> ForQuery(int64_t limit);

  // Adds `bytes` (negative: released) here and to every parent. The first time a positive
  // change takes this tracker or a parent over its limit, this tracker records the excess and
  // raises the cancel flag.
  void Add(int64_t bytes);

  int64_t current() const { return current_.load(std::memory_order_relaxed); }
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }
  int64_t limit() const { return limit_.load(std::memory_order_relaxed); }
  void set_limit(int64_t limit) { limit_.store(limit, std::memory_order_relaxed); }
  // Sets the flag raised when a limit is exceeded (the query's cancellation).
  void set_cancel_flag(std::atomic<bool>* flag) { cancel_flag_ = flag; }

  // Returns true once a limit was exceeded while this tracker was charged.
  bool exceeded() const { return exceeded_.load(std::memory_order_acquire) == kRecorded; }
  // MEMORY_LIMIT_EXCEEDED with the amount, the chunk and the limit of the first excess; OK if
  // none.
  absl::Status ExceededStatus() const;

  // Overwrites the count (the server tracker's re-sync with the allocator).
  void Set(int64_t bytes) { current_.store(bytes, std::memory_order_relaxed); }

 private:
  static constexpr int kNone = 0, kRecording = 1, kRecorded = 2;
  void RaisePeak(int64_t now);
  void Record(Level level, int64_t would_use, int64_t chunk, int64_t limit);

  const Level level_;
  MemoryTracker* const parent_;
  std::atomic<int64_t> current_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> limit_{0};
  std::atomic<bool>* cancel_flag_ = nullptr;
  // The first excess, written once by the thread that moves exceeded_ to kRecording.
  std::atomic<int> exceeded_{kNone};
  Level exceeded_level_ = Level::kQuery;
  int64_t exceeded_would_use_ = 0;
  int64_t exceeded_chunk_ = 0;
  int64_t exceeded_limit_ = 0;
};

// Returns the process-wide tracker: every byte charged anywhere, limited by
// max_server_memory_usage.
MemoryTracker& ServerMemoryTracker();

// Returns the default max_server_memory_usage: `ratio` of the smaller of the machine's RAM and
// the cgroup's memory limit (0 if neither can be read).
int64_t DefaultServerMemoryLimit(double ratio);

// Returns the calling thread's query tracker, or null.
MemoryTracker* CurrentMemoryTracker();

// Returns the calling thread's query tracker's ExceededStatus() (OK without one): for loops that
// build big structures on one thread to stop between two steps.
absl::Status CurrentMemoryLimitStatus();

// Makes `tracker` (may be null) the calling thread's tracker while alive; restores the previous
// one after. Hands the thread's pending balance to the tracker it replaces, both ways.
// REQUIRES: `tracker` outlives the scope.
class MemoryTrackerScope {
 public:
  explicit MemoryTrackerScope(MemoryTracker* tracker);
  ~MemoryTrackerScope();
  MemoryTrackerScope(const MemoryTrackerScope&) = delete;
  MemoryTrackerScope& operator=(const MemoryTrackerScope&) = delete;

 private:
  MemoryTracker* saved_;
};

namespace memory_internal {

// Bytes a thread counts locally before it charges its tracker: about one atomic add per MiB.
inline constexpr int64_t kBatchBytes = int64_t{1} << 20;

struct ThreadMemory {
  MemoryTracker* tracker;
  int64_t untracked;
  bool flushing;  // inside Flush: allocations made there only count locally
};
inline constinit thread_local ThreadMemory thread_memory{nullptr, 0, false};

// Charges the thread's balance to its tracker (or the server's) and zeroes it.
void Flush();

}  // namespace memory_internal

// Counts an allocation of `bytes` on the calling thread.
inline void TrackAlloc(int64_t bytes) {
  memory_internal::ThreadMemory& memory = memory_internal::thread_memory;
  memory.untracked += bytes;
  if (memory.untracked > memory_internal::kBatchBytes) memory_internal::Flush();
}

// Counts a release of `bytes` on the calling thread.
inline void TrackFree(int64_t bytes) {
  memory_internal::ThreadMemory& memory = memory_internal::thread_memory;
  memory.untracked -= bytes;
  if (memory.untracked < -memory_internal::kBatchBytes) memory_internal::Flush();
}

}  // namespace granite::core
