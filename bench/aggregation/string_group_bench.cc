// One worker thread's GROUP BY URL, count() (ClickBench Q34: ~1.1M distinct URLs of ~120 bytes per
// worker, ~4.5 rows each) into a fresh Aggregator, then its 256 bucket blocks (PartialByBucket,
// which copies every key out of the arena): the worker side of Q34/Q35.
// Args: rows, presize (Aggregator::Presize from a size statistic, as a hot query), policy:
//   0 = the conversion test of AssignGroups (key arena not counted: stays single-level here);
//   1 = the session-5 test emulated (convert once MemoryBytes(), arena included, passes
//       two_level_threshold_bytes, checked after every batch as AssignGroups did).
//   bench/string_group_bench --benchmark_filter='Q34Thread' --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/aggregation/aggregator.h"

namespace granite::core {
namespace {

struct Input {
  std::vector<std::vector<ColumnPtr>> keys;
};

uint64_t Next(uint64_t& x) {
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return x;
}

// `rows` rows over rows / 4.5 distinct URL-like keys, random order, batches of 65536 rows.
const Input& InputOf(size_t rows) {
  static auto* inputs = new std::vector<std::pair<size_t, Input>>();
  for (const auto& [n, input] : *inputs) {
    if (n == rows) return input;
  }
  size_t distinct = rows * 2 / 9;
  std::vector<std::string> pool(distinct);
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < distinct; ++i) {
    pool[i] = "http://site" + std::to_string(Next(x) % 97) + ".example.com/catalog/item?id=" +
              std::to_string(i) + "&ref=" + std::string(40 + Next(x) % 40, 'q');
  }
  Input input;
  for (size_t from = 0; from < rows; from += 65536) {
    size_t n = std::min<size_t>(65536, rows - from);
    auto url = std::make_shared<Column>(TypeId::kString);
    for (size_t i = 0; i < n; ++i) {
      // Every key at least once (the first `distinct` rows), then random repeats.
      size_t row = from + i;
      url->AppendString(pool[row < distinct ? (row * 7919) % distinct : Next(x) % distinct]);
    }
    input.keys.push_back({url});
  }
  inputs->emplace_back(rows, std::move(input));
  return inputs->back().second;
}

void BM_Q34Thread(benchmark::State& state) {
  const size_t rows = state.range(0);
  const bool presize = state.range(1) != 0;
  const bool old_policy = state.range(2) != 0;
  const Input& input = InputOf(rows);
  std::vector<AggregateSpec> specs = {{"count", {}}};
  const std::vector<std::vector<ColumnPtr>> args = {{}};
  size_t buckets_rows = 0;
  for (auto _ : state) {
    auto aggregator = *Aggregator::Create({TypeId::kString}, specs);
    if (presize) aggregator->Presize(rows * 2 / 9);
    for (size_t b = 0; b < input.keys.size(); ++b) {
      absl::Status status = aggregator->Add(input.keys[b], args, input.keys[b][0]->size());
      if (!status.ok()) state.SkipWithError("Add failed");
      if (old_policy && !aggregator->two_level() &&
          aggregator->MemoryBytes() >= aggregator->options().two_level_threshold_bytes) {
        aggregator->ConvertToTwoLevel();
      }
    }
    state.counters["two_level"] = aggregator->two_level();
    std::vector<Block> buckets = aggregator->PartialByBucket();
    buckets_rows = 0;
    for (const Block& block : buckets) buckets_rows += block.rows();
    benchmark::DoNotOptimize(buckets_rows);
  }
  state.counters["groups"] = static_cast<double>(buckets_rows);
}
BENCHMARK(BM_Q34Thread)
    ->ArgsProduct({{5000000}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace granite::core

BENCHMARK_MAIN();
