#include "coordinator/server/admission_queue.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/thread_priority.h"

namespace granite::coordinator {

namespace {

absl::Status Cancelled() {
  return core::Error(core::ErrorCode::kQueryWasCancelled,
                     "Query was cancelled while it waited for a free slot");
}

// Ends a query's wait: it is no longer queued, and the time it waited counts in its log entry.
void EndWait(QueryContext* query, std::chrono::steady_clock::time_point started) {
  query->queued = false;
  auto waited = std::chrono::steady_clock::now() - started;
  query->queue_wait_us += std::chrono::duration_cast<std::chrono::microseconds>(waited).count();
}

}  // namespace

AdmissionQueue::AdmissionQueue(size_t max_running, size_t max_queued)
    : max_queued_(max_queued), max_running_(max_running) {}

AdmissionQueue::Slot& AdmissionQueue::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    Release();
    queue_ = other.queue_;
    other.queue_ = nullptr;
  }
  return *this;
}

void AdmissionQueue::Slot::Release() {
  if (queue_ != nullptr) queue_->ReleaseSlot();
  queue_ = nullptr;
}

absl::Status AdmissionQueue::QueueFullError(size_t queued, size_t limit) const {
  return core::Error(core::ErrorCode::kTooManySimultaneousQueries,
                     "Too many simultaneous queries: " + std::to_string(queued) +
                         " SELECTs already wait for one of " + std::to_string(limit) +
                         " execution slots (max_concurrent_select_queries), the queue holds " +
                         std::to_string(max_queued_));
}

absl::StatusOr<AdmissionQueue::Slot> AdmissionQueue::Admit(QueryContext* query,
                                                           std::chrono::milliseconds max_wait) {
  {
    core::MutexLock lock(mu_);
    if (SlotFreeLocked()) {
      ++running_;
      return Slot(this);
    }
  }
  auto started = std::chrono::steady_clock::now();
  auto shared_waiter = std::make_shared<Waiter>();
  Waiter& waiter = *shared_waiter;
  // The hook is set before the query joins the queue, so a cancellation at any point from here
  // on wakes it. It runs under the query's lock and takes mu_: never call the query with mu_ held.
  bool watched = query->SetCancelHook([this, shared_waiter] {
    core::MutexLock lock(mu_);
    shared_waiter->gone = true;
    shared_waiter->wake.notify_one();
  });
  if (!watched) return Cancelled();
  query->queued = true;
  bool full = false;
  size_t queued = 0;
  size_t limit = 0;
  {
    core::MutexLock lock(mu_);
    if (SlotFreeLocked()) {
      ++running_;
      waiter.granted = true;
    } else if (waiting_.size() >= max_queued_) {
      full = true;
      queued = waiting_.size();
      limit = LimitLocked();
    } else {
      waiter.at = waiting_.insert(waiting_.end(), shared_waiter);
      auto deadline = started + max_wait;
      while (!waiter.granted && !waiter.gone) {
        if (max_wait.count() <= 0) {
          waiter.wake.wait(mu_);
        } else if (waiter.wake.wait_until(mu_, deadline) == std::cv_status::timeout) {
          break;
        }
      }
      // A granted waiter was already taken off the queue by GrantLocked().
      if (!waiter.granted) waiting_.erase(waiter.at);
      queued = waiting_.size();
      limit = LimitLocked();
    }
  }
  query->ClearCancelHook();
  EndWait(query, started);
  if (full) return QueueFullError(queued, limit);
  if (waiter.granted) {
    Slot slot(this);
    if (waiter.gone) return Cancelled();  // `slot` passes to the next waiter
    return slot;
  }
  if (waiter.gone) return Cancelled();
  return core::Error(core::ErrorCode::kTooManySimultaneousQueries,
                     "Too many simultaneous queries: no execution slot became free within "
                     "queue_max_wait_ms = " + std::to_string(max_wait.count()) + " (" +
                         std::to_string(limit) + " SELECTs run at once, " +
                         std::to_string(queued) + " wait)");
}

