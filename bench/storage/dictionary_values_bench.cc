// storage::AppendDictionaryValues: the strings of a LowCardinality(String) column read from a
// dictionary-encoded part, one 8,192-row granule at a time, from codes picked at random. Short
// values (a shipping mode, a country code) are the common shape; long ones take the general copy.
//   build/bench/dictionary_values_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/xorshift.h"
#include "core/column.h"
#include "storage/dictionary_serialization.h"

namespace granite::storage {
namespace {

constexpr size_t kRows = 8192;

// Arguments: the dictionary's size, the longest value's length.
void AppendValues(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  const size_t longest = static_cast<size_t>(state.range(1));
  std::vector<std::string> values;
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < size; ++i) {
    bench::Xorshift(&x);
    std::string value = std::to_string(i);
    value.resize(1 + x % longest, 'v');
    values.push_back(value);
  }
  const core::ColumnPtr dictionary = DictionaryColumn(core::TypeId::kString, values);
  std::vector<uint32_t> codes(kRows);
  for (uint32_t& code : codes) {
    bench::Xorshift(&x);
    code = static_cast<uint32_t>(x % size);
  }
  for (auto _ : state) {
    core::Column out(core::TypeId::kString);
    AppendDictionaryValues(*dictionary, codes.data(), kRows, &out);
    out.SetSize(kRows);
    benchmark::DoNotOptimize(out.Chars().data());
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}

BENCHMARK(AppendValues)
    ->Args({7, 12})->Args({300, 24})->Args({5000, 16})->Args({100, 80})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace granite::storage

BENCHMARK_MAIN();
