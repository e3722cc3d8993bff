// Tests of Aggregator::AddSelected: aggregating the rows of a selection vector must give the same
// groups and results as Add of the filtered copies (Column::Filter), for the kString layout (keys
// read in place) and the gathered layouts (kSerialized, kFixed64), with fixed-width arguments
// (read in place by sum, avg, max, count) and String ones (gathered), and for empty, partial and
// full selections over several batches.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/aggregation/aggregator.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

using T = TypeId;

struct Input {
  ColumnPtr phrase;   // String, '' in about half the rows
  ColumnPtr engine;   // UInt16
  ColumnPtr user;     // UInt64
};

Input MakeInput(size_t rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto phrase = std::make_shared<Column>(T::kString);
  auto engine = std::make_shared<Column>(T::kUInt16);
  auto user = std::make_shared<Column>(T::kUInt64);
  for (size_t i = 0; i < rows; ++i) {
    uint64_t r = rng();
    phrase->AppendString(r % 2 == 0 ? std::string() : "phrase number " + std::to_string(r % 37));
    engine->Append<uint16_t>(static_cast<uint16_t>(r % 5));
    user->Append<uint64_t>((r >> 8) % 11);
  }
  return {phrase, engine, user};
}

// Returns the finalized rows of `aggregator` as sorted text lines.
std::vector<std::string> Rows(Aggregator& aggregator) {
  absl::StatusOr<Block> block = aggregator.Finalize();
  EXPECT_TRUE(block.ok()) << block.status();
  std::vector<std::string> rows;
  for (size_t r = 0; block.ok() && r < block->rows(); ++r) {
    std::string line;
    for (const ColumnPtr& column : block->columns) {
      AppendValueText(*column, r, &line);
      line += '|';
    }
    rows.push_back(line);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

struct Case {
  const char* name;
  std::vector<TypeId> key_types;
  std::vector<int> key_columns;  // 0 phrase, 1 engine, 2 user
};

// Selection kinds: 0 none, 1 every row, 2 non-empty phrases, 3 every seventh row (kinds 4-7:
// the same over two-level tables).
std::vector<uint8_t> MaskOf(const Input& input, int kind) {
  std::vector<uint8_t> mask(input.phrase->size());
  for (size_t i = 0; i < mask.size(); ++i) {
    mask[i] = kind == 1 || (kind == 2 && !input.phrase->StringAt(i).empty()) ||
              (kind == 3 && i % 7 == 0);
  }
  return mask;
}

TEST(AggregatorSelectedTest, EqualsFilterThenAdd) {
  const std::vector<Case> cases = {
      {"string", {T::kString}, {0}},
      {"serialized", {T::kUInt16, T::kString}, {1, 0}},
      {"fixed64", {T::kUInt64}, {2}},
  };
  const std::vector<AggregateSpec> specs = {{"count", {}},
                                            {"uniqExact", {T::kUInt64}},
                                            {"uniqExact", {T::kString}},
                                            {"sum", {T::kUInt16}},
                                            {"avg", {T::kUInt64}},
                                            {"max", {T::kUInt16}}};
  AggregatorOptions two_level;  // every hashed table two-level from the first group
  two_level.two_level_threshold = 1;
  for (const Case& c : cases) {
    for (int kind = 0; kind < 8; ++kind) {
      SCOPED_TRACE(std::string(c.name) + " selection kind " + std::to_string(kind));
      AggregatorOptions options = kind < 4 ? AggregatorOptions() : two_level;
      auto selected = *Aggregator::Create(c.key_types, specs, options);
      auto filtered = *Aggregator::Create(c.key_types, specs, options);
      for (uint64_t batch = 0; batch < 3; ++batch) {
        Input input = MakeInput(500 + batch * 100, batch + 1);
        const ColumnPtr columns[] = {input.phrase, input.engine, input.user};
        std::vector<uint8_t> mask = MaskOf(input, kind % 4);
        std::vector<uint32_t> selection;
        for (size_t i = 0; i < mask.size(); ++i) {
          if (mask[i]) selection.push_back(static_cast<uint32_t>(i));
        }
        std::vector<ColumnPtr> keys, filtered_keys;
        for (int k : c.key_columns) {
          keys.push_back(columns[k]);
          filtered_keys.push_back(std::make_shared<Column>(columns[k]->Filter(mask.data())));
        }
        std::vector<std::vector<ColumnPtr>> args = {
            {}, {input.user}, {input.phrase}, {input.engine}, {input.user}, {input.engine}};
        std::vector<std::vector<ColumnPtr>> filtered_args(args.size());
        for (size_t a = 0; a < args.size(); ++a) {
          for (const ColumnPtr& arg : args[a]) {
            filtered_args[a].push_back(std::make_shared<Column>(arg->Filter(mask.data())));
          }
        }
        ASSERT_TRUE(selected->AddSelected(keys, args, selection.data(), selection.size()).ok());
        ASSERT_TRUE(filtered->Add(filtered_keys, filtered_args, selection.size()).ok());
      }
      EXPECT_EQ(selected->size(), filtered->size());
      if (kind % 4 == 0) EXPECT_EQ(selected->size(), 0u);
      if (kind >= 4 && kind % 4 != 0) EXPECT_TRUE(selected->two_level());
      std::vector<std::string> got = Rows(*selected);
      EXPECT_EQ(got, Rows(*filtered));
      if (kind % 4 != 0) EXPECT_FALSE(got.empty());
    }
  }
}

// Few groups (a low-cardinality key): sums and averages add into interleaved copies of each
// group's state (SimpleAggregateFunction::AddLanes); the results must equal sums computed here,
// for batches of any length, with and without a selection, and when the group count grows past
// the copies' limit between batches.
TEST(AggregatorSelectedTest, FewGroupsSumsEqualDirectSums) {
  const TypeId decimal = MakeDecimal(15, 2);
  auto aggregator = *Aggregator::Create(
      {T::kUInt16}, {{"sum", {T::kInt64}}, {"sum", {decimal}}, {"avg", {decimal}}, {"count", {}}});
  std::vector<int64_t> sums(20), decimal_sums(20), counts(20);
  std::mt19937_64 rng(7);
  for (size_t batch = 0; batch < 6; ++batch) {
    const size_t rows = 61 + batch * 97;        // lengths not multiple of the copies
    const uint16_t groups = batch < 4 ? 3 + batch : 20;  // from 3 to 6 groups, then 20
    auto key = std::make_shared<Column>(T::kUInt16);
    auto value = std::make_shared<Column>(T::kInt64);
    auto money = std::make_shared<Column>(decimal);
    for (size_t i = 0; i < rows; ++i) {
      key->Append<uint16_t>(static_cast<uint16_t>(rng() % groups));
      value->Append<int64_t>(static_cast<int64_t>(rng() % 2000001) - 1000000);
      money->Append<int64_t>(static_cast<int64_t>(rng() % 100000));
    }
    std::vector<uint32_t> selection;
    for (uint32_t i = 0; i < rows; ++i) {
      if (batch % 2 == 0 || i % 3 != 0) selection.push_back(i);
    }
    for (uint32_t i : selection) {
      const uint16_t g = key->Data<uint16_t>()[i];
      sums[g] += value->Data<int64_t>()[i];
      decimal_sums[g] += money->Data<int64_t>()[i];
      ++counts[g];
    }
    std::vector<std::vector<ColumnPtr>> args = {{value}, {money}, {money}, {}};
    if (batch % 2 == 0) {
      ASSERT_TRUE(aggregator->Add({key}, args, rows).ok());
    } else {
      ASSERT_TRUE(aggregator->AddSelected({key}, args, selection.data(), selection.size()).ok());
    }
  }
  absl::StatusOr<Block> block = aggregator->Finalize();
  ASSERT_TRUE(block.ok()) << block.status();
  ASSERT_EQ(block->rows(), 20u);
  for (size_t r = 0; r < block->rows(); ++r) {
    const uint16_t g = block->columns[0]->Data<uint16_t>()[r];
    SCOPED_TRACE("group " + std::to_string(g));
    EXPECT_EQ(block->columns[1]->Data<int64_t>()[r], sums[g]);
    EXPECT_EQ(static_cast<int64_t>(block->columns[2]->Data<Int128>()[r]), decimal_sums[g]);
    EXPECT_DOUBLE_EQ(block->columns[3]->Data<double>()[r],
                     static_cast<double>(decimal_sums[g]) / 100 / static_cast<double>(counts[g]));
    EXPECT_EQ(block->columns[4]->Data<uint64_t>()[r], static_cast<uint64_t>(counts[g]));
  }
}

TEST(AggregatorSelectedTest, RejectsSelectionOutsideColumns) {
  auto aggregator = *Aggregator::Create({T::kString}, {{"count", {}}});
  Input input = MakeInput(10, 3);
  const uint32_t selection[] = {2, 10};
  absl::Status status = aggregator->AddSelected({input.phrase}, {{}}, selection, 2);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("Selected row 10"), std::string::npos) << status;
  EXPECT_EQ(aggregator->size(), 0u);
  // The aggregator still works (no selection left behind).
  const uint32_t valid[] = {1, 2};
  ASSERT_TRUE(aggregator->AddSelected({input.phrase}, {{}}, valid, 2).ok());
  EXPECT_GE(aggregator->size(), 1u);
  ASSERT_TRUE(aggregator->Add({input.phrase}, {{}}, 10).ok());
}

}  // namespace
}  // namespace granite::core
