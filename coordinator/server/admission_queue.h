// AdmissionQueue: the coordinator's admission control for SELECTs over tables. At most
// `max_running` of them execute at once; the rest wait in FIFO order, blocked on a condition
// variable (not runnable, so they take no CPU share from the queries that run), up to
// `max_queued` of them. INSERTs, DDL and system-table queries never pass through it.
//
// Why: on a small machine, many closed-loop SELECT clients keep every core busy, and every other
// request — a one-row INSERT with its ~5 hops (client, coordinator, PrepareInsert, CommitInsert,
// reply) — gets a 1/(runnable threads) share of the CPU at each hop. Capping the SELECTs that run
// (ClickHouse: max_concurrent_select_queries, queue_max_wait_ms) bounds the runnable threads, so
// an INSERT waits behind a handful of them instead of dozens. See bench/results/parts-*.md.
//
// A queued query leaves the queue when it is cancelled (KILL QUERY, client gone: anything that
// calls QueryContext::Cancel) or when its own wait limit passes; a slot it was handed in the
// meantime goes to the next waiter.
//
// Two ways to wait: Admit() blocks its thread; AdmitAsync() queues a callback instead, so a
// waiting query holds no thread (the callback gRPC server queues hundreds of SELECTs this way,
// see query_scheduler.h). Both kinds of waiter share one FIFO.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/server/query_context.h"
#include "core/mutex.h"

namespace granite::coordinator {

// Bounds the SELECTs that execute at once.
// Thread-safety: all methods are safe to call concurrently.
// Invariants: running_ <= max_running_ unless max_running_ was lowered while they ran; a waiter
// is in waiting_ until it is granted a slot, cancelled or timed out.
class AdmissionQueue {
 public:
  // `max_running` == 0 admits everything at once (no limit, no queue).
  AdmissionQueue(size_t max_running, size_t max_queued);
  AdmissionQueue(const AdmissionQueue&) = delete;
  AdmissionQueue& operator=(const AdmissionQueue&) = delete;

  // Holds one execution slot; returns it on destruction. An empty Slot holds nothing.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept : queue_(other.queue_) { other.queue_ = nullptr; }
    Slot& operator=(Slot&& other) noexcept;
    ~Slot() { Release(); }
    void Release();

   private:
    friend class AdmissionQueue;
    explicit Slot(AdmissionQueue* queue) : queue_(queue) {}
    AdmissionQueue* queue_ = nullptr;
  };

  // Returns a slot once `query` may run: at once if one is free and nobody waits, else after the
  // queries queued before it. Adds the time waited to query->queue_wait_us. Errors:
  // TOO_MANY_SIMULTANEOUS_QUERIES (202) if max_queued queries already wait, or if `max_wait`
  // (zero = no limit) passes first; QUERY_WAS_CANCELLED if the query is cancelled while it waits.
  absl::StatusOr<Slot> Admit(QueryContext* query,
                             std::chrono::milliseconds max_wait = std::chrono::milliseconds(0))
      EXCLUDES(mu_);

  // Calls `admitted` once `query` may run, with a slot or with the error Admit() would return
  // (no wait limit: max_wait is Admit()'s only). It runs at once on the calling thread if a slot is
  // free (or the queue is full), else later on the thread that frees a slot or cancels the query.
  // REQUIRES: `admitted` is cheap and never blocks (hand the work to an executor): it may run
  // under the query's lock (QueryContext::Cancel) or another query's slot release.
  using Admitted = std::function<void(absl::StatusOr<Slot>)>;
  void AdmitAsync(QueryContext* query, Admitted admitted) EXCLUDES(mu_);

  // Changes the limit for later admissions; raising it admits waiters at once.
  void SetMaxRunning(size_t max_running) EXCLUDES(mu_);
  // While small INSERTs arrive (core::RecentSmallWrites), at most `limit` SELECTs start running
  // (if the limit is lower than max_running); 0 = no such limit. For --query_thread_nice=-1.
  void SetLimitDuringSmallWrites(size_t limit) EXCLUDES(mu_);

  size_t max_running() const EXCLUDES(mu_);
  size_t running() const EXCLUDES(mu_);
  size_t queued() const EXCLUDES(mu_);
  // True if no query holds or waits for a slot.
  bool Idle() const EXCLUDES(mu_);

 private:
  struct Waiter {
    std::condition_variable_any wake;
    bool granted = false;  // a slot was handed over: the waiter owns it
    bool gone = false;     // cancelled: stop waiting
    std::list<std::shared_ptr<Waiter>>::iterator at;  // its place in waiting_, while there
    bool in_queue = false;                             // AdmitAsync() waiters: `at` is valid
    // AdmitAsync() waiters only: called (outside mu_) when granted or cancelled.
    Admitted admitted;
    QueryContext* query = nullptr;
    std::chrono::steady_clock::time_point started;
  };

  void ReleaseSlot() EXCLUDES(mu_);
  // Hands free slots to the oldest waiters; returns the AdmitAsync() waiters it granted, whose
  // callbacks the caller runs with RunGranted() after releasing mu_. REQUIRES: mu_ held.
  [[nodiscard]] std::vector<std::shared_ptr<Waiter>> GrantLocked() REQUIRES(mu_);
  static void RunGranted(AdmissionQueue* queue, std::vector<std::shared_ptr<Waiter>> granted);
  // Takes a queued AdmitAsync() waiter out of the queue (its query was cancelled). Runs under the
  // query's lock.
  void CancelAsync(const std::shared_ptr<Waiter>& waiter) EXCLUDES(mu_);
  absl::Status QueueFullError(size_t queued, size_t limit) const;
  // The limit that applies now: max_running_, or limit_during_small_writes_ while small writes
  // arrive.
  size_t LimitLocked() const REQUIRES(mu_);
  // True if a query admitted now runs at once: under the limit, nobody queued before it.
  bool SlotFreeLocked() const REQUIRES(mu_);

  // Constant after construction.
  const size_t max_queued_;

  mutable core::Mutex mu_{"admission_queue"};
  size_t max_running_ GUARDED_BY(mu_);
  size_t running_ GUARDED_BY(mu_) = 0;
  size_t limit_during_small_writes_ GUARDED_BY(mu_) = 0;
  // Shared with each waiter's cancel hook, which may outlive its wait.
  std::list<std::shared_ptr<Waiter>> waiting_ GUARDED_BY(mu_);
};

}  // namespace granite::coordinator