void AdmissionQueue::AdmitAsync(QueryContext* query, Admitted admitted) {
  bool free = false;
  {
    core::MutexLock lock(mu_);
    free = SlotFreeLocked();
    if (free) ++running_;
  }
  if (free) {
    admitted(Slot(this));
    return;
  }
  auto waiter = std::make_shared<Waiter>();
  waiter->admitted = std::move(admitted);
  waiter->query = query;
  waiter->started = std::chrono::steady_clock::now();
  // Set before the waiter joins the queue, as in Admit(); a cancel that comes first marks it gone.
  if (!query->SetCancelHook([this, waiter] { CancelAsync(waiter); })) {
    waiter->admitted(Cancelled());
    return;
  }
  query->queued = true;
  std::vector<std::shared_ptr<Waiter>> granted;
  absl::Status refused;
  {
    core::MutexLock lock(mu_);
    if (waiter->gone) {
      refused = Cancelled();
    } else if (SlotFreeLocked()) {
      ++running_;
      waiter->granted = true;
      granted.push_back(waiter);
    } else if (waiting_.size() >= max_queued_) {
      refused = QueueFullError(waiting_.size(), LimitLocked());
      waiter->gone = true;
    } else {
      waiter->at = waiting_.insert(waiting_.end(), waiter);
      waiter->in_queue = true;
      return;
    }
  }
  if (!refused.ok()) {
    query->ClearCancelHook();
    EndWait(query, waiter->started);
    waiter->admitted(refused);
    return;
  }
  RunGranted(this, std::move(granted));
}

void AdmissionQueue::CancelAsync(const std::shared_ptr<Waiter>& waiter) {
  {
    core::MutexLock lock(mu_);
    if (waiter->granted || waiter->gone) return;
    waiter->gone = true;
    if (!waiter->in_queue) return;  // AdmitAsync() sees `gone` before it queues the waiter
    waiting_.erase(waiter->at);
    waiter->in_queue = false;
  }
  // The hook stays set (it is this call): a later Cancel() finds the waiter gone.
  EndWait(waiter->query, waiter->started);
  waiter->admitted(Cancelled());
}

void AdmissionQueue::RunGranted(AdmissionQueue* queue,
                                std::vector<std::shared_ptr<Waiter>> granted) {
  for (auto& waiter : granted) {
    waiter->query->ClearCancelHook();
    EndWait(waiter->query, waiter->started);
    waiter->admitted(Slot(queue));
  }
}

void AdmissionQueue::ReleaseSlot() {
  std::vector<std::shared_ptr<Waiter>> granted;
  {
    core::MutexLock lock(mu_);
    --running_;
    granted = GrantLocked();
  }
  RunGranted(this, std::move(granted));
}

std::vector<std::shared_ptr<AdmissionQueue::Waiter>> AdmissionQueue::GrantLocked() {
  std::vector<std::shared_ptr<Waiter>> granted;
  const size_t limit = LimitLocked();
  while (!waiting_.empty() && (limit == 0 || running_ < limit)) {
    std::shared_ptr<Waiter> next = std::move(waiting_.front());
    waiting_.pop_front();
    ++running_;
    next->granted = true;
    if (next->admitted) {
      granted.push_back(std::move(next));
    } else {
      next->wake.notify_one();
    }
  }
  return granted;
}

void AdmissionQueue::SetMaxRunning(size_t max_running) {
  std::vector<std::shared_ptr<Waiter>> granted;
  {
    core::MutexLock lock(mu_);
    max_running_ = max_running;
    granted = GrantLocked();
  }
  RunGranted(this, std::move(granted));
}

void AdmissionQueue::SetLimitDuringSmallWrites(size_t limit) {
  core::MutexLock lock(mu_);
  limit_during_small_writes_ = limit;
}

size_t AdmissionQueue::LimitLocked() const {
  if (limit_during_small_writes_ == 0 || max_running_ == 0 || !core::RecentSmallWrites()) {
    return max_running_;
  }
  return std::min(max_running_, limit_during_small_writes_);
}

bool AdmissionQueue::SlotFreeLocked() const {
  const size_t limit = LimitLocked();
  return limit == 0 || (running_ < limit && waiting_.empty());
}

size_t AdmissionQueue::max_running() const {
  core::MutexLock lock(mu_);
  return max_running_;
}

size_t AdmissionQueue::running() const {
  core::MutexLock lock(mu_);
  return running_;
}

size_t AdmissionQueue::queued() const {
  core::MutexLock lock(mu_);
  return waiting_.size();
}

bool AdmissionQueue::Idle() const {
  core::MutexLock lock(mu_);
  return running_ == 0 && waiting_.empty();
}

}  // namespace granite::coordinator
