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

#include <chrono>

#include "absl/status/status.h"

namespace granite::core {

// The `delta` that stands for "lowest": instead of a nice value the thread gets the SCHED_IDLE
// policy, so it runs only when no normal thread of the machine wants the CPU — a waking INSERT
// handler preempts it at once, where a nice-19 thread still holds its slice.
inline constexpr int kIdleThreadPriority = 20;

// The configured delta (--query_thread_nice) that stands for "automatic": heavy work (SELECTs,
// bulk inserts, merges) runs at kIdleThreadPriority while small INSERTs arrive — one within the
// last kSmallWriteWindow, as MarkSmallWrite() records them — and at normal priority otherwise,
// so a SELECT-only load pays nothing for the protection of small INSERTs. HeavyWorkPriority()
// resolves it at the moment the work starts.
inline constexpr int kAutoThreadPriority = -1;
inline constexpr std::chrono::milliseconds kSmallWriteWindow{1000};
// What HeavyWorkPriority resolves the automatic mode to while small writes arrive: SCHED_IDLE as
// kIdleThreadPriority, but only while they keep arriving. Work that started during a burst of
// INSERTs returns to normal priority once none came for kSmallWriteWindow (at its next task or
// chunk: AdoptThreadPriority, RelaxAutomaticPriority), instead of starving for its whole run on
// a machine whose other processes keep the CPUs busy.
inline constexpr int kAutoIdleThreadPriority = 21;

// Returns an error unless kAutoThreadPriority <= delta <= kIdleThreadPriority; `flag` names the
// option in it.
absl::Status ValidateThreadPriorityDelta(int delta, const char* flag);

// Records that a small write (an INSERT the lowering protects) runs now. Thread-safe: a clock
// read and a relaxed atomic load, and a store at most once per 10 ms.
void MarkSmallWrite();
// Returns true if MarkSmallWrite() ran within the last kSmallWriteWindow.
bool RecentSmallWrites();
// Returns the delta heavy work runs at now: `configured` itself (0..20), or for
// kAutoThreadPriority kAutoIdleThreadPriority while RecentSmallWrites() and 0 otherwise.
int HeavyWorkPriority(int configured);

// Returns the calling thread to normal priority if automatic mode lowered it
// (kAutoIdleThreadPriority, by a ScopedThreadNice or AdoptThreadPriority) and no small write
// came within the last kSmallWriteWindow; otherwise does nothing. Cheap (a thread-local read)
// when the thread is not so lowered: long-running work calls it per chunk or task.
void RelaxAutomaticPriority();

// Adds `delta` (0..19) to the calling thread's nice value for good, or switches it to SCHED_IDLE
// (delta == kIdleThreadPriority); 0 does nothing.
absl::Status LowerThreadPriority(int delta);

// Returns the delta by which LowerThreadPriority or a live ScopedThreadNice lowered the calling
// thread (0 = not lowered). Code that hands a query's work to another thread passes it on, so the
// work keeps the query's priority there (coordinator/cluster/reader_threads.h).
int LoweredThreadPriority();

// Returns true if this process may lower a thread's nice value again (checked once).
bool CanRestoreThreadPriority();

// Switches the calling thread to `delta` (0 = normal, 1..20 as LowerThreadPriority) until the next
// call, for a pool thread that runs tasks of queries at different priorities (core::ThreadPool
// gives each task its submitter's). Does nothing if the thread is already there, was lowered for
// good (LowerThreadPriority) or is inside a ScopedThreadNice, or the process could not restore
// its priority. The fast path is two thread-local reads.
void AdoptThreadPriority(int delta);

// Adds `delta` to the calling thread's nice value (or, for kIdleThreadPriority, switches it to
// SCHED_IDLE) for its lifetime, then restores it. Does
// nothing when `delta` is 0, the process could not restore the priority afterwards, or the thread
// already runs lowered (by LowerThreadPriority or an enclosing ScopedThreadNice): a query whose
// whole path is lowered keeps one priority through the inner scopes.
// Thread-safety: construct and destroy on the same thread.
class ScopedThreadNice {
 public:
  explicit ScopedThreadNice(int delta);
  ~ScopedThreadNice();
  ScopedThreadNice(const ScopedThreadNice&) = delete;
  ScopedThreadNice& operator=(const ScopedThreadNice&) = delete;

  bool active() const { return active_; }

 private:
  friend class ScopedNormalPriority;
  friend void RelaxAutomaticPriority();

  // Switch the calling thread to the lowered priority / back to previous_, and keep the
  // thread's record of its lowering scope; each returns false (record unchanged) if the system
  // call failed.
  bool Lower();
  bool Restore();

  bool active_ = false;
  int delta_ = 0;     // 1..19 (nice) or kIdleThreadPriority
  int previous_ = 0;  // the nice value before
};

// Runs the calling thread at the priority it had before the enclosing ScopedThreadNice for its
// lifetime, then lowers it again: for calls into gRPC from a lowered SELECT thread. gRPC runs
// shared work (polling a connection's socket, a transport's queued writes) on whichever thread
// calls in, and a SCHED_IDLE thread preempted there stalls the INSERTs on the same connection
// until the CPUs go idle. Does nothing when no ScopedThreadNice on this thread is active (the
// permanently lowered pool threads make no gRPC calls).
// Thread-safety: construct and destroy on the same thread.
class ScopedNormalPriority {
 public:
  ScopedNormalPriority();
  ~ScopedNormalPriority();
  ScopedNormalPriority(const ScopedNormalPriority&) = delete;
  ScopedNormalPriority& operator=(const ScopedNormalPriority&) = delete;

 private:
  ScopedThreadNice* lowered_by_ = nullptr;  // the scope to re-apply, if this one restored
};

}  // namespace granite::core
