#include "coordinator/reader_threads.h"

#include <memory>
#include <thread>

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
  {
    core::MutexLock lock(mu_);
    if (!parked_.empty()) {
      Thread* thread = parked_.back();
      parked_.pop_back();
      thread->task = std::move(task);
      thread->wake.notify_one();
      return;
    }
  }
  auto* self = new Thread();
  std::thread([this, self, task = std::move(task)]() mutable { Loop(self, std::move(task)); })
      .detach();
}

void ReaderThreads::Loop(Thread* self, std::function<void()> task) {
  std::unique_ptr<Thread> owned(self);
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
  for (size_t i = 0; i + 1 < n; ++i) {
    Start([&, i] {
      fn(i);
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
