#include "core/process.h"

#include <signal.h>

#include <cstddef>
#include <cstdint>

// jemalloc's control interface; weak so binaries built without jemalloc (sanitizers) still link.
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen)
    __attribute__((weak));

namespace granite::core {

void BlockShutdownSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int WaitForShutdownSignal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  int signal = 0;
  sigwait(&set, &signal);
  return signal;
}

std::string AllocatorSummary() {
  if (mallctl == nullptr) return "allocator: glibc malloc (jemalloc not linked)";
  const char* version = nullptr;
  size_t size = sizeof(version);
  if (mallctl("version", &version, &size, nullptr, 0) != 0) {
    return "allocator: malloc without jemalloc's mallctl";
  }
  size_t fit = 0;
  size = sizeof(fit);
  std::string fit_text = "unknown";
  if (mallctl("opt.lg_extent_max_active_fit", &fit, &size, nullptr, 0) == 0) {
    fit_text = std::to_string(fit);
  }
  bool background = false;
  size = sizeof(background);
  const bool background_known = mallctl("background_thread", &background, &size, nullptr, 0) == 0;
  return std::string("allocator: jemalloc ") + version + ", lg_extent_max_active_fit=" + fit_text +
         ", background_thread=" + (background_known ? (background ? "true" : "false") : "unknown");
}

size_t JemallocStat(const char* name) {
  if (mallctl == nullptr) return 0;
  uint64_t epoch = 1;
  size_t size = sizeof(epoch);
  mallctl("epoch", &epoch, &size, &epoch, size);
  size_t value = 0;
  size = sizeof(value);
  if (mallctl(name, &value, &size, nullptr, 0) != 0) return 0;
  return value;
}

void JemallocPurge() {
  if (mallctl == nullptr) return;
  mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);  // 4096: MALLCTL_ARENAS_ALL
}

}  // namespace granite::core
