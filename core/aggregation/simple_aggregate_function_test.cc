// Tests of the int64 accumulation of decimal and integer sums and averages
// (simple_aggregate_function.h, AddNarrowLanes and the one-group sum): a batch takes it only when
// the values' magnitude bound proves it exact, so results must equal an Int128 reference on both
// sides of the bounds (values near 2^35 and 2^50 for 8192-row batches, INT64_MIN and INT64_MAX,
// negative values), through a selection, with one group or a few, and with NULLs.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/aggregation/aggregator.h"
#include "core/decimal.h"
#include "core/magnitude_bits.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

using T = TypeId;

constexpr size_t kRows = 8192;
constexpr size_t kGroups = 5;

std::string Text(const Column& column, size_t row) {
  std::string text;
  AppendValueText(column, row, &text);
  return text;
}

// Aggregates sum(v), avg(v), count(v) of Decimal(18, 2) values, grouped by a UInt8 key
// (`grouped`) or not, over two batches (the second through a selection of every third row), and
// checks every group against Int128 sums. `nulls` makes every fifth value NULL.
void Check(const std::vector<int64_t>& values, bool grouped, bool nulls) {
  const TypeId type = WithNullable(MakeDecimal(18, 2), nulls);
  std::vector<TypeId> key_types;
  if (grouped) key_types.push_back(T::kUInt8);
  auto aggregator =
      *Aggregator::Create(key_types, {{"sum", {type}}, {"avg", {type}}, {"count", {type}}});
  std::vector<Int128> sums(kGroups, 0);
  std::vector<uint64_t> counts(kGroups, 0);
  std::vector<uint32_t> selection;
  for (uint32_t i = 0; i < values.size(); i += 3) selection.push_back(i);
  for (int batch = 0; batch < 2; ++batch) {
    auto keys = std::make_shared<Column>(T::kUInt8);
    auto column = std::make_shared<Column>(type);
    for (size_t i = 0; i < values.size(); ++i) {
      keys->Append<uint8_t>(grouped ? static_cast<uint8_t>((i * 7 + i / 3) % kGroups) : 0);
      if (nulls && i % 5 == 0) {
        column->AppendNull();
      } else {
        column->Append<int64_t>(values[i]);
      }
    }
    auto add = [&](size_t i) {
      if (nulls && i % 5 == 0) return;
      const size_t g = keys->Get<uint8_t>(i);
      sums[g] += values[i];
      ++counts[g];
    };
    std::vector<ColumnPtr> key_columns;
    if (grouped) key_columns.push_back(keys);
    if (batch == 0) {
      ASSERT_TRUE(aggregator->Add(key_columns, {{column}, {column}, {column}}, values.size()).ok());
      for (size_t i = 0; i < values.size(); ++i) add(i);
    } else {
      ASSERT_TRUE(aggregator->AddSelected(key_columns, {{column}, {column}, {column}},
                                          selection.data(), selection.size()).ok());
      for (uint32_t i : selection) add(i);
    }
  }
  absl::StatusOr<Block> result = aggregator->Finalize();
  ASSERT_TRUE(result.ok()) << result.status();
  const size_t k = grouped ? 1 : 0;
  for (size_t row = 0; row < result->rows(); ++row) {
    const size_t g = grouped ? result->columns[0]->Get<uint8_t>(row) : 0;
    Column sum(MakeDecimal(38, 2));
    sum.Append<Int128>(sums[g]);
    Column avg(T::kFloat64);
    avg.Append<double>(DecimalToDouble(sums[g], 2) / static_cast<double>(counts[g]));
    EXPECT_EQ(Text(*result->columns[k], row), Text(sum, 0)) << "group " << g;
    EXPECT_EQ(Text(*result->columns[k + 1], row), Text(avg, 0)) << "group " << g;
    EXPECT_EQ(result->columns[k + 2]->Get<uint64_t>(row), counts[g]) << "group " << g;
  }
  EXPECT_EQ(result->rows(), grouped ? kGroups : 1);
}

// `kRows` values of magnitude below 2^bits (some at the bound), both signs.
std::vector<int64_t> Values(int bits, uint64_t seed, bool negative_only = false) {
  std::mt19937_64 rng(seed);
  const int64_t top = bits >= 63 ? std::numeric_limits<int64_t>::max()
                                 : (int64_t{1} << bits) - 1;
  std::vector<int64_t> values(kRows);
  for (size_t i = 0; i < kRows; ++i) {
    int64_t v = i % 17 == 0 || top == 0 ? top
                                         : static_cast<int64_t>(rng() % static_cast<uint64_t>(top));
    values[i] = negative_only || rng() % 2 == 0 ? -v : v;
  }
  return values;
}

TEST(SimpleAggregateFunctionTest, NarrowSumsEqualExactSums) {
  // For 8192-row batches (rows < 2^14): 35 bits, sums and averages run narrow (35 + 14 + 14 <=
  // 63); 36, sums narrow, averages not; 49, sums just narrow (49 + 14); 50 and up, both wide.
  for (int bits : {0, 1, 20, 35, 36, 49, 50, 62, 63}) {
    for (bool grouped : {false, true}) {
      for (bool nulls : {false, true}) {
        SCOPED_TRACE(testing::Message()
                     << bits << " bits, grouped " << grouped << ", nulls " << nulls);
        Check(Values(bits, bits * 31 + 1), grouped, nulls);
        Check(Values(bits, bits * 31 + 2, true), grouped, nulls);
      }
    }
  }
}

TEST(SimpleAggregateFunctionTest, Int64ExtremesTakeTheWidePath) {
  std::vector<int64_t> values(kRows, std::numeric_limits<int64_t>::max());
  for (size_t i = 0; i < kRows; i += 2) values[i] = std::numeric_limits<int64_t>::min();
  for (bool grouped : {false, true}) {
    Check(values, grouped, false);
    Check(values, grouped, true);
  }
  // All INT64_MIN: the sum leaves int64 after two rows.
  Check(std::vector<int64_t>(kRows, std::numeric_limits<int64_t>::min()), true, false);
}

TEST(SimpleAggregateFunctionTest, SumsOfKernelResultsUseTheirBound) {
  // A column made with its bound (a kernel's result) is summed by that bound, not a scan.
  auto column = NewBoundedColumn(MakeDecimal(18, 2), 6);
  for (size_t i = 0; i < 100; ++i) column->Append<int64_t>(static_cast<int64_t>(i) - 50);
  const TypeId type = MakeDecimal(18, 2);
  auto aggregator = *Aggregator::Create({}, {{"sum", {type}}, {"avg", {type}}});
  ASSERT_TRUE(aggregator->Add({}, {{column}, {column}}, 100).ok());
  absl::StatusOr<Block> result = aggregator->Finalize();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(Text(*result->columns[0], 0), "-0.5");
  EXPECT_EQ(Text(*result->columns[1], 0), "-0.005");
}

}  // namespace
}  // namespace granite::core
