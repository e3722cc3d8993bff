#include "core/mutex.h"

#include <chrono>
#include <deque>
#include <map>

namespace granite::core {
namespace {

// The registry of lock stats; a plain std::mutex because it is taken only when a lock is created.
struct Registry {
  std::mutex mu;
  std::map<std::string, LockStats*> by_name;
  std::deque<LockStats> storage;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

template <typename F>
void TimedWait(LockStats* stats, F&& acquire) {
  auto start = std::chrono::steady_clock::now();
  acquire();
  auto waited = std::chrono::steady_clock::now() - start;
  stats->contended.fetch_add(1, std::memory_order_relaxed);
  stats->wait_ns.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count(),
                           std::memory_order_relaxed);
}

}  // namespace

LockStats* LockStatsFor(const std::string& name) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> guard(registry.mu);
  auto it = registry.by_name.find(name);
  if (it != registry.by_name.end()) return it->second;
  LockStats* stats = &registry.storage.emplace_back(name);
  registry.by_name.emplace(name, stats);
  return stats;
}

std::vector<const LockStats*> AllLockStats() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> guard(registry.mu);
  std::vector<const LockStats*> out;
  for (const auto& [name, stats] : registry.by_name) out.push_back(stats);
  return out;
}

void Mutex::LockSlow() { TimedWait(stats_, [this] { mu_.lock(); }); }
void SharedMutex::LockSlow() { TimedWait(stats_, [this] { mu_.lock(); }); }
void SharedMutex::LockSharedSlow() { TimedWait(stats_, [this] { mu_.lock_shared(); }); }

}  // namespace granite::core
