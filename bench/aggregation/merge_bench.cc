// The merge phases of a 10M-group aggregation (GROUP BY a UInt64 key, count() and sum(x)):
//   BM_LocalMerge/threads:T   a worker merging its 2 thread-local tables (each holding all 10M
//                              groups) with a pool of T threads: LocalMerger, up to the 256 bucket
//                              blocks ready to send;
//   BM_CoordinatorMerge/W     the coordinator merging the 256 buckets of W workers (20M rows over
//                              10M keys split evenly between them) with BucketedMerger on a pool of
//                              2 threads, up to the finalized result;
//   BM_CoordinatorTopN/late:L  Q33's coordinator merge with the ORDER BY count() LIMIT 10 cut per
//                              bucket, late finalization off (0) or on (1).
//   BM_CoordinatorUrlTopN/mode:M/offset:O  Q37-Q40's shape (string keys, LIMIT 10 OFFSET O).
// Setup (aggregating the input) is not timed. Each run is one iteration; report the minimum.
//
//   build-*/merge_bench --benchmark_repetitions=3
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "coordinator/exec/bucketed_merger.h"
#include "coordinator/exec/final_stage.h"
#include "coordinator/exec/late_finalizer.h"
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

// Q33's coordinator merge (GROUP BY UInt64, UInt32 with count(), sum(Int16), avg(Int16) ORDER BY
// count() DESC LIMIT 10): 2 workers of kTopNRows rows each over nearly unique keys, merged bucket
// by bucket and cut to the top 10 per bucket, with late finalization off (0) or on (1).
constexpr uint64_t kTopNRows = 2'500'000;

std::vector<core::Block> TopNWorkerBuckets(uint64_t seed) {
  std::vector<TypeId> keys = {TypeId::kUInt64, TypeId::kUInt32};
  std::vector<core::AggregateSpec> specs = {
      {"count", {}}, {"sum", {TypeId::kInt16}}, {"avg", {TypeId::kInt16}}};
  auto aggregator = std::move(*Aggregator::Create(keys, specs));
  for (uint64_t at = 0; at < kTopNRows; at += kBatch) {
    uint64_t n = std::min<uint64_t>(kBatch, kTopNRows - at);
    auto k1 = std::make_shared<core::Column>(TypeId::kUInt64);
    auto k2 = std::make_shared<core::Column>(TypeId::kUInt32);
    auto x = std::make_shared<core::Column>(TypeId::kInt16);
    for (uint64_t i = at; i < at + n; ++i) {
      // 1 row in 64 repeats a key of the other worker: a few counts of 2.
      uint64_t key = i % 64 == 0 ? i : i * 2 + seed;
      k1->Append<uint64_t>(key * 0x9E3779B97F4A7C15ULL);
      k2->Append<uint32_t>(static_cast<uint32_t>(key * 2654435761u));
      x->Append<int16_t>(static_cast<int16_t>(i % 2000));
    }
    (void)aggregator->Add({k1, k2}, {{}, {x}, {x}}, n);
  }
  std::vector<std::unique_ptr<Aggregator>> one;
  one.push_back(std::move(aggregator));
  return core::LocalMerger::Merge(std::move(one), nullptr, core::LocalMerger::Options());
}

// A plan that returns every column of `types` as is, ordered by column `order_by` descending,
// LIMIT 10 OFFSET `offset`.
coordinator::QueryPlan TopNPlan(const std::vector<TypeId>& types, uint32_t order_by,
                                size_t offset = 0) {
  coordinator::QueryPlan plan;
  for (uint32_t c = 0; c < types.size(); ++c) {
    worker::v1::Expr expr;
    expr.set_type(static_cast<uint32_t>(types[c]));
    expr.set_column(c);
    plan.final_exprs.push_back(expr);
  }
  plan.visible = types.size();
  plan.order = {{order_by, true}};
  plan.has_limit = true;
  plan.limit = 10;
  plan.offset = offset;
  return plan;
}

// Merges the two workers' `sent` buckets for `plan` as the coordinator does (pieces cut and
// combined by the plan's ORDER BY / LIMIT), with late finalization attached when `late` is set.
// Returns the merger's result; `merge_ns` gets the merge CPU time.
absl::StatusOr<core::Block> MergeTopN(const coordinator::QueryPlan& plan,
                                      const std::vector<TypeId>& keys,
                                      const std::vector<core::AggregateSpec>& specs, bool late,
                                      std::vector<std::vector<core::Block>> sent,
                                      core::ThreadPool* pool, uint64_t* merge_ns) {
  auto finalizer = coordinator::LateFinalizer::Create(plan, keys, specs);
  coordinator::BucketedMerger merger(keys, specs, 2, pool, [] { return false; });
  merger.SetPieceCut([&plan](const core::Block& piece) { return CutPiece(plan, piece); });
  merger.SetPieceCombine([&plan](std::vector<core::Block> pieces) {
    return CombineCutPieces(plan, std::move(pieces));
  });
  if (late && finalizer.ok() && *finalizer) (*finalizer)->Attach(&merger);
  for (uint32_t b = 0; b < core::kBucketCount; ++b) {
    for (size_t w = 0; w < 2; ++w) merger.Add(w, b, std::move(sent[w][b]));
  }
  auto result = merger.Finish();
  *merge_ns = merger.merge_ns();
  return result;
}

