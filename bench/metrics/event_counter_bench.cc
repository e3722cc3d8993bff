// Event counters: per-thread slots (CountEvent) against one shared atomic incremented by every
// thread, and the cost of an uncontended instrumented Mutex against a bare std::mutex.
// With 2 threads the per-thread counter should scale ~2x (items_per_second doubles) while the
// shared atomic stays flat or drops: its cache line bounces between the cores on every increment.
//
//   build-*/event_counter_bench --benchmark_min_time=0.5
#include <atomic>
#include <mutex>

#include "benchmark/benchmark.h"
#include "core/metrics/events.h"
#include "core/mutex.h"

namespace granite::core {
namespace {

constexpr int kIncrementsPerIteration = 1000;

alignas(64) std::atomic<uint64_t> shared_counter{0};

void BM_SharedAtomic(benchmark::State& state) {
  for (auto _ : state) {
    for (int i = 0; i < kIncrementsPerIteration; ++i) {
      shared_counter.fetch_add(1, std::memory_order_relaxed);
    }
  }
  state.SetItemsProcessed(state.iterations() * kIncrementsPerIteration);
}
BENCHMARK(BM_SharedAtomic)->Threads(1)->Threads(2)->UseRealTime();

void BM_ThreadLocalEvent(benchmark::State& state) {
  for (auto _ : state) {
    for (int i = 0; i < kIncrementsPerIteration; ++i) CountEvent(Event::kReadRows);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kIncrementsPerIteration);
}
BENCHMARK(BM_ThreadLocalEvent)->Threads(1)->Threads(2)->UseRealTime();

// Adjacent counters in one array, one per thread: the false-sharing layout of the seed story.
struct alignas(64) PackedCounters {
  std::atomic<uint64_t> slots[8];
};
PackedCounters packed;

void BM_FalselySharedSlots(benchmark::State& state) {
  std::atomic<uint64_t>& slot = packed.slots[state.thread_index()];
  for (auto _ : state) {
    for (int i = 0; i < kIncrementsPerIteration; ++i) {
      slot.store(slot.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kIncrementsPerIteration);
}
BENCHMARK(BM_FalselySharedSlots)->Threads(1)->Threads(2)->UseRealTime();

void BM_StdMutexUncontended(benchmark::State& state) {
  std::mutex mu;
  for (auto _ : state) {
    std::lock_guard<std::mutex> lock(mu);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_StdMutexUncontended);

void BM_GraniteMutexUncontended(benchmark::State& state) {
  Mutex mu("bench_uncontended");
  for (auto _ : state) {
    MutexLock lock(mu);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_GraniteMutexUncontended);

}  // namespace
}  // namespace granite::core

BENCHMARK_MAIN();
