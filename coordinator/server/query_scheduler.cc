#include "coordinator/server/query_scheduler.h"

#include <algorithm>
#include <optional>
#include <string>
#include <thread>
#include <utility>


namespace granite::coordinator {

QueryScheduler::QueryScheduler(AdmissionQueue* admission, size_t select_threads,
                               size_t other_threads, bool run_alone_inline)
    : admission_(admission),
      // Whole queries, no bursts: an idle executor thread sleeps at once (no yields). Each query
      // sets its own priority (ClickHouseService::RunStarted), so the threads never adopt the
      // submitter's: a lowered query that releases its slot dispatches the next one.
      select_pool_(std::make_unique<core::ThreadPool>(std::max<size_t>(1, select_threads), nullptr,
                                                      /*yields_before_sleep=*/0, "select_exec",
                                                      /*adopt_priority=*/false)),
      other_pool_(std::make_unique<core::ThreadPool>(std::max<size_t>(1, other_threads), nullptr,
                                                     /*yields_before_sleep=*/0, "other_exec",
                                                     /*adopt_priority=*/false)),
      run_alone_inline_(run_alone_inline) {}

QueryScheduler::~QueryScheduler() {
  // The SELECT executor first: its queries release slots, whose queued waiters then post their
  // work (or error replies) to both executors.
  select_pool_.reset();
  other_pool_.reset();
}

void QueryScheduler::ScheduleSelect(QueryContext* query, SelectTask run, bool may_run_inline) {
  // Inline only for a SELECT alone (no slot held, none queued) after a period without overlap (no
  // SELECT was scheduled while another held a slot since the last lone one): a client that runs
  // queries one at a time. Under concurrency even a momentarily lone SELECT goes to the executor:
  // gRPC runs the callbacks of other calls that completed with this one on this thread after it
  // returns, so a query run here would hold them up (-10% QPS at 8 clients without this check).
  // At most one query runs inline at a time (two callers may both see an idle queue): gRPC must
  // keep a callback thread free to deliver the write completions an inline query waits for.
  bool busy = !run_alone_inline_ || !admission_->Idle();
  if (busy) overlapped_.store(true, std::memory_order_relaxed);
  bool no_inline = false;
  if (busy || !may_run_inline || overlapped_.exchange(false, std::memory_order_relaxed) ||
      !inline_running_.compare_exchange_strong(no_inline, true)) {
    admission_->AdmitAsync(query, [this, run = std::move(run)](
                                      absl::StatusOr<AdmissionQueue::Slot> slot) {
      Dispatch(run, std::move(slot));
    });
    return;
  }
  // Admitted at once (on this thread, inside AdmitAsync): keep the slot and run here after
  // AdmitAsync returns. Admitted later (another thread): dispatch to the executors as usual.
  struct Handoff {
    std::thread::id caller = std::this_thread::get_id();
    bool returned = false;  // AdmitAsync returned; only the caller's thread reads or writes it
    std::optional<absl::StatusOr<AdmissionQueue::Slot>> now;
  };
  auto handoff = std::make_shared<Handoff>();
  admission_->AdmitAsync(query, [this, handoff, run](absl::StatusOr<AdmissionQueue::Slot> slot) {
    if (std::this_thread::get_id() == handoff->caller && !handoff->returned) {
      handoff->now.emplace(std::move(slot));
      return;
    }
    Dispatch(run, std::move(slot));
  });
  handoff->returned = true;
  if (handoff->now.has_value()) run(std::move(*handoff->now));
  inline_running_.store(false);
}

void QueryScheduler::Dispatch(const SelectTask& run, absl::StatusOr<AdmissionQueue::Slot> slot) {
  // std::function needs a copyable closure; the slot moves through a shared box.
  auto box = std::make_shared<absl::StatusOr<AdmissionQueue::Slot>>(std::move(slot));
  core::ThreadPool* pool = box->ok() ? select_pool_.get() : other_pool_.get();
  pool->Submit([run, box] { run(std::move(*box)); });
}

void QueryScheduler::ScheduleOther(std::function<void()> run, bool may_run_inline) {
  // Counted before the check, so two concurrent callers never both see none in flight.
  bool alone = others_in_flight_.fetch_add(1) == 0;
  bool no_inline = false;
  if (may_run_inline && alone && inline_running_.compare_exchange_strong(no_inline, true)) {
    run();
    inline_running_.store(false);
    others_in_flight_.fetch_sub(1);
    return;
  }
  other_pool_->Submit([this, run = std::move(run)] {
    run();
    others_in_flight_.fetch_sub(1);
  });
}

}  // namespace granite::coordinator
