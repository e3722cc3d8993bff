#include "core/cancellation_poller.h"

#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "core/thread_name.h"

namespace granite::core {

namespace {
constexpr std::chrono::milliseconds kInterval{20};
// Rounds with nothing registered before the thread sleeps: a second.
constexpr int kIdleRounds = 50;
}  // namespace

CancellationPoller::Registration::Registration(Registration&& other) noexcept
    : shard_(std::exchange(other.shard_, nullptr)), entry_(other.entry_) {}

CancellationPoller::Registration::~Registration() {
  if (shard_ == nullptr) return;
  {
    MutexLock lock(shard_->mu);
    shard_->entries.erase(entry_);
    shard_->size.fetch_sub(1, std::memory_order_relaxed);
  }
  shard_->active->fetch_sub(1, std::memory_order_relaxed);
}

CancellationPoller& CancellationPoller::Global() {
  static CancellationPoller* poller = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    poller = new CancellationPoller();
    std::thread([] {
      SetCurrentThreadName("cancel_poller");
      poller->Loop();
    }).detach();
  });
  return *poller;
}

CancellationPoller::CancellationPoller() : shards_(new Shard[kShards]) {
  for (size_t i = 0; i < kShards; ++i) shards_[i].active = &active_;
}

CancellationPoller::Registration CancellationPoller::Watch(std::function<bool()> gone,
                                                           std::function<void()> cancel) {
  // Each thread walks the shards round-robin from its own starting point.
  thread_local size_t next = std::hash<std::thread::id>()(std::this_thread::get_id());
  Shard& shard = shards_[next++ % kShards];
  Registration registration;
  {
    MutexLock lock(shard.mu);
    registration.shard_ = &shard;
    registration.entry_ =
        shard.entries.insert(shard.entries.end(), {std::move(gone), std::move(cancel)});
    shard.size.fetch_add(1, std::memory_order_relaxed);
  }
  if (active_.fetch_add(1, std::memory_order_release) == 0) {
    // The lock orders this with the thread's last look at active_ before it sleeps.
    MutexLock lock(idle_mu_);
    if (sleeping_) idle_.notify_one();
  }
  return registration;
}

void CancellationPoller::Loop() {
  int idle_rounds = kIdleRounds;  // asleep until the first registration
  while (true) {
    if (active_.load(std::memory_order_acquire) != 0) {
      idle_rounds = 0;
    } else if (++idle_rounds >= kIdleRounds) {
      MutexLock lock(idle_mu_);
      while (active_.load(std::memory_order_acquire) == 0) {
        sleeping_ = true;
        idle_.wait(idle_mu_);
        sleeping_ = false;
      }
      idle_rounds = 0;
    }
    std::this_thread::sleep_for(kInterval);
    for (size_t i = 0; i < kShards; ++i) {
      Shard& shard = shards_[i];
      if (shard.size.load(std::memory_order_relaxed) == 0) continue;
      MutexLock lock(shard.mu);
      for (Entry& entry : shard.entries) {
        if (!entry.fired && entry.gone()) {
          entry.fired = true;
          entry.cancel();
        }
      }
    }
  }
}

}  // namespace granite::core
