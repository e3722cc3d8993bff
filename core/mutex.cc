#include "core/mutex.h"

#include <algorithm>
#include <chrono>
#include <deque>

#include "core/hash.h"

namespace granite::core {
namespace {

// Lock names, registered once and never removed, in an open-addressing table that readers probe
// without a lock (double-checked: probe; on a miss, lock, probe again, insert). A plain std::mutex
// guards insertion, which happens when a lock of a new name is first constructed.
constexpr size_t kTableSize = 2 * kLockSlots;  // power of two, at most half full

struct Registry {
  std::mutex mu;
  std::atomic<LockStats*> table[kTableSize] = {};
  std::deque<LockStats> storage;  // stable addresses; index = slot - kLockSlotBase
  LockStats* other = nullptr;     // shared by names past the capacity
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

LockStats* Probe(Registry& registry, std::string_view name, size_t* free_index) {
  size_t i = HashBytes(name) & (kTableSize - 1);
  while (true) {
    LockStats* stats = registry.table[i].load(std::memory_order_acquire);
    if (stats == nullptr) {
      *free_index = i;
      return nullptr;
    }
    if (stats->name() == name) return stats;
    i = (i + 1) & (kTableSize - 1);
  }
}

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Times the wait of a contended acquisition. Critical sections of granite's locks are short, so
// it first retries for a few microseconds — the holder, running on another core, is likely to
// release soon — before blocking in the kernel (a futex sleep costs two context switches).
// Returns true once `try_acquire` succeeds within the spin, false after it.
template <typename TryAcquire>
bool Spin(TryAcquire&& try_acquire) {
  constexpr int kSpins = 64;
  for (int i = 0; i < kSpins; ++i) {
    CpuRelax();
    if (try_acquire()) return true;
  }
  return false;
}

uint64_t NanosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start)
      .count();
}

template <typename TryAcquire, typename Acquire>
void TimedWait(LockStats* stats, TryAcquire&& try_acquire, Acquire&& acquire) {
  auto start = std::chrono::steady_clock::now();
  if (!Spin(try_acquire)) acquire();
  stats->RecordWait(NanosSince(start));
}

}  // namespace

LockStats* LockStatsFor(std::string_view name) {
  Registry& registry = GetRegistry();
  size_t free_index = 0;
  if (LockStats* stats = Probe(registry, name, &free_index)) return stats;
  std::lock_guard<std::mutex> guard(registry.mu);
  if (LockStats* stats = Probe(registry, name, &free_index)) return stats;
  // The last slot is reserved for "other".
  if (registry.storage.size() >= kLockSlots - 1) {
    if (registry.other == nullptr) {
      registry.other = &registry.storage.emplace_back("other", kLockSlotBase + kLockSlots - 1);
    }
    return registry.other;
  }
  LockStats* stats =
      &registry.storage.emplace_back(std::string(name), kLockSlotBase + registry.storage.size());
  registry.table[free_index].store(stats, std::memory_order_release);
  return stats;
}

std::vector<LockTotals> AllLockTotals() {
  std::vector<uint64_t> acquisitions(kLockSlots);
  ThreadCounters::SumRange(kLockSlotBase, kLockSlots, acquisitions.data());
  std::vector<LockTotals> out;
  Registry& registry = GetRegistry();
  {
    std::lock_guard<std::mutex> guard(registry.mu);
    for (const LockStats& stats : registry.storage) {
      out.push_back({stats.name(), acquisitions[stats.slot() - kLockSlotBase], stats.contended(),
                     stats.wait_ns()});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const LockTotals& a, const LockTotals& b) { return a.name < b.name; });
  return out;
}

bool Mutex::try_lock_briefly() {
  if (try_lock()) return true;
  auto start = std::chrono::steady_clock::now();
  bool acquired = Spin([this] { return mu_.try_lock(); });
  stats_->RecordWait(NanosSince(start));  // contended, whether or not it got the lock
  if (acquired) ThreadCounters::Local().Add(stats_->slot(), 1);
  return acquired;
}

void Mutex::LockSlow() {
  TimedWait(stats_, [this] { return mu_.try_lock(); }, [this] { mu_.lock(); });
}
void SharedMutex::LockSlow() {
  TimedWait(stats_, [this] { return mu_.try_lock(); }, [this] { mu_.lock(); });
}
void SharedMutex::LockSharedSlow() {
  TimedWait(stats_, [this] { return mu_.try_lock_shared(); }, [this] { mu_.lock_shared(); });
}

}  // namespace granite::core
