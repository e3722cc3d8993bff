#include "core/thread_priority.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/error.h"

namespace granite::core {

namespace {

pid_t ThreadId() { return static_cast<pid_t>(syscall(SYS_gettid)); }

// Returns the calling thread's nice value.
int CurrentNice() {
  errno = 0;
  int nice = getpriority(PRIO_PROCESS, ThreadId());
  return errno == 0 ? nice : 0;
}

// The delta by which LowerThreadPriority or a ScopedThreadNice lowered the calling thread (0 =
// not lowered): a nested ScopedThreadNice then leaves it alone.
thread_local int lowered = 0;

// The active ScopedThreadNice of the calling thread, if any (ScopedNormalPriority undoes it).
thread_local ScopedThreadNice* lowering_scope = nullptr;

// Set by LowerThreadPriority: the thread keeps that priority (AdoptThreadPriority leaves it).
thread_local bool lowered_for_good = false;
// The nice value of a thread before AdoptThreadPriority first lowered it.
thread_local int adopted_from = 0;

// When MarkSmallWrite last ran (steady clock, nanoseconds since its epoch; 0 = never).
std::atomic<int64_t> last_small_write_ns{0};

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool SetNice(int nice) { return setpriority(PRIO_PROCESS, ThreadId(), nice) == 0; }

// Switches the calling thread between SCHED_IDLE and SCHED_OTHER (nice kept by the kernel).
bool SetIdle(bool idle) {
  sched_param param{};
  return sched_setscheduler(ThreadId(), idle ? SCHED_IDLE : SCHED_OTHER, &param) == 0;
}

}  // namespace

absl::Status ValidateThreadPriorityDelta(int delta, const char* flag) {
  if (delta >= kAutoThreadPriority && delta <= kIdleThreadPriority) return absl::OkStatus();
  return Error(ErrorCode::kBadArguments,
               absl::StrCat(flag, " must be -1 (automatic), 0..19 (nice) or 20 (SCHED_IDLE), got ",
                            delta));
}

void MarkSmallWrite() {
  int64_t now = SteadyNowNs();
  // Most calls find a recent mark: skip the store (a shared cache line) unless it is 10 ms old.
  if (now - last_small_write_ns.load(std::memory_order_relaxed) > 10'000'000) {
    last_small_write_ns.store(now, std::memory_order_relaxed);
  }
}

bool RecentSmallWrites() {
  int64_t last = last_small_write_ns.load(std::memory_order_relaxed);
  return last != 0 &&
         SteadyNowNs() - last <
             std::chrono::duration_cast<std::chrono::nanoseconds>(kSmallWriteWindow).count();
}

int HeavyWorkPriority(int configured) {
  if (configured != kAutoThreadPriority) return configured;
  return RecentSmallWrites() ? kAutoIdleThreadPriority : 0;
}

void RelaxAutomaticPriority() {
  if (lowered != kAutoIdleThreadPriority || RecentSmallWrites()) return;
  if (lowering_scope != nullptr) {
    ScopedThreadNice* scope = lowering_scope;  // Restore clears it
    if (scope->Restore()) scope->active_ = false;
  } else if (!lowered_for_good && SetIdle(false)) {
    lowered = 0;
  }
}

absl::Status LowerThreadPriority(int delta) {
  if (delta == 0) return absl::OkStatus();
  if (delta < 0 || delta > kIdleThreadPriority) {
    return Error(ErrorCode::kBadArguments,
                 "Thread priority delta must be in 1..20, got " + std::to_string(delta));
  }
  if (delta == kIdleThreadPriority) {
    if (SetIdle(true)) {
      lowered = kIdleThreadPriority;
      lowered_for_good = true;
      return absl::OkStatus();
    }
    return Error(ErrorCode::kBadArguments,
                 std::string("Cannot switch thread to SCHED_IDLE: ") + std::strerror(errno));
  }
  int target = std::min(19, CurrentNice() + delta);
  if (!SetNice(target)) {
    return Error(ErrorCode::kBadArguments,
                 "Cannot set thread nice value " + std::to_string(target) + ": " +
                     std::strerror(errno));
  }
  lowered = delta;
  lowered_for_good = true;
  return absl::OkStatus();
}

int LoweredThreadPriority() { return lowered; }

void AdoptThreadPriority(int delta) {
  if (delta == kAutoIdleThreadPriority && !RecentSmallWrites()) delta = 0;
  if (delta == lowered || lowered_for_good || lowering_scope != nullptr) return;
  if (delta < 0 || delta > kAutoIdleThreadPriority || !CanRestoreThreadPriority()) return;
  // Back to normal first: SCHED_IDLE keeps the nice value, so leaving it restores the thread.
  if (lowered >= kIdleThreadPriority) {
    if (!SetIdle(false)) return;
  } else if (lowered != 0) {
    if (!SetNice(adopted_from)) return;
  }
  lowered = 0;
  if (delta == 0) return;
  adopted_from = CurrentNice();
  bool ok = delta >= kIdleThreadPriority ? SetIdle(true)
                                         : SetNice(std::min(19, adopted_from + delta));
  if (ok) lowered = delta;
}

bool CanRestoreThreadPriority() {
  // Probed on a throw-away thread, so no thread of the process is left niced by the check.
  static const bool can = [] {
    bool ok = false;
    std::thread probe([&ok] {
      int before = CurrentNice();
      if (before >= 19 || !SetNice(before + 1)) return;
      if (!SetNice(before)) return;
      ok = SetIdle(true) && SetIdle(false) && CurrentNice() == before;
    });
    probe.join();
    return ok;
  }();
  return can;
}

ScopedThreadNice::ScopedThreadNice(int delta) {
  if (delta <= 0 || lowered != 0 || !CanRestoreThreadPriority()) return;
  previous_ = CurrentNice();
  delta_ = std::min(delta, kAutoIdleThreadPriority);
  active_ = Lower();
}

ScopedThreadNice::~ScopedThreadNice() {
  if (active_) Restore();
}

bool ScopedThreadNice::Lower() {
  bool ok = delta_ >= kIdleThreadPriority ? SetIdle(true)
                                          : SetNice(std::min(19, previous_ + delta_));
  if (ok) {
    lowered = delta_;
    lowering_scope = this;
  }
  return ok;
}

bool ScopedThreadNice::Restore() {
  // SCHED_IDLE leaves the nice value alone, so leaving it restores the thread.
  bool ok = delta_ >= kIdleThreadPriority ? SetIdle(false) : SetNice(previous_);
  if (ok) {
    lowered = 0;
    lowering_scope = nullptr;
  }
  return ok;
}

ScopedNormalPriority::ScopedNormalPriority() {
  ScopedThreadNice* scope = lowering_scope;  // Restore clears it
  if (scope != nullptr && scope->Restore()) lowered_by_ = scope;
}

ScopedNormalPriority::~ScopedNormalPriority() {
  if (lowered_by_ != nullptr) lowered_by_->Lower();
}

}  // namespace granite::core
