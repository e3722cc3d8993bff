// ThreadPool: the process-wide pool that runs morsels of fragments (worker) and bucket merges
// (coordinator). Tasks are plain closures; ParallelFor runs an index range with the caller helping.
//
// The queue is split into shards, each behind its own "thread_pool_queue" lock: submitters (every
// query's handler thread) spread over the shards round-robin, and a pool thread takes from its
// home shard first, then from the others. With hundreds of concurrent queries on two cores, one
// queue lock was the most waited-for lock in granite (its holder gets preempted; see
// bench/results/2026-11-22-observability.md). Tasks leave each shard in FIFO order; across
// shards the order is approximate.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/memory/memory_tracker.h"
#include "core/mutex.h"

namespace granite::core {

// A task runs at its submitter's priority (core::AdoptThreadPriority), unless the pool's threads
// were lowered for good at their start or the pool was made with `adopt_priority` false: a SELECT
// lowered under --query_thread_nice keeps its priority in its morsels and bucket merges. (Pools
// whose tasks are whole queries that set their own priority, and make gRPC calls, do not adopt:
// a slot released at the end of a lowered query must not lower the next query's thread.)
//
// A task charges its memory to its submitter's query tracker (core/memory/memory_tracker.h).
//
// Runs closures on a fixed set of threads. Counts tasks run and the time each waited in the queue
// (ThreadPoolTasks, ThreadPoolQueueMicroseconds).
// Thread-safety: Submit() may be called from any thread, including pool threads.
class ThreadPool {
 public:
  // Tasks come in bursts in the compute pools (a query's bucket merges, a fragment's morsels): a
  // thread that runs out yields this many times before it sleeps, so the next task of a burst finds
  // it awake and its submitter need not wake it.
  static constexpr int kDefaultYieldsBeforeSleep = 16;

  // Starts `threads` threads (at least 1), named `name` (core/thread_name.h). `on_thread_start(i)`
  // runs first on thread i (pinning). `yields_before_sleep` 0 suits pools whose tasks are whole
  // queries (no bursts): each yield of an idle thread is a context switch that other threads of the
  // machine pay for.
  explicit ThreadPool(size_t threads, std::function<void(size_t)> on_thread_start = nullptr,
                      int yields_before_sleep = kDefaultYieldsBeforeSleep,
                      std::string name = "pool", bool adopt_priority = true);
  // Runs the tasks still queued, then joins the threads.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Submit(std::function<void()> task) EXCLUDES(idle_mu_);
  size_t size() const { return threads_.size(); }

  // Runs fn(i) for i in [0, n) on the pool and the calling thread, and returns when all are done.
  // The caller helps, so nesting ParallelFor inside a pool task cannot deadlock.
  void ParallelFor(size_t n, const std::function<void(size_t)>& fn);

 private:
  struct Task {
    std::function<void()> run;
    std::chrono::steady_clock::time_point enqueued;
    int priority = 0;  // the submitter's (core/thread_priority.h): the pool thread adopts it
    // The submitter's query tracker (core/memory/memory_tracker.h), charged while the task runs.
    std::shared_ptr<MemoryTracker> memory;
  };
  struct Shard {
    Mutex mu{"thread_pool_queue"};
    std::deque<Task> queue GUARDED_BY(mu);
    std::atomic<size_t> size{0};  // queue.size(), readable without the lock to skip empty shards
  };

  // Takes the oldest task of the first non-empty shard, starting at `home`.
  bool TryPop(size_t home, Task* task);
  void Loop(size_t index) EXCLUDES(idle_mu_);

  // Constant after construction.
  size_t thread_count_ = 0;
  size_t shard_count_ = 0;
  std::unique_ptr<Shard[]> shards_;
  std::function<void(size_t)> on_thread_start_;
  std::string name_;
  int yields_before_sleep_ = kDefaultYieldsBeforeSleep;
  bool adopt_priority_ = true;
  std::vector<std::thread> threads_;

  // Tasks submitted and not yet taken, and threads about to sleep or asleep. A submitter that
  // sees idle_ > 0 after raising pending_ wakes one; a thread going idle re-reads pending_ after
  // raising idle_ (both sequentially consistent), so no wake-up is lost.
  std::atomic<size_t> pending_{0};
  std::atomic<size_t> idle_{0};
  std::atomic<bool> stopping_{false};
  Mutex idle_mu_{"thread_pool_idle"};
  std::condition_variable_any wake_;
};

// Runs fn(i) for i in [0, n): on `pool` (with the caller helping) when there is one with more than
// one thread and n > 1, else serially on the calling thread.
void ParallelForOrSerial(ThreadPool* pool, size_t n, const std::function<void(size_t)>& fn);

}  // namespace granite::core
