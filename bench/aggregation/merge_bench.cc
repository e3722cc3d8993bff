// The merge phases of a 10M-group aggregation (GROUP BY a UInt64 key, count() and sum(x)):
//   BM_LocalMerge/threads:T   a worker merging its 2 thread-local tables (each holding all 10M
//                              groups) with a pool of T threads: LocalMerger, up to the 256 bucket
//                              blocks ready to send;
//   BM_CoordinatorMerge/W     the coordinator merging the 256 buckets of W workers (20M rows over
//                              10M keys split evenly between them) with BucketedMerger on a pool of
//                              2 threads, up to the finalized result.
// Setup (aggregating the input) is not timed. Each run is one iteration; report the minimum.
//
//   build-*/merge_bench --benchmark_repetitions=3
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "coordinator/bucketed_merger.h"
#include "core/aggregation/aggregator.h"
#include "core/aggregation/local_merger.h"
#include "core/thread_pool.h"

namespace granite {
namespace {

using core::Aggregator;
using core::ColumnPtr;
using core::TypeId;

constexpr uint64_t kGroups = 10'000'000;
constexpr size_t kBatch = 65536;

const std::vector<core::AggregateSpec>& Specs() {
  static const auto* specs =
      new std::vector<core::AggregateSpec>{{"count", {}}, {"sum", {TypeId::kUInt64}}};
  return *specs;
}

// Returns the key of input row `row`: row % kGroups (so every key appears once in each kGroups
// rows) times an odd constant, a bijection that makes the keys large and scattered.
uint64_t KeyOfRow(uint64_t row) { return (row % kGroups) * 0x9E3779B97F4A7C15ULL; }

std::unique_ptr<Aggregator> Aggregate(uint64_t from, uint64_t to) {
  auto aggregator = std::move(*Aggregator::Create({TypeId::kUInt64}, Specs()));
  for (uint64_t at = from; at < to; at += kBatch) {
    uint64_t n = std::min<uint64_t>(kBatch, to - at);
    auto keys = std::make_shared<core::Column>(TypeId::kUInt64);
    auto values = std::make_shared<core::Column>(TypeId::kUInt64);
    keys->Resize(n);
    values->Resize(n);
    for (uint64_t i = 0; i < n; ++i) {
      keys->Data<uint64_t>()[i] = KeyOfRow(at + i);
      values->Data<uint64_t>()[i] = at + i;
    }
    (void)aggregator->Add({keys}, {{}, {values}}, n);
  }
  return aggregator;
}

void BM_LocalMerge(benchmark::State& state) {
  core::ThreadPool pool(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<std::unique_ptr<Aggregator>> threads;
    // Two threads, each with every group once.
    threads.push_back(Aggregate(0, kGroups));
    threads.push_back(Aggregate(kGroups, 2 * kGroups));
    state.ResumeTiming();
    core::LocalMerger::Options options;
    std::vector<core::Block> buckets = core::LocalMerger::Merge(std::move(threads), &pool, options);
    benchmark::DoNotOptimize(buckets.data());
    state.PauseTiming();
    buckets.clear();
    state.ResumeTiming();
  }
}

void BM_CoordinatorMerge(benchmark::State& state) {
  size_t workers = state.range(0);
  core::ThreadPool pool(2);
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<std::vector<core::Block>> sent(workers);
    for (size_t w = 0; w < workers; ++w) {
      uint64_t rows = 2 * kGroups / workers;
      std::vector<std::unique_ptr<Aggregator>> one;
      one.push_back(Aggregate(w * rows, (w + 1) * rows));
      core::LocalMerger::Options options;
      options.final_only = workers == 1;
      sent[w] = core::LocalMerger::Merge(std::move(one), nullptr, options);
    }
    state.ResumeTiming();
    coordinator::BucketedMerger merger({TypeId::kUInt64}, Specs(), workers, &pool,
                                       [] { return false; });
    for (uint32_t b = 0; b < core::kBucketCount; ++b) {
      for (size_t w = 0; w < workers; ++w) merger.Add(w, b, std::move(sent[w][b]));
    }
    auto result = merger.Finish();
    state.PauseTiming();
    if (!result.ok() || result->rows() != kGroups) {
      state.SkipWithError("wrong result");
      break;
    }
    state.counters["merge_cpu_s"] = merger.merge_ns() / 1e9;
    result = absl::StatusOr<core::Block>();
    state.ResumeTiming();
  }
}

BENCHMARK(BM_LocalMerge)->ArgName("threads")->Arg(1)->Arg(2)->Iterations(1)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CoordinatorMerge)->ArgName("workers")->Arg(1)->Arg(2)->Arg(3)->Iterations(1)
    ->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace granite

BENCHMARK_MAIN();
