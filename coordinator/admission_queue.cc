#include "coordinator/admission_queue.h"

#include <string>

#include "core/error.h"

namespace granite::coordinator {

namespace {

absl::Status Cancelled() {
  return core::Error(core::ErrorCode::kQueryWasCancelled,
                     "Query was cancelled while it waited for a free slot");
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

absl::StatusOr<AdmissionQueue::Slot> AdmissionQueue::Admit(QueryContext* query,
                                                           std::chrono::milliseconds max_wait) {
  {
    core::MutexLock lock(mu_);
    if (max_running_ == 0 || (running_ < max_running_ && waiting_.empty())) {
      ++running_;
      return Slot(this);
    }
  }
  auto started = std::chrono::steady_clock::now();
  Waiter waiter;
  // The hook is set before the query joins the queue, so a cancellation at any point from here
  // on wakes it. It runs under the query's lock and takes mu_: never call the query with mu_ held.
  bool watched = query->SetCancelHook([this, &waiter] {
    core::MutexLock lock(mu_);
    waiter.gone = true;
    waiter.wake.notify_one();
  });
  if (!watched) return Cancelled();
  query->queued = true;
  bool full = false;
  size_t queued = 0;
  size_t limit = 0;
  {
    core::MutexLock lock(mu_);
    if (max_running_ == 0 || (running_ < max_running_ && waiting_.empty())) {
      ++running_;
      waiter.granted = true;
    } else if (waiting_.size() >= max_queued_) {
      full = true;
      queued = waiting_.size();
      limit = max_running_;
    } else {
      auto at = waiting_.insert(waiting_.end(), &waiter);
      auto deadline = started + max_wait;
      while (!waiter.granted && !waiter.gone) {
        if (max_wait.count() <= 0) {
          waiter.wake.wait(mu_);
        } else if (waiter.wake.wait_until(mu_, deadline) == std::cv_status::timeout) {
          break;
        }
      }
      // A granted waiter was already taken off the queue by GrantLocked().
      if (!waiter.granted) waiting_.erase(at);
      queued = waiting_.size();
      limit = max_running_;
    }
  }
  query->ClearCancelHook();
  query->queued = false;
  auto waited = std::chrono::steady_clock::now() - started;
  query->queue_wait_us += std::chrono::duration_cast<std::chrono::microseconds>(waited).count();
  if (full) {
    return core::Error(core::ErrorCode::kTooManySimultaneousQueries,
                       "Too many simultaneous queries: " + std::to_string(queued) +
                           " SELECTs already wait for one of " + std::to_string(limit) +
                           " execution slots (max_concurrent_select_queries), the queue holds " +
                           std::to_string(max_queued_));
  }
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

void AdmissionQueue::ReleaseSlot() {
  core::MutexLock lock(mu_);
  --running_;
  GrantLocked();
}

void AdmissionQueue::GrantLocked() {
  while (!waiting_.empty() && (max_running_ == 0 || running_ < max_running_)) {
    Waiter* next = waiting_.front();
    waiting_.pop_front();
    ++running_;
    next->granted = true;
    next->wake.notify_one();
  }
}

void AdmissionQueue::SetMaxRunning(size_t max_running) {
  core::MutexLock lock(mu_);
  max_running_ = max_running;
  GrantLocked();
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

}  // namespace granite::coordinator
