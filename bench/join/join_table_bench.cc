// A broadcast hash join's table (core::JoinTable) for one integer key: the build of N unique
// keys (a filtered dimension or orders table sent to every worker: each worker builds it for
// each query) and the probe of a fact table's block of keys. Keys are ids spread over a range
// 40x the build's rows (a tenth of the orders of a date range out of all orders), shuffled; the
// probe's keys cover the same range, so about 1 in 40 rows finds its key.
//   build/bench/join_table_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "core/join/join_table.h"
#include "bench/xorshift.h"

namespace granite::core {
namespace {

Block BuildBlock(size_t rows) {
  std::vector<int32_t> keys(rows);
  for (size_t i = 0; i < rows; ++i) keys[i] = static_cast<int32_t>(i * 40 + 1);
  uint64_t x = 88172645463325252ull;
  for (size_t i = rows; i > 1; --i) std::swap(keys[i - 1], keys[bench::Xorshift(&x) % i]);
  auto column = std::make_shared<Column>(TypeId::kInt32);
  for (int32_t k : keys) column->Append<int32_t>(k);
  Block block;
  block.columns.push_back(column);
  return block;
}

void JoinTableBuildUniqueInt32(benchmark::State& state) {
  const Block build = BuildBlock(state.range(0));
  for (auto _ : state) {
    absl::StatusOr<JoinTable> table = JoinTable::Build(build, {0}, {TypeId::kInt32});
    benchmark::DoNotOptimize(table);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void JoinTableProbeInt32(benchmark::State& state) {
  const size_t rows = state.range(0);
  absl::StatusOr<JoinTable> table = JoinTable::Build(BuildBlock(rows), {0}, {TypeId::kInt32});
  auto probe = std::make_shared<Column>(TypeId::kInt32);
  uint64_t x = 1234567;
  for (size_t i = 0; i < 65536; ++i) {
    probe->Append<int32_t>(static_cast<int32_t>(bench::Xorshift(&x) % (rows * 40)));
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(table->Probe(JoinTable::Kind::kInner, {probe.get()}, probe->size()));
  }
  state.SetItemsProcessed(state.iterations() * probe->size());
}

// A fact table's block already narrowed to the build's keys (an IN set of them filtered the
// scan): every probe row passes the key bitmap and finds its row, in random order over a build
// larger than the cache.
void JoinTableProbeNarrowedInt32(benchmark::State& state) {
  const size_t rows = state.range(0);
  const Block build = BuildBlock(rows);
  absl::StatusOr<JoinTable> table = JoinTable::Build(build, {0}, {TypeId::kInt32});
  const Column& keys = *build.columns[0];
  auto probe = std::make_shared<Column>(TypeId::kInt32);
  uint64_t x = 7654321;
  for (size_t i = 0; i < 65536; ++i) {
    probe->Append<int32_t>(keys.Get<int32_t>(bench::Xorshift(&x) % rows));
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(table->Probe(JoinTable::Kind::kInner, {probe.get()}, probe->size()));
  }
  state.SetItemsProcessed(state.iterations() * probe->size());
}

// Keys spread over all of Int64 (hashes, user ids): no key bitmap, every probe row looks its
// slot up; half of them find a key.
void JoinTableProbeWideInt64(benchmark::State& state) {
  const size_t rows = state.range(0);
  auto build = std::make_shared<Column>(TypeId::kInt64);
  auto probe = std::make_shared<Column>(TypeId::kInt64);
  uint64_t x = 99991;
  for (size_t i = 0; i < rows; ++i) {
    build->Append<int64_t>(static_cast<int64_t>(bench::Xorshift(&x)));
  }
  for (size_t i = 0; i < 65536; ++i) {
    probe->Append<int64_t>(i % 2 == 0 ? build->Get<int64_t>(bench::Xorshift(&x) % rows)
                                      : static_cast<int64_t>(bench::Xorshift(&x)));
  }
  Block block;
  block.columns.push_back(build);
  absl::StatusOr<JoinTable> table = JoinTable::Build(block, {0}, {TypeId::kInt64});
  for (auto _ : state) {
    benchmark::DoNotOptimize(table->Probe(JoinTable::Kind::kInner, {probe.get()}, probe->size()));
  }
  state.SetItemsProcessed(state.iterations() * probe->size());
}

BENCHMARK(JoinTableBuildUniqueInt32)->Arg(10000)->Arg(150000)->Arg(1000000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(JoinTableProbeInt32)->Arg(10000)->Arg(150000)->Arg(1000000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(JoinTableProbeNarrowedInt32)->Arg(10000)->Arg(150000)->Arg(1000000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(JoinTableProbeWideInt64)->Arg(10000)->Arg(150000)->Arg(1000000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace granite::core

BENCHMARK_MAIN();
