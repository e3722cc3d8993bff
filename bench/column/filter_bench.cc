// Column::Filter of a fixed-width column by a mask that keeps a given share of the rows at random
// (a condition on another column: `l_commitdate < l_receiptdate` keeps ~63%), over one block of
// 65,536 rows. Mixed eight-row runs cost a branch per row before they were written branch-free.
//   build/bench/filter_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "core/column.h"
#include "bench/xorshift.h"

namespace granite::core {
namespace {

constexpr size_t kRows = 65536;

void FilterInt32ByRandomMask(benchmark::State& state) {
  const int kept_percent = static_cast<int>(state.range(0));
  Column column(TypeId::kInt32);
  std::vector<uint8_t> mask(kRows);
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < kRows; ++i) {
    bench::Xorshift(&x);
    column.Append<int32_t>(static_cast<int32_t>(x));
    mask[i] = static_cast<int>(x % 100) < kept_percent ? 1 : 0;
  }
  for (auto _ : state) benchmark::DoNotOptimize(column.Filter(mask.data()));
  state.SetItemsProcessed(state.iterations() * kRows);
}

BENCHMARK(FilterInt32ByRandomMask)
    ->Arg(5)->Arg(30)->Arg(63)->Arg(95)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace granite::core

BENCHMARK_MAIN();
