// One worker thread's pricing summary: GROUP BY two one-letter String keys (4 groups) of
// sum / avg over Decimal columns and count(), on 8192-row batches of which a date filter keeps
// ~98% (AddSelected), as a scan of an order-line table feeds it. Parts measured alone: the
// aggregates without keys' cost (BM_DecimalSums*), the key assignment alone (BM_ShortKeys).
//   bench/decimal_group_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "bench/xorshift.h"
#include "core/aggregation/aggregator.h"
#include "core/decimal.h"
#include "core/magnitude_bits.h"

namespace granite::core {
namespace {

constexpr size_t kRows = 8192;
constexpr size_t kBatches = 16;

struct Batch {
  std::vector<ColumnPtr> keys;  // flag, status
  ColumnPtr quantity;           // Decimal(15, 2)
  ColumnPtr price;              // Decimal(15, 2)
  ColumnPtr charge;             // Decimal(18, 6): price * (1 - discount) * (1 + tax)
  std::vector<uint32_t> selection;
};

// kBatches batches of kRows rows; with `bounded`, the decimal columns carry their magnitude
// bound (core/magnitude_bits.h), as columns read from a part or made by a decimal kernel do.
std::vector<Batch> MakeInput(bool bounded) {
  std::vector<Batch> out;
  uint64_t x = 88172645463325252ull;
  const char* flags[] = {"A", "N", "R"};
  const char* statuses[] = {"F", "O"};
  for (size_t b = 0; b < kBatches; ++b) {
    Batch batch;
    auto flag = std::make_shared<Column>(TypeId::kString);
    auto status = std::make_shared<Column>(TypeId::kString);
    auto make = [&](TypeId type, int bits) {
      return bounded ? NewBoundedColumn(type, bits) : std::make_shared<Column>(type);
    };
    auto quantity = make(MakeDecimal(15, 2), 13);
    auto price = make(MakeDecimal(15, 2), 24);
    auto charge = make(MakeDecimal(18, 6), 38);
    for (size_t i = 0; i < kRows; ++i) {
      const uint64_t r = bench::Xorshift(&x);
      flag->AppendString(flags[r % 3]);
      status->AppendString(statuses[(r >> 8) % 2]);
      quantity->Append(static_cast<int64_t>(100 + (r >> 16) % 5000));
      const int64_t p = static_cast<int64_t>(90000 + (r >> 20) % 10400000);
      price->Append(p);
      const auto discount = static_cast<int64_t>(r % 11), tax = static_cast<int64_t>(r % 9);
      charge->Append(p * (100 - discount) * (100 + tax));
      if ((r >> 40) % 50 != 0) batch.selection.push_back(static_cast<uint32_t>(i));
    }
    batch.keys = {flag, status};
    batch.quantity = quantity;
    batch.price = price;
    batch.charge = charge;
    out.push_back(std::move(batch));
  }
  return out;
}

const std::vector<Batch>& Input(bool bounded = false) {
  static auto* plain = new std::vector<Batch>(MakeInput(false));
  static auto* with_bounds = new std::vector<Batch>(MakeInput(true));
  return bounded ? *with_bounds : *plain;
}

// Runs an aggregator of `specs` with the two String keys (or none) over every batch, each
// aggregate reading `arg_of(batch, aggregate)`.
template <typename ArgsOf>
void Run(benchmark::State& state, bool keys, std::vector<AggregateSpec> specs, ArgsOf args_of,
         bool bounded = false) {
  const std::vector<Batch>& input = Input(bounded);
  const std::vector<TypeId> key_types =
      keys ? std::vector<TypeId>{TypeId::kString, TypeId::kString} : std::vector<TypeId>{};
  for (auto _ : state) {
    std::unique_ptr<Aggregator> aggregator = *Aggregator::Create(key_types, specs);
    for (const Batch& batch : input) {
      const std::vector<ColumnPtr> no_keys;
      absl::Status status =
          aggregator->AddSelected(keys ? batch.keys : no_keys, args_of(batch),
                                  batch.selection.data(), batch.selection.size());
      benchmark::DoNotOptimize(status);
    }
    benchmark::DoNotOptimize(aggregator);
  }
  state.SetItemsProcessed(state.iterations() * kBatches * kRows);
}

// The pricing summary's aggregates: 3 decimal sums, 2 decimal averages, count().
std::vector<AggregateSpec> SummarySpecs() {
  const TypeId d15_2 = MakeDecimal(15, 2);
  const TypeId d18_6 = MakeDecimal(18, 6);
  return {{"sum", {d15_2}}, {"sum", {d15_2}}, {"sum", {d18_6}},
          {"avg", {d15_2}}, {"avg", {d15_2}}, {"count", {}}};
}

std::vector<std::vector<ColumnPtr>> SummaryArgs(const Batch& b) {
  return {{b.quantity}, {b.price}, {b.charge}, {b.quantity}, {b.price}, {}};
}

void BM_PricingSummary(benchmark::State& state) {
  Run(state, true, SummarySpecs(), SummaryArgs);
}
BENCHMARK(BM_PricingSummary);

// The same over columns that carry their bound (as read from a part or made by a kernel).
void BM_PricingSummaryBounded(benchmark::State& state) {
  Run(state, true, SummarySpecs(), SummaryArgs, true);
}
BENCHMARK(BM_PricingSummaryBounded);

void BM_DecimalSumsNoKeysBounded(benchmark::State& state) {
  Run(state, false, SummarySpecs(), SummaryArgs, true);
}
BENCHMARK(BM_DecimalSumsNoKeysBounded);

// The same aggregates with no keys: one group.
void BM_DecimalSumsNoKeys(benchmark::State& state) {
  Run(state, false, SummarySpecs(), SummaryArgs);
}
BENCHMARK(BM_DecimalSumsNoKeys);

// Only the key assignment: GROUP BY flag, status with count().
void BM_ShortKeys(benchmark::State& state) {
  Run(state, true, {{"count", {}}},
      [](const Batch&) { return std::vector<std::vector<ColumnPtr>>{{}}; });
}
BENCHMARK(BM_ShortKeys);

}  // namespace
}  // namespace granite::core

BENCHMARK_MAIN();
