// ORDER BY one integer column over many rows (a key set sorted by its values, ORDER BY id of a
// large result): core::SortPermutation against the comparison sort it used before, a std::sort
// of (value, row) pairs, the row breaking ties. Shapes: ids in no order (the radix path), rows
// already in order (a table read in its sort key's order), and two sorted halves (two workers'
// sorted streams concatenated).
//   build/bench/integer_sort_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "core/block_sort.h"
#include "bench/xorshift.h"

namespace granite::core {
namespace {

enum Shape { kRandom = 0, kSorted = 1, kTwoRuns = 2 };

std::vector<int64_t> Values(Shape shape, size_t rows) {
  std::vector<int64_t> values(rows);
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < rows; ++i) {
    bench::Xorshift(&x);
    values[i] = static_cast<int64_t>(x % (rows * 4));  // ids up to 4x the row count
  }
  if (shape == kSorted) std::sort(values.begin(), values.end());
  if (shape == kTwoRuns) {
    std::sort(values.begin(), values.begin() + rows / 2);
    std::sort(values.begin() + rows / 2, values.end());
  }
  return values;
}

void SortPermutationOfOneInt64(benchmark::State& state) {
  const std::vector<int64_t> values = Values(static_cast<Shape>(state.range(0)), state.range(1));
  auto column = std::make_shared<Column>(TypeId::kInt64);
  for (int64_t v : values) column->Append<int64_t>(v);
  Block block;
  block.columns.push_back(column);
  for (auto _ : state) {
    benchmark::DoNotOptimize(SortPermutation(block, {SortColumn{0, false}}));
  }
  state.SetItemsProcessed(state.iterations() * values.size());
}

// The comparison sort SortPermutation used for one integer key before.
void ComparisonSortOfPairs(benchmark::State& state) {
  const std::vector<int64_t> values = Values(static_cast<Shape>(state.range(0)), state.range(1));
  struct Entry {
    int64_t value;
    uint32_t row;
  };
  for (auto _ : state) {
    std::vector<Entry> entries(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      entries[i] = Entry{values[i], static_cast<uint32_t>(i)};
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return a.value != b.value ? a.value < b.value : a.row < b.row;
    });
    std::vector<uint32_t> perm(entries.size());
    for (size_t i = 0; i < entries.size(); ++i) perm[i] = entries[i].row;
    benchmark::DoNotOptimize(perm);
  }
  state.SetItemsProcessed(state.iterations() * values.size());
}

void Shapes(benchmark::internal::Benchmark* b) {
  for (int shape : {kRandom, kSorted, kTwoRuns}) {
    for (int rows : {10000, 500000, 4000000}) b->Args({shape, rows});
  }
  b->ArgNames({"shape", "rows"})->Unit(benchmark::kMillisecond);
}

BENCHMARK(SortPermutationOfOneInt64)->Apply(Shapes);
BENCHMARK(ComparisonSortOfPairs)->Apply(Shapes);

}  // namespace
}  // namespace granite::core

BENCHMARK_MAIN();
