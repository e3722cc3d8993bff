// One worker thread's GROUP BY of several keys that include Strings (the kSerialized layout),
// count(), into a fresh Aggregator, then its 256 bucket blocks (PartialByBucket): the worker side
// of two shapes.
//   Small ints + two Strings (source, destination URL; ~1.3 rows per group, below the scatter
//   threshold): a filtered GROUP BY on a sorted-key prefix with many small groups.
//   User id, minute, phrase (mostly empty; millions of groups, scattered by bucket).
// Args: rows. Batches of 8192 rows (one morsel).
//   bench/serialized_group_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/aggregation/aggregator.h"

namespace granite::core {
namespace {

uint64_t Next(uint64_t& x) {
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return x;
}

struct Input {
  std::vector<TypeId> types;
  std::vector<std::vector<ColumnPtr>> batches;
};

// Builds `rows` rows of `types` in batches of 8192; append(cols, row) writes row `row`.
template <typename AppendRow>
Input MakeInput(std::vector<TypeId> types, size_t rows, AppendRow append) {
  Input input;
  input.types = std::move(types);
  for (size_t from = 0; from < rows; from += 8192) {
    const size_t n = std::min<size_t>(8192, rows - from);
    std::vector<MutableColumnPtr> cols;
    for (TypeId t : input.types) cols.push_back(std::make_shared<Column>(t));
    for (size_t i = 0; i < n; ++i) append(cols, from + i);
    input.batches.emplace_back(cols.begin(), cols.end());
  }
  return input;
}

// Three Int16 keys of a few values, a mostly empty String and a URL; ~rows / 1.3 groups.
Input UrlShape(size_t rows) {
  const size_t distinct = rows * 10 / 13;
  uint64_t x = 88172645463325252ull;
  return MakeInput({TypeId::kInt16, TypeId::kInt16, TypeId::kInt16, TypeId::kString,
                    TypeId::kString},
                   rows, [&](std::vector<MutableColumnPtr>& cols, size_t row) {
                     const uint64_t g = row < distinct ? row : Next(x) % distinct;
                     cols[0]->Append<int16_t>(static_cast<int16_t>(g % 7));
                     cols[1]->Append<int16_t>(static_cast<int16_t>(g % 3));
                     cols[2]->Append<int16_t>(0);
                     cols[3]->AppendString(g % 5 == 0 ? "http://referer.example.com/" +
                                                            std::to_string(g % 101)
                                                      : std::string());
                     cols[4]->AppendString("http://site" + std::to_string(g % 97) +
                                           ".example.com/catalog/item?id=" + std::to_string(g) +
                                           "&ref=" + std::string(20 + g % 40, 'q'));
                   });
}

// User id, minute, phrase (80% empty); ~rows / 1.6 groups.
Input UserShape(size_t rows) {
  const size_t distinct = rows * 10 / 16;
  uint64_t x = 88172645463325252ull;
  return MakeInput({TypeId::kInt64, TypeId::kUInt8, TypeId::kString}, rows,
                   [&](std::vector<MutableColumnPtr>& cols, size_t row) {
                     const uint64_t g =
                         row < distinct ? (row * 7919) % distinct : Next(x) % distinct;
                     cols[0]->Append<int64_t>(
                         static_cast<int64_t>(g * 0x9E3779B97F4A7C15ull >> 8));
                     cols[1]->Append<uint8_t>(static_cast<uint8_t>(g % 60));
                     cols[2]->AppendString(g % 5 == 0 ? "phrase number " + std::to_string(g % 5000)
                                                      : std::string());
                   });
}

void Run(benchmark::State& state, const Input& input) {
  const std::vector<AggregateSpec> specs = {{"count", {}}};
  const std::vector<std::vector<ColumnPtr>> args = {{}};
  size_t groups = 0;
  for (auto _ : state) {
    auto aggregator = *Aggregator::Create(input.types, specs);
    for (const auto& batch : input.batches) {
      if (!aggregator->Add(batch, args, batch[0]->size()).ok()) state.SkipWithError("Add");
    }
    groups = aggregator->size();
    std::vector<Block> buckets = aggregator->PartialByBucket();
    benchmark::DoNotOptimize(buckets);
  }
  state.counters["groups"] = static_cast<double>(groups);
}

void BM_UrlShape(benchmark::State& state) {
  static const Input input = UrlShape(state.range(0));
  Run(state, input);
}
BENCHMARK(BM_UrlShape)->Arg(200000)->Unit(benchmark::kMillisecond);

void BM_UserShape(benchmark::State& state) {
  static const Input input = UserShape(state.range(0));
  Run(state, input);
}
BENCHMARK(BM_UserShape)->Arg(4000000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace granite::core

BENCHMARK_MAIN();
