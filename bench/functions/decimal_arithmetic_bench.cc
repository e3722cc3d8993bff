// Decimal64 arithmetic kernels on one 8192-row batch, the money arithmetic of a pricing summary:
// price * (1 - discount) * (1 + tax) over Decimal(15, 2) columns with values in the ranges of a
// typical order-line table (prices up to 10^5, discounts and taxes up to 0.10). Also one kernel
// alone (price * discount) and a batch whose magnitudes leave no room (every row checked);
// *Bounded: over columns that carry their magnitude bound, as the pipeline's read from parts.
//   bench/decimal_arithmetic_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "bench/xorshift.h"
#include "core/block.h"
#include "core/decimal.h"
#include "core/expression.h"
#include "core/functions/expr_builder.h"
#include "core/magnitude_bits.h"

namespace granite::core {
namespace {

constexpr size_t kRows = 8192;

// Columns: price, discount, tax (Decimal(15, 2)); big (Decimal(18, 0), magnitudes near 2^40).
// With `bounded`, each carries its magnitude bound (core/magnitude_bits.h), as a column read
// from a part does (from its granules' min / max).
Block Input(bool bounded = false) {
  const TypeId d15_2 = MakeDecimal(15, 2);
  auto price = std::make_shared<Column>(d15_2);
  auto discount = std::make_shared<Column>(d15_2);
  auto tax = std::make_shared<Column>(d15_2);
  auto big = std::make_shared<Column>(MakeDecimal(18, 0));
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < kRows; ++i) {
    price->Append(static_cast<int64_t>(90000 + bench::Xorshift(&x) % 10400000));
    discount->Append(static_cast<int64_t>(bench::Xorshift(&x) % 11));
    tax->Append(static_cast<int64_t>(bench::Xorshift(&x) % 9));
    big->Append(static_cast<int64_t>(bench::Xorshift(&x) % (int64_t{1} << 40)) - (int64_t{1} << 39));
  }
  Block block;
  block.columns = {price, discount, tax, big};
  if (bounded) {
    for (ColumnPtr& column : block.columns) {
      auto copy = NewBoundedColumn(column->type(), MagnitudeBitsOf<int64_t>(column));
      *copy = *column;
      column = copy;
    }
  }
  return block;
}

plan::Expr Call2(std::string_view name, plan::Expr a, plan::Expr b) {
  return *TypedCall(name, {std::move(a), std::move(b)});
}

void Run(benchmark::State& state, const plan::Expr& expr, bool bounded = false) {
  const Block block = Input(bounded);
  std::unique_ptr<Expression> compiled = *Expression::Compile(expr);
  for (auto _ : state) {
    absl::StatusOr<ColumnPtr> out = compiled->Evaluate(block);
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}

void BM_PriceTimesDiscount(benchmark::State& state) {
  const TypeId d15_2 = MakeDecimal(15, 2);
  Run(state, Call2("multiply", Col(0, d15_2), Col(1, d15_2)));
}
BENCHMARK(BM_PriceTimesDiscount);

plan::Expr Charge() {
  const TypeId d15_2 = MakeDecimal(15, 2);
  const plan::Expr one = Lit(uint64_t{1});
  return Call2("multiply", Call2("multiply", Col(0, d15_2), Call2("minus", one, Col(1, d15_2))),
               Call2("plus", one, Col(2, d15_2)));
}

void BM_ChargeExpression(benchmark::State& state) { Run(state, Charge()); }
BENCHMARK(BM_ChargeExpression);

// The same over columns that carry their bound, as the pipeline's read from parts do.
void BM_ChargeExpressionBounded(benchmark::State& state) { Run(state, Charge(), true); }
BENCHMARK(BM_ChargeExpressionBounded);

void BM_PriceTimesDiscountBounded(benchmark::State& state) {
  const TypeId d15_2 = MakeDecimal(15, 2);
  Run(state, Call2("multiply", Col(0, d15_2), Col(1, d15_2)), true);
}
BENCHMARK(BM_PriceTimesDiscountBounded);

// big * big may overflow (2^39 * 2^39): the batch runs the checked loop (and then Int128).
void BM_CheckedMultiply(benchmark::State& state) {
  const TypeId d18_0 = MakeDecimal(18, 0);
  const TypeId d15_2 = MakeDecimal(15, 2);
  Run(state, Call2("multiply", Col(3, d18_0), Col(0, d15_2)));
}
BENCHMARK(BM_CheckedMultiply);

}  // namespace
}  // namespace granite::core

BENCHMARK_MAIN();
