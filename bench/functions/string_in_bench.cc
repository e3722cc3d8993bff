// `s IN ('MAIL', 'SHIP')` over a String column of short words (a ship mode, a priority, a
// country code): the kernel compiled for a set of 2, 3 or 7 values over 65,536 rows drawn from
// seven words. Sets of up to three values compare sizes and bytes instead of hashing each row.
//   build/bench/string_in_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/xorshift.h"
#include "core/expression.h"
#include "core/functions/expr_builder.h"

namespace granite::core {
namespace {

constexpr size_t kRows = 65536;

void StringInShortWords(benchmark::State& state) {
  const std::vector<std::string> words = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};
  auto column = std::make_shared<Column>(TypeId::kString);
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < kRows; ++i) column->AppendString(words[bench::Xorshift(&x) % 7]);
  std::vector<plan::Expr> list;  // the IN list: the first `values` words
  for (int64_t i = 0; i < state.range(0); ++i) list.push_back(Lit(Value(words[i])));
  absl::StatusOr<plan::Expr> in =
      TypedCall("in", {Col(0, TypeId::kString), Call("tuple", TypeId::kString, std::move(list))});
  absl::StatusOr<std::unique_ptr<Expression>> filter =
      in.ok() ? Expression::Compile(*in) : absl::StatusOr<std::unique_ptr<Expression>>(in.status());
  if (!filter.ok()) {
    state.SkipWithError(std::string(filter.status().message()).c_str());
    return;
  }
  Block block;
  block.columns.push_back(column);
  for (auto _ : state) benchmark::DoNotOptimize((*filter)->Evaluate(block));
  state.SetItemsProcessed(state.iterations() * kRows);
}

BENCHMARK(StringInShortWords)->Arg(2)->Arg(3)->Arg(7)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace granite::core

BENCHMARK_MAIN();
