#include "core/thread_pool.h"

#include <atomic>
#include <memory>

namespace granite::core {

ThreadPool::ThreadPool(size_t threads, std::function<void(size_t)> on_thread_start)
    : on_thread_start_(std::move(on_thread_start)) {
  if (threads == 0) threads = 1;
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this, i] { Loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPool::Submit(std::function<void()> task) {
  {
    MutexLock lock(mu_);
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void ThreadPool::Loop(size_t index) {
  if (on_thread_start_) on_thread_start_(index);
  while (true) {
    std::function<void()> task;
    {
      MutexLock lock(mu_);
      wake_.wait(mu_, [this]() NO_THREAD_SAFETY_ANALYSIS { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

void ThreadPool::ParallelFor(size_t n, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  if (n == 1) {
    fn(0);
    return;
  }
  // Shared state: the next index to claim and the number finished. Helpers that start after all
  // indexes were claimed just exit.
  struct State {
    std::atomic<size_t> next{0};
    std::atomic<size_t> done{0};
    std::mutex mu;
    std::condition_variable cv;
  };
  auto state = std::make_shared<State>();
  auto work = [state, n, &fn] {
    size_t finished = 0;
    for (size_t i = state->next.fetch_add(1); i < n; i = state->next.fetch_add(1)) {
      fn(i);
      ++finished;
    }
    if (finished > 0 && state->done.fetch_add(finished) + finished == n) {
      std::lock_guard<std::mutex> guard(state->mu);
      state->cv.notify_all();
    }
  };
  size_t helpers = std::min(n - 1, threads_.size());
  for (size_t i = 0; i < helpers; ++i) Submit(work);
  work();
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [&] { return state->done.load() == n; });
}

}  // namespace granite::core
