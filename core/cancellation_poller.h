// CancellationPoller: one background thread per process that notices when the client of a running
// RPC has gone away (gRPC's sync API offers no callback for that, only
// ServerContext::IsCancelled()) and runs that RPC's cancel action. It replaces a watcher thread per call, whose creation and
// 20 ms sleep showed up in every short query's latency.
//
// Registrations are spread over shards, each behind its own lock, so queries starting and ending
// on many threads do not serialize on one global mutex. A round skips empty shards without
// locking them. With nothing registered the thread keeps its 20 ms rounds for a second, then
// sleeps until a registration arrives: under a stream of short queries (each registered for less
// than a round) it neither sleeps nor is woken per query — waking it (a futex call by the query,
// a switch, and std::atomic::wait's sched_yield spins on a loaded machine) cost a worker ~15% of
// its CPU per point-query fragment, more than the rounds do.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>

#include "core/mutex.h"

namespace granite::core {

// Polls registered predicates every `interval` and runs each one's action once it turns true.
// Thread-safety: Watch() and ~Registration from any thread.
class CancellationPoller {
 public:
  struct Shard;
  struct Entry {
    std::function<bool()> gone;
    std::function<void()> cancel;
    bool fired = false;
  };

  // Unregisters its entry when destroyed; waits for an action in flight, so the action may refer
  // to state that dies right after the registration.
  class Registration {
   public:
    Registration() = default;
    Registration(Registration&& other) noexcept;
    Registration& operator=(Registration&&) = delete;
    ~Registration();

   private:
    friend class CancellationPoller;
    Shard* shard_ = nullptr;
    std::list<Entry>::iterator entry_;
  };

  // Returns the process-wide poller (20 ms interval), starting its thread on first use.
  static CancellationPoller& Global();

  // Calls `cancel` (once, on the poller thread) when `gone` returns true.
  // REQUIRES: `gone` is cheap and thread-safe (e.g. ServerContext::IsCancelled).
  [[nodiscard]] Registration Watch(std::function<bool()> gone, std::function<void()> cancel);

 private:
  CancellationPoller();
  void Loop();

  // Enough that a registration rarely meets the poller on its shard (at 256 concurrent queries,
  // 16 shards showed waits here).
  static constexpr size_t kShards = 64;
  std::unique_ptr<Shard[]> shards_;
  std::atomic<size_t> active_{0};  // registrations alive
  // The thread sleeps on idle_ once nothing was registered for kIdleRounds rounds.
  Mutex idle_mu_{"cancellation_poller_idle"};
  std::condition_variable_any idle_;
  bool sleeping_ GUARDED_BY(idle_mu_) = false;
};

struct CancellationPoller::Shard {
  Mutex mu{"cancellation_poller"};
  std::list<Entry> entries GUARDED_BY(mu);
  std::atomic<size_t> size{0};             // entries.size(), read without the lock
  std::atomic<size_t>* active = nullptr;   // the poller's count of all registrations
};

}  // namespace granite::core