void BM_CoordinatorTopN(benchmark::State& state) {
  bool late_on = state.range(0) != 0;
  core::ThreadPool pool(2);
  coordinator::QueryPlan plan = TopNPlan({TypeId::kUInt64, TypeId::kUInt32, TypeId::kUInt64,
                                          TypeId::kInt64, TypeId::kFloat64},
                                         /*order_by=*/2);
  std::vector<TypeId> keys = {TypeId::kUInt64, TypeId::kUInt32};
  std::vector<core::AggregateSpec> specs = {
      {"count", {}}, {"sum", {TypeId::kInt16}}, {"avg", {TypeId::kInt16}}};
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<std::vector<core::Block>> sent = {TopNWorkerBuckets(0), TopNWorkerBuckets(1)};
    state.ResumeTiming();
    uint64_t merge_ns = 0;
    auto result = MergeTopN(plan, keys, specs, late_on, std::move(sent), &pool, &merge_ns);
    state.PauseTiming();
    if (!result.ok() || result->rows() != 10) {
      state.SkipWithError("wrong result");
      break;
    }
    state.counters["merge_cpu_s"] = merge_ns / 1e9;
    state.ResumeTiming();
  }
}

// Q37-Q40's shape: GROUP BY (UInt16 x3, String Src, String URL) ORDER BY count() DESC LIMIT 10
// OFFSET `offset`: 2 workers x ~110K groups of a skewed key distribution (many equal counts),
// 256 buckets each. mode 0: late finalization off (the CutPiece path, what every bucket took
// before for OFFSET 1000); 1: late, phase 1 with an Aggregator; 2: late, grouped by reference.
std::vector<core::Block> UrlWorkerBuckets(uint64_t seed) {
  std::vector<TypeId> keys = {TypeId::kUInt16, TypeId::kUInt16, TypeId::kUInt16,
                              TypeId::kString, TypeId::kString};
  auto aggregator = std::move(*Aggregator::Create(keys, {{"count", {}}}));
  constexpr uint64_t kRows = 400'000, kIds = 150'000;
  std::mt19937_64 random(seed);
  std::vector<std::shared_ptr<core::Column>> columns;
  for (TypeId type : keys) columns.push_back(std::make_shared<core::Column>(type));
  for (uint64_t i = 0; i < kRows; ++i) {
    uint64_t r = random() % kIds;
    uint64_t id = r * r / kIds;  // skewed: small ids repeat
    columns[0]->Append<uint16_t>(static_cast<uint16_t>(id % 3));
    columns[1]->Append<uint16_t>(static_cast<uint16_t>(id % 7 == 0 ? id % 5 : 0));
    columns[2]->Append<uint16_t>(0);
    columns[3]->AppendString(id % 2 ? std::string()
                                    : "http://referer.example.com/search?q=" + std::to_string(id));
    columns[4]->AppendString("http://www.example.com/catalog/item/" + std::to_string(id * 7919) +
                             "/page.html?from=list");
  }
  (void)aggregator->Add(std::vector<ColumnPtr>(columns.begin(), columns.end()), {{}}, kRows);
  return aggregator->PartialByBucket();
}

void BM_CoordinatorUrlTopN(benchmark::State& state) {
  int mode = static_cast<int>(state.range(0));
  uint64_t offset = static_cast<uint64_t>(state.range(1));
  core::ThreadPool pool(2);
  std::vector<TypeId> keys = {TypeId::kUInt16, TypeId::kUInt16, TypeId::kUInt16,
                              TypeId::kString, TypeId::kString};
  std::vector<core::AggregateSpec> specs = {{"count", {}}};
  std::vector<TypeId> types = keys;
  types.push_back(TypeId::kUInt64);
  coordinator::QueryPlan plan = TopNPlan(types, /*order_by=*/5, offset);
  if (mode == 1) (*plan.fragment.mutable_settings())["late_aggregate_finalization_by_ref"] = "0";
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<std::vector<core::Block>> sent = {UrlWorkerBuckets(1), UrlWorkerBuckets(2)};
    state.ResumeTiming();
    uint64_t merge_ns = 0;
    auto result = MergeTopN(plan, keys, specs, mode > 0, std::move(sent), &pool, &merge_ns);
    state.PauseTiming();
    if (!result.ok()) {
      state.SkipWithError("failed");
      break;
    }
    auto final_rows = FinishFinalStage(plan, std::move(*result));
    if (!final_rows.ok() || final_rows->rows() != 10) {
      state.SkipWithError("wrong result");
      break;
    }
    state.ResumeTiming();
  }
}

BENCHMARK(BM_LocalMerge)->ArgName("threads")->Arg(1)->Arg(2)->Iterations(1)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CoordinatorMerge)->ArgName("workers")->Arg(1)->Arg(2)->Arg(3)->Iterations(1)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CoordinatorTopN)->ArgName("late")->Arg(0)->Arg(1)->Iterations(1)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CoordinatorUrlTopN)->ArgNames({"mode", "offset"})
    ->ArgsProduct({{0, 1, 2}, {0, 1000}})->Iterations(1)->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace granite

BENCHMARK_MAIN();
