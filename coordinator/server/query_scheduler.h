// QueryScheduler: where the coordinator's client queries execute. The callback gRPC server
// (ClickHouseService's ExecuteQueryWithStreamIO) hands each query here and gives its own thread
// back to gRPC at once, so a waiting query holds no thread:
//  - a SELECT over tables (judged from its parse tree: StatementTraits::admitted_select,
//    statement_kind.h) waits for an admission slot as a queued callback (AdmissionQueue::AdmitAsync), then runs on the SELECT executor, a pool of
//    `select_threads` threads (one per slot: a running SELECT blocks its thread on worker RPCs);
//  - everything else (INSERT, DDL, KILL QUERY, system tables, SELECTs without FROM or with
//    queue_max_wait_ms) runs on the other executor, which never runs a SELECT over tables: an
//    INSERT waits behind no queued SELECT. A SELECT refused by admission (cancelled while queued,
//    queue full) sends its error from there too, at once.
//
// Why: with one sync handler thread per call, 256 clients kept 256 threads blocked in the
// admission queue or on worker RPCs, and ~40% of the coordinator's CPU went to switching between
// them (bench/results/observability-2026-11-23.md, Session 5).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "coordinator/server/admission_queue.h"
#include "coordinator/server/query_context.h"
#include "core/thread_pool.h"

namespace granite::coordinator {

// Runs client queries on two bounded executors, SELECTs after admission.
// Thread-safety: all methods may be called from any thread.
class QueryScheduler {
 public:
  // `admission` (not null) must outlive the scheduler. Zero threads means one. With
  // `run_alone_inline`, a SELECT scheduled while no other SELECT is around may run on the thread
  // that schedules it (see ScheduleSelect).
  QueryScheduler(AdmissionQueue* admission, size_t select_threads, size_t other_threads,
                 bool run_alone_inline = false);
  // Runs the tasks still queued, then joins the threads.
  ~QueryScheduler();
  QueryScheduler(const QueryScheduler&) = delete;
  QueryScheduler& operator=(const QueryScheduler&) = delete;

  // Runs `run` once `query` is admitted: with its slot on the SELECT executor, or with the
  // admission error (QUERY_WAS_CANCELLED, TOO_MANY_SIMULTANEOUS_QUERIES) on the other executor.
  // Exception (run_alone_inline): when no SELECT holds or waits for a slot, none was scheduled
  // while another held one since the last such lone SELECT, and the query is admitted at once,
  // `run` runs on the calling thread before ScheduleSelect returns. That saves the hand-off to an
  // executor thread (a futex wake-up and a switch, ~40-90 us per query on a busy 2-core
  // machine; bench/results/observability-2026-11-23.md, Session 6) when a client runs queries one
  // at a time; the caller (a gRPC callback thread) is then busy for the whole query, so this is
  // limited to one such query at a time.
  // `may_run_inline` false rules the exception out for this query (a lowered one).
  using SelectTask = std::function<void(absl::StatusOr<AdmissionQueue::Slot>)>;
  void ScheduleSelect(QueryContext* query, SelectTask run, bool may_run_inline = true);
  // Runs `run` on the other executor. Exception (`may_run_inline`, for a short query such as an
  // INSERT whose rows all came with it): when no other-executor query is in flight and no query
  // runs inline, `run` runs on the calling thread before ScheduleOther returns, saving the
  // hand-off as for a lone SELECT (one inline query at a time, for the same reason).
  void ScheduleOther(std::function<void()> run, bool may_run_inline = false);

  size_t select_threads() const { return select_pool_->size(); }
  size_t other_threads() const { return other_pool_->size(); }

 private:
  // Runs `run` with `slot` on the SELECT executor, or (an admission error) on the other one.
  void Dispatch(const SelectTask& run, absl::StatusOr<AdmissionQueue::Slot> slot);

  AdmissionQueue* admission_;
  std::unique_ptr<core::ThreadPool> select_pool_;
  std::unique_ptr<core::ThreadPool> other_pool_;
  const bool run_alone_inline_;
  std::atomic<bool> overlapped_{false};  // a SELECT was scheduled while another held a slot
  std::atomic<bool> inline_running_{false};  // a query runs on a caller's thread now
  std::atomic<size_t> others_in_flight_{0};  // ScheduleOther queries not yet finished
};

}  // namespace granite::coordinator
