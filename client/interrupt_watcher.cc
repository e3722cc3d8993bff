#include "client/interrupt_watcher.h"

#include <atomic>

namespace granite::client {
namespace {

std::atomic<int> interrupt_count{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler needs a lock-free atomic");

extern "C" void CountInterrupt(int) { interrupt_count.fetch_add(1, std::memory_order_relaxed); }

struct sigaction CountingAction(bool restart) {
  struct sigaction action = {};
  action.sa_handler = CountInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = restart ? SA_RESTART : 0;
  return action;
}

}  // namespace

InterruptWatcher::InterruptWatcher() {
  interrupt_count.store(0);
  struct sigaction action = CountingAction(true);
  sigaction(SIGINT, &action, &previous_);
}

InterruptWatcher::~InterruptWatcher() { sigaction(SIGINT, &previous_, nullptr); }

int InterruptWatcher::Count() const { return interrupt_count.load(std::memory_order_relaxed); }

void InterruptWatcher::Reset() { interrupt_count.store(0, std::memory_order_relaxed); }

void InterruptWatcher::SetRestartSystemCalls(bool restart) {
  struct sigaction action = CountingAction(restart);
  sigaction(SIGINT, &action, nullptr);
}

}  // namespace granite::client
