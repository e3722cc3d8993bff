// ReaderThreads: the threads FanOut reads worker streams on when its consumer waits across
// shards (an ordered source; every other query reads all its streams on its own thread,
// stream_set.h). A query over N workers then reads N - 1 streams on other threads; starting a std::thread for each costs a stack mapping, page faults
// and, at exit, TLB-shootdown IPIs to every core — at hundreds of short queries per second that is
// a fixed cost per query that grows with the number of concurrent clients. Here a finished reader
// parks and takes the next query's stream; a new thread starts only when none is parked.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "core/mutex.h"

namespace granite::coordinator {

// Runs blocking tasks on parked threads.
// Thread-safety: RunAll may be called from any number of threads at once.
// REQUIRES: an instance is never destroyed (its detached threads park on it for good); use
//           Global(), or leak it.
class ReaderThreads {
 public:
  // Keeps at most `max_parked` idle threads; a thread finishing a task beyond that exits.
  explicit ReaderThreads(size_t max_parked);
  ReaderThreads(const ReaderThreads&) = delete;
  ReaderThreads& operator=(const ReaderThreads&) = delete;

  // Returns the process-wide instance (never destroyed: parked threads live as long as the
  // process, as gRPC's idle server threads do).
  static ReaderThreads& Global();

  // Runs fn(0) .. fn(n - 1): the last on the calling thread, the others on parked or new threads,
  // and returns once every call has returned.
  void RunAll(size_t n, const std::function<void(size_t)>& fn);

  // Returns the number of threads parked now.
  size_t parked() const;

 private:
  struct Thread;
  // Hands `task` to a parked thread, or starts one.
  void Start(std::function<void()> task);
  // Runs tasks on one thread until it may not park.
  void Loop(std::shared_ptr<Thread> self, std::function<void()> task);

  // Constant after construction.
  const size_t max_parked_;

  // Protected by mu_.
  mutable core::Mutex mu_{"reader_threads"};
  std::vector<std::shared_ptr<Thread>> parked_ GUARDED_BY(mu_);
};

}  // namespace granite::coordinator
