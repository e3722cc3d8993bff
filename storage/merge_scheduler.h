// MergeScheduler: the worker's background merges and OPTIMIZE TABLE.
//
// A background thread wakes every `interval`, asks each table for a merge (Table::ReserveMerge,
// size-tiered: storage/merge_selector.h; it looks only at partitions changed since) while fewer than `threads` merges run, and runs them on
// its own bounded pool, so merges never take the query pool's threads and at most `threads` run
// at once. After each merge, and on every wake-up, it deletes the replaced parts that no query
// reads any more. Running merges are listed with their progress for system.merges.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "core/mutex.h"
#include "core/thread_pool.h"
#include "core/worker_api.h"
#include "storage/table.h"

namespace granite::storage {

struct MergeOptions {
  size_t threads = 2;  // concurrent background merges; 0 = no background merges
  MergeLimits limits;
  std::chrono::milliseconds interval{200};
  // Background merges run with their thread's nice value raised by this much (20 = SCHED_IDLE;
  // core/thread_priority.h), as SELECTs do under --query_thread_nice: merges and SELECTs then
  // share what small INSERTs leave, and a merge never starves the SELECTs. 0 = off. Their
  // commit (the parts registry's exclusive lock) runs at normal priority. -1 = automatic
  // (core::HeavyWorkPriority, resolved as each merge starts).
  int nice = 0;
};

// One running merge, as system.merges shows it: the worker API's value, sent as it is.
using MergeInfo = core::worker_api::MergeInfo;

// Schedules merges over the tables a callback lists.
// Thread-safety: all methods may be called concurrently.
class MergeScheduler {
 public:
  using TableLister = std::function<std::vector<std::shared_ptr<Table>>()>;

  MergeScheduler(TableLister tables, MergeOptions options);
  // Stops the background thread, cancels running merges and waits for them.
  ~MergeScheduler();
  MergeScheduler(const MergeScheduler&) = delete;
  MergeScheduler& operator=(const MergeScheduler&) = delete;

  // Starts the background thread (no-op when options.threads == 0 or already started).
  void Start() EXCLUDES(mu_);

  // Merges `table` now, on the calling thread: one merge MergeSelector chooses (nothing if none
  // qualifies), or with `final` every partition into one part, waiting for running merges of
  // its parts first. Errors: those of Table::RunMerge.
  absl::Status Optimize(const std::shared_ptr<Table>& table, bool final) EXCLUDES(mu_);

  // Returns the running merges.
  std::vector<MergeInfo> Running() const EXCLUDES(mu_);
  // Returns how many merges finished (successfully) since construction.
  uint64_t merges_done() const { return merges_done_.load(); }

 private:
  struct Entry {
    MergeInfo info;
    std::chrono::steady_clock::time_point started;
    MergeProgress progress;
  };

  void Loop() EXCLUDES(mu_);
  // Runs one reserved merge, listed in running_ meanwhile.
  absl::Status Execute(const std::shared_ptr<Table>& table, const Table::MergeTask& task,
                       bool optimize) EXCLUDES(mu_);

  // Constant after construction.
  TableLister tables_;
  MergeOptions options_;

  mutable core::Mutex mu_{"merge_scheduler"};
  std::condition_variable_any wake_;
  bool stopping_ GUARDED_BY(mu_) = false;
  size_t background_running_ GUARDED_BY(mu_) = 0;
  std::list<Entry> running_ GUARDED_BY(mu_);
  std::atomic<uint64_t> merges_done_{0};
  std::unique_ptr<core::ThreadPool> pool_;  // created by Start
  std::thread thread_;
};

}  // namespace granite::storage
