#include "core/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <memory>

#include "core/metrics/events.h"
#include "core/thread_name.h"
#include "core/thread_priority.h"

namespace granite::core {

ThreadPool::ThreadPool(size_t threads, std::function<void(size_t)> on_thread_start,
                       int yields_before_sleep, std::string name, bool adopt_priority)
    : on_thread_start_(std::move(on_thread_start)),
      name_(std::move(name)),
      yields_before_sleep_(yields_before_sleep),
      adopt_priority_(adopt_priority) {
  if (threads == 0) threads = 1;
  thread_count_ = threads;
  shard_count_ = std::max<size_t>(8, threads);
  shards_ = std::make_unique<Shard[]>(shard_count_);
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this, i] { Loop(i); });
}

ThreadPool::~ThreadPool() {
  stopping_ = true;
  {
    MutexLock lock(idle_mu_);
    wake_.notify_all();
  }
  for (auto& t : threads_) t.join();
}

void ThreadPool::Submit(std::function<void()> task) {
  // Each submitting thread walks the shards round-robin from its own starting point.
  thread_local size_t next = std::hash<std::thread::id>()(std::this_thread::get_id());
  Shard& shard = shards_[next++ % shard_count_];
  MemoryTracker* memory = CurrentMemoryTracker();
  Task entry{std::move(task), std::chrono::steady_clock::now(), LoweredThreadPriority(),
             memory != nullptr ? memory->weak_from_this().lock() : nullptr};
  {
    MutexLock lock(shard.mu);
    shard.queue.push_back(std::move(entry));
    shard.size.store(shard.queue.size(), std::memory_order_relaxed);
  }
  pending_.fetch_add(1);
  // Busy threads take the task when they finish theirs: no futex wake-up for them.
  if (idle_.load() > 0) {
    // Taking and dropping the lock orders this after a sleeper's check of pending_: the sleeper
    // is then inside wait(), and the notification reaches it.
    { MutexLock lock(idle_mu_); }
    wake_.notify_one();
  }
}

bool ThreadPool::TryPop(size_t home, Task* task) {
  for (size_t k = 0; k < shard_count_; ++k) {
    Shard& shard = shards_[(home + k) % shard_count_];
    if (shard.size.load(std::memory_order_relaxed) == 0) continue;
    MutexLock lock(shard.mu);
    if (shard.queue.empty()) continue;
    *task = std::move(shard.queue.front());
    shard.queue.pop_front();
    shard.size.store(shard.queue.size(), std::memory_order_relaxed);
    pending_.fetch_sub(1);
    return true;
  }
  return false;
}

void ThreadPool::Loop(size_t index) {
  SetCurrentThreadName(name_);
  if (on_thread_start_) on_thread_start_(index);
  // Thread i starts its search at shard i * shards / threads, so threads begin apart.
  size_t home = index * shard_count_ / thread_count_;
  while (true) {
    Task task;
    if (!TryPop(home, &task)) {
      if (stopping_.load() && pending_.load() == 0) return;
      bool more = false;
      for (int i = 0; i < yields_before_sleep_ && !more; ++i) {
        std::this_thread::yield();
        more = pending_.load(std::memory_order_relaxed) > 0;
      }
      if (more) continue;
      MutexLock lock(idle_mu_);
      idle_.fetch_add(1);
      while (pending_.load() == 0 && !stopping_.load()) wake_.wait(idle_mu_);
      idle_.fetch_sub(1);
      continue;
    }
    auto waited = std::chrono::steady_clock::now() - task.enqueued;
    CountEvent(Event::kThreadPoolTasks);
    CountEvent(Event::kThreadPoolQueueMicroseconds,
               std::chrono::duration_cast<std::chrono::microseconds>(waited).count());
    if (adopt_priority_) AdoptThreadPriority(task.priority);
    MemoryTrackerScope memory(task.memory.get());
    task.run();
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

void ParallelForOrSerial(ThreadPool* pool, size_t n, const std::function<void(size_t)>& fn) {
  if (pool != nullptr && pool->size() > 1 && n > 1) {
    pool->ParallelFor(n, fn);
  } else {
    for (size_t i = 0; i < n; ++i) fn(i);
  }
}

}  // namespace granite::core
