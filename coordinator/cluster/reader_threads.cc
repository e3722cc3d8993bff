#include "coordinator/cluster/reader_threads.h"

#include <memory>
#include <thread>

#include "core/memory/memory_tracker.h"
#include "core/thread_name.h"
#include "core/thread_priority.h"

namespace granite::coordinator {

struct ReaderThreads::Thread {
  std::condition_variable_any wake;
  std::function<void()> task;  // set by Start while the thread is parked
};

ReaderThreads::ReaderThreads(size_t max_parked) : max_parked_(max_parked) {}

ReaderThreads& ReaderThreads::Global() {
  static ReaderThreads* threads = new ReaderThreads(256);
  return *threads;
}

void ReaderThreads::Start(std::function<void()> task) {
  std::shared_ptr<Thread> parked;
  {
    core::MutexLock lock(mu_);
    if (!parked_.empty()) {
      parked = std::move(parked_.back());
      parked_.pop_back();
      parked->task = std::move(task);
    }
  }
  if (parked) {
    // Woken outside the lock, so it does not wake only to wait for the lock this thread holds;
    // the shared_ptr keeps its state alive should it run the task and exit first.
    parked->wake.notify_one();
    return;
  }
  auto self = std::make_shared<Thread>();
  std::thread([this, self, task = std::move(task)]() mutable {
    core::SetCurrentThreadName("fragment_read");
    Loop(self, std::move(task));
  })
      .detach();
}

void ReaderThreads::Loop(std::shared_ptr<Thread> self, std::function<void()> task) {
  while (true) {
    task();
    task = nullptr;
    core::MutexLock lock(mu_);
    if (parked_.size() >= max_parked_) return;
    parked_.push_back(self);
    while (!self->task) self->wake.wait(mu_);
    task = std::move(self->task);
    self->task = nullptr;
  }
}

void ReaderThreads::RunAll(size_t n, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  std::mutex done_mu;
  std::condition_variable done_cv;
  size_t remaining = n - 1;
  // The readers run at the caller's priority: a SELECT lowered by --query_thread_nice stays
  // lowered while its worker streams are read and merged here.
  int priority = core::LoweredThreadPriority();
  // And they charge the caller's memory tracker (alive: this call waits for them).
  core::MemoryTracker* memory = core::CurrentMemoryTracker();
  for (size_t i = 0; i + 1 < n; ++i) {
    Start([&, i, priority, memory] {
      {
        core::ScopedThreadNice nice(priority);
        core::MemoryTrackerScope charged(memory);
        fn(i);
      }
      std::lock_guard<std::mutex> guard(done_mu);
      if (--remaining == 0) done_cv.notify_one();
    });
  }
  fn(n - 1);
  std::unique_lock<std::mutex> lock(done_mu);
  done_cv.wait(lock, [&] { return remaining == 0; });
}

size_t ReaderThreads::parked() const {
  core::MutexLock lock(mu_);
  return parked_.size();
}

}  // namespace granite::coordinator
