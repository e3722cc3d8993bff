#include "core/thread_priority.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

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

bool SetNice(int nice) { return setpriority(PRIO_PROCESS, ThreadId(), nice) == 0; }

}  // namespace

absl::Status LowerThreadPriority(int delta) {
  if (delta == 0) return absl::OkStatus();
  if (delta < 0 || delta > 19) {
    return Error(ErrorCode::kBadArguments,
                 "Thread nice delta must be in 0..19, got " + std::to_string(delta));
  }
  int target = std::min(19, CurrentNice() + delta);
  if (!SetNice(target)) {
    return Error(ErrorCode::kBadArguments,
                 "Cannot set thread nice value " + std::to_string(target) + ": " +
                     std::strerror(errno));
  }
  return absl::OkStatus();
}

bool CanRestoreThreadPriority() {
  // Probed on a throw-away thread, so no thread of the process is left niced by the check.
  static const bool can = [] {
    bool ok = false;
    std::thread probe([&ok] {
      int before = CurrentNice();
      if (before >= 19 || !SetNice(before + 1)) return;
      ok = SetNice(before);
    });
    probe.join();
    return ok;
  }();
  return can;
}

ScopedThreadNice::ScopedThreadNice(int delta) {
  if (delta <= 0 || !CanRestoreThreadPriority()) return;
  previous_ = CurrentNice();
  active_ = SetNice(std::min(19, previous_ + delta));
}

ScopedThreadNice::~ScopedThreadNice() {
  if (active_) SetNice(previous_);
}

}  // namespace granite::core
