// One worker thread's GROUP BY WatchID, ClientIP (ClickBench Q33: Int64 + Int32 keys, nearly every
// row a new group; count, sum and avg of Int16) into a fresh Aggregator: grown from 4 slots (and
// converted to two-level past the thresholds) vs presized from a size statistic
// (Aggregator::Presize, hash_table_stats.h). Each iteration builds a new table, as each query does.
//   bench/presize_bench --benchmark_filter='Q33Thread' --benchmark_repetitions=4
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "core/aggregation/aggregator.h"

namespace granite::core {
namespace {

struct Input {
  std::vector<std::vector<ColumnPtr>> keys;
  std::vector<std::vector<std::vector<ColumnPtr>>> args;
};

// `rows` rows of random (WatchID, ClientIP) in batches of 65536 rows (a morsel).
const Input& InputOf(size_t rows) {
  static auto* inputs = new std::vector<std::pair<size_t, Input>>();
  for (const auto& [n, input] : *inputs) {
    if (n == rows) return input;
  }
  Input input;
  uint64_t x = 88172645463325252ull;
  for (size_t from = 0; from < rows; from += 65536) {
    size_t n = std::min<size_t>(65536, rows - from);
    auto watch = std::make_shared<Column>(TypeId::kInt64);
    auto ip = std::make_shared<Column>(TypeId::kInt32);
    auto refresh = std::make_shared<Column>(TypeId::kInt16);
    auto width = std::make_shared<Column>(TypeId::kInt16);
    for (size_t i = 0; i < n; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      watch->Append<int64_t>(static_cast<int64_t>(x));
      ip->Append<int32_t>(static_cast<int32_t>(x >> 40));
      refresh->Append<int16_t>(static_cast<int16_t>(x & 1));
      width->Append<int16_t>(static_cast<int16_t>(x >> 20));
    }
    input.keys.push_back({watch, ip});
    input.args.push_back({{}, {refresh}, {width}});
  }
  inputs->emplace_back(rows, std::move(input));
  return inputs->back().second;
}

void BM_Q33Thread(benchmark::State& state) {
  const size_t rows = state.range(0);
  const bool presize = state.range(1) != 0;
  const Input& input = InputOf(rows);
  std::vector<AggregateSpec> specs = {
      {"count", {}}, {"sum", {TypeId::kInt16}}, {"avg", {TypeId::kInt16}}};
  for (auto _ : state) {
    auto aggregator = *Aggregator::Create({TypeId::kInt64, TypeId::kInt32}, specs);
    if (presize) aggregator->Presize(rows);
    for (size_t b = 0; b < input.keys.size(); ++b) {
      absl::Status status =
          aggregator->Add(input.keys[b], input.args[b], input.keys[b][0]->size());
      if (!status.ok()) state.SkipWithError("Add failed");
    }
    state.counters["two_level"] = aggregator->two_level();
    benchmark::DoNotOptimize(aggregator->size());
  }
}
BENCHMARK(BM_Q33Thread)
    ->ArgsProduct({{1000000, 2500000, 5000000}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace granite::core

BENCHMARK_MAIN();
