#include "core/thread_priority.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/status_macros.h"

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

bool SetNice(int nice) { return setpriority(PRIO_PROCESS, ThreadId(), nice) == 0; }

// Switches the calling thread between SCHED_IDLE and SCHED_OTHER (nice kept by the kernel).
bool SetIdle(bool idle) {
  sched_param param{};
  return sched_setscheduler(ThreadId(), idle ? SCHED_IDLE : SCHED_OTHER, &param) == 0;
}

}  // namespace

absl::Status ValidateThreadPriorityDelta(int delta, const char* flag) {
  if (delta >= 0 && delta <= kIdleThreadPriority) return absl::OkStatus();
  return Error(ErrorCode::kBadArguments,
               absl::StrCat(flag, " must be in 0..19 (nice) or 20 (SCHED_IDLE), got ", delta));
}

absl::Status LowerThreadPriority(int delta) {
  if (delta == 0) return absl::OkStatus();
  RETURN_IF_ERROR(ValidateThreadPriorityDelta(delta, "Thread priority delta"));
  if (delta == kIdleThreadPriority) {
    if (SetIdle(true)) {
      lowered = kIdleThreadPriority;
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
  return absl::OkStatus();
}

int LoweredThreadPriority() { return lowered; }

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
  delta_ = std::min(delta, kIdleThreadPriority);
  active_ = Lower();
}

ScopedThreadNice::~ScopedThreadNice() {
  if (active_) Restore();
}

bool ScopedThreadNice::Lower() {
  bool ok = delta_ == kIdleThreadPriority ? SetIdle(true)
                                          : SetNice(std::min(19, previous_ + delta_));
  if (ok) {
    lowered = delta_;
    lowering_scope = this;
  }
  return ok;
}

bool ScopedThreadNice::Restore() {
  // SCHED_IDLE leaves the nice value alone, so leaving it restores the thread.
  bool ok = delta_ == kIdleThreadPriority ? SetIdle(false) : SetNice(previous_);
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
