// ChunkQueue: the chunks of one insert being prepared (parsed, converted, encoded) on a thread
// pool while the insert's own thread sends earlier ones (exec/insert_executor.cc). Results come
// back in the order the chunks were added, so rows reach the workers in input order whatever
// order the pool finishes them in.
//
// At most `window` chunks are held (queued, being prepared, or ready and not yet taken); the
// insert's thread adds one only while full() is false, so an insert holds a bounded number of
// chunks however long its input. Pop runs the oldest chunk's work itself when no pool thread has
// started it yet: a busy pool delays an insert but cannot stall it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "core/mutex.h"
#include "core/thread_pool.h"

namespace granite::coordinator {

// Thread-safety: every method from the insert's thread only; the work runs on the pool's
// threads (or in Pop). Destruction waits for work that has started and drops the rest.
template <typename T>
class ChunkQueue {
 public:
  // REQUIRES: `pool` outlives the queue; window >= 1.
  ChunkQueue(core::ThreadPool* pool, size_t window)
      : pool_(pool), window_(window == 0 ? 1 : window), shared_(std::make_shared<Shared>()) {}
  ~ChunkQueue() {
    core::MutexLock lock(shared_->mu);
    for (const std::shared_ptr<Slot>& slot : slots_) {
      if (slot->stage == Stage::kQueued) {
        slot->stage = Stage::kDropped;
        slot->work = nullptr;
      }
    }
    shared_->changed.wait(shared_->mu,
                          [this]() NO_THREAD_SAFETY_ANALYSIS { return shared_->running == 0; });
  }
  ChunkQueue(const ChunkQueue&) = delete;
  ChunkQueue& operator=(const ChunkQueue&) = delete;

  bool empty() const { return slots_.empty(); }
  bool full() const { return slots_.size() >= window_; }

  // Queues work() on the pool; its result is what the Pop that reaches it returns.
  void Add(std::function<T()> work) {
    auto slot = std::make_shared<Slot>();
    slot->work = std::move(work);
    slots_.push_back(slot);
    pool_->Submit([shared = shared_, slot] { Run(*shared, *slot); });
  }

  // Waits for the oldest chunk's work (running it here if nobody started it) and returns its
  // result. REQUIRES: !empty().
  T Pop() {
    std::shared_ptr<Slot> slot = std::move(slots_.front());
    slots_.pop_front();
    Run(*shared_, *slot);
    core::MutexLock lock(shared_->mu);
    shared_->changed.wait(
        shared_->mu, [&slot]() NO_THREAD_SAFETY_ANALYSIS { return slot->stage == Stage::kDone; });
    return std::move(*slot->value);
  }

 private:
  enum class Stage { kQueued, kRunning, kDone, kDropped };
  // One chunk. stage and value are protected by Shared::mu; work is read by the one thread that
  // moved stage from kQueued to kRunning.
  struct Slot {
    Stage stage = Stage::kQueued;
    std::function<T()> work;
    std::optional<T> value;
  };
  // What the pool's closures share with the queue (they may outlive it).
  struct Shared {
    core::Mutex mu{"insert_chunk_queue"};
    std::condition_variable_any changed;  // a slot is done, or nothing runs any more
    size_t running GUARDED_BY(mu) = 0;
  };

  // Runs the slot's work unless another thread took it or the queue dropped it.
  static void Run(Shared& shared, Slot& slot) {
    {
      core::MutexLock lock(shared.mu);
      if (slot.stage != Stage::kQueued) return;
      slot.stage = Stage::kRunning;
      ++shared.running;
    }
    std::optional<T> value(slot.work());
    slot.work = nullptr;  // frees what the work held (the chunk's text) before the value is taken
    {
      core::MutexLock lock(shared.mu);
      slot.value = std::move(value);
      slot.stage = Stage::kDone;
      --shared.running;
    }
    shared.changed.notify_all();
  }

  // Constant after construction.
  core::ThreadPool* const pool_;
  const size_t window_;
  const std::shared_ptr<Shared> shared_;
  // The insert's thread's own.
  std::deque<std::shared_ptr<Slot>> slots_;
};

}  // namespace granite::coordinator
