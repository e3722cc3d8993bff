#include "core/metrics/thread_counters.h"

#include <mutex>
#include <new>
#include <vector>

namespace granite::core {

constinit thread_local ThreadCounters* ThreadCounters::local_ = nullptr;

namespace {

// Every block ever made, and the ones whose thread has exited. A plain std::mutex (not a granite
// Mutex, which counts into these very blocks): it is taken when a thread claims or returns a block
// and when a scrape sums, never per increment.
struct BlockRegistry {
  std::mutex mu;
  std::vector<ThreadCounters*> all;
  std::vector<ThreadCounters*> free;
};

BlockRegistry& Registry() {
  static BlockRegistry* registry = new BlockRegistry();
  return *registry;
}

}  // namespace

// Returns the thread's block to the free list when the thread exits. The thread keeps pointing at
// it, so a counter bumped by a later thread_local destructor still lands in a live block (at worst
// racing with the block's next owner, which may lose that one increment).
struct ThreadCountersRelease {
  ThreadCounters* block = nullptr;
  ~ThreadCountersRelease() {
    if (block == nullptr) return;
    BlockRegistry& registry = Registry();
    std::lock_guard<std::mutex> guard(registry.mu);
    registry.free.push_back(block);
  }
};

ThreadCounters& ThreadCounters::Claim() {
  static thread_local ThreadCountersRelease release;
  ThreadCounters* block = nullptr;
  {
    BlockRegistry& registry = Registry();
    std::lock_guard<std::mutex> guard(registry.mu);
    if (!registry.free.empty()) {
      block = registry.free.back();
      registry.free.pop_back();
    } else {
      block = new ThreadCounters();
      registry.all.push_back(block);
    }
  }
  release.block = block;
  local_ = block;
  return *block;
}

uint64_t ThreadCounters::Sum(size_t slot) {
  uint64_t total = 0;
  SumRange(slot, 1, &total);
  return total;
}

void ThreadCounters::SumRange(size_t first, size_t count, uint64_t* out) {
  for (size_t i = 0; i < count; ++i) out[i] = 0;
  BlockRegistry& registry = Registry();
  std::lock_guard<std::mutex> guard(registry.mu);
  for (const ThreadCounters* block : registry.all) {
    for (size_t i = 0; i < count; ++i) {
      out[i] += block->slots_[first + i].load(std::memory_order_relaxed);
    }
  }
}

size_t ThreadCounters::BlockCount() {
  BlockRegistry& registry = Registry();
  std::lock_guard<std::mutex> guard(registry.mu);
  return registry.all.size();
}

}  // namespace granite::core
