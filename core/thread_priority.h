// Thread priority: lowers the OS scheduling priority (raises the nice value) of the threads that
// execute SELECTs — the worker's fragment pool and Execute handlers, the coordinator's merge pool
// and SELECT handlers — so the threads that serve INSERTs (left at the process's nice value) win
// the CPU when both are runnable. ClickHouse does the same per query thread (os_thread_priority).
//
// Linux keeps a nice value per thread: setpriority(PRIO_PROCESS, gettid(), n) changes only the
// calling thread. Raising it is always allowed; lowering it back needs CAP_SYS_NICE (or
// RLIMIT_NICE), so ScopedThreadNice only lowers a thread's priority where it can restore it, and a
// process without the capability niceness only its dedicated pool threads.
#pragma once

#include "absl/status/status.h"

namespace granite::core {

// Adds `delta` (0..19) to the calling thread's nice value for good; 0 does nothing.
absl::Status LowerThreadPriority(int delta);

// Returns true if this process may lower a thread's nice value again (checked once).
bool CanRestoreThreadPriority();

// Adds `delta` to the calling thread's nice value for its lifetime, then restores it. Does
// nothing when `delta` is 0 or the process could not restore the priority afterwards.
// Thread-safety: construct and destroy on the same thread.
class ScopedThreadNice {
 public:
  explicit ScopedThreadNice(int delta);
  ~ScopedThreadNice();
  ScopedThreadNice(const ScopedThreadNice&) = delete;
  ScopedThreadNice& operator=(const ScopedThreadNice&) = delete;

  bool active() const { return active_; }

 private:
  bool active_ = false;
  int previous_ = 0;
};

}  // namespace granite::core
