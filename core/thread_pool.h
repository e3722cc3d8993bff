// ThreadPool: the process-wide pool that runs morsels of fragments (worker) and bucket merges
// (coordinator). Tasks are plain closures; TaskGroup waits for a set of tasks.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "core/mutex.h"

namespace granite::core {

// Runs closures on a fixed set of threads.
// Thread-safety: Submit() may be called from any thread, including pool threads.
class ThreadPool {
 public:
  // Starts `threads` threads (at least 1). `on_thread_start(i)` runs first on thread i (pinning).
  explicit ThreadPool(size_t threads, std::function<void(size_t)> on_thread_start = nullptr);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Submit(std::function<void()> task) EXCLUDES(mu_);
  size_t size() const { return threads_.size(); }

  // Runs fn(i) for i in [0, n) on the pool and the calling thread, and returns when all are done.
  // The caller helps, so nesting ParallelFor inside a pool task cannot deadlock.
  void ParallelFor(size_t n, const std::function<void(size_t)>& fn);

 private:
  void Loop(size_t index);

  Mutex mu_{"thread_pool_queue"};
  std::condition_variable_any wake_;
  std::deque<std::function<void()>> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
  std::function<void(size_t)> on_thread_start_;
};

}  // namespace granite::core
