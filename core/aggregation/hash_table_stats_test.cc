// Tests of HashTableStats (the bounded per-shape cache) and Aggregator::Presize: a table presized
// from a statistic — two-level from the start, or single-level reserved — groups exactly like one
// that grew (and converted) while adding the same rows, for every hashed key layout.
#include "core/aggregation/hash_table_stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/aggregation/aggregator.h"

namespace granite::core {
namespace {

TEST(HashTableStatsTest, RecordsReplacesAndLooksUp) {
  HashTableStats stats(4);
  EXPECT_FALSE(stats.Lookup(1).has_value());
  stats.Record(1, 100);
  stats.Record(2, 200);
  EXPECT_EQ(stats.Lookup(1), 100u);
  EXPECT_EQ(stats.Lookup(2), 200u);
  stats.Record(1, 50);  // the latest run wins, also when smaller
  EXPECT_EQ(stats.Lookup(1), 50u);
  EXPECT_EQ(stats.size(), 2u);
}

TEST(HashTableStatsTest, StaysBoundedDroppingTheOldestShape) {
  HashTableStats stats(3);
  for (uint64_t shape = 1; shape <= 10; ++shape) stats.Record(shape, shape * 10);
  EXPECT_EQ(stats.size(), 3u);
  EXPECT_FALSE(stats.Lookup(7).has_value());
  EXPECT_EQ(stats.Lookup(8), 80u);
  EXPECT_EQ(stats.Lookup(10), 100u);
  // Updating a kept shape does not evict anything.
  stats.Record(9, 1);
  EXPECT_EQ(stats.size(), 3u);
  EXPECT_EQ(stats.Lookup(8), 80u);
}

// Key columns for `rows` rows of `types`, with about `groups` distinct key tuples.
std::vector<ColumnPtr> KeyColumns(const std::vector<TypeId>& types, size_t rows, size_t groups) {
  std::vector<ColumnPtr> columns;
  for (size_t k = 0; k < types.size(); ++k) {
    auto column = std::make_shared<Column>(types[k]);
    for (size_t i = 0; i < rows; ++i) {
      uint64_t v = (i * 7919 + k) % groups;
      if (types[k] == TypeId::kString) {
        column->AppendString("key-" + std::to_string(v * 31 + k));
      } else {
        DispatchFixed(types[k], [&](auto tag) {
          using T = typename decltype(tag)::Type;
          column->Append<T>(static_cast<T>(v * 1000003 + (uint64_t{1} << 20)));
        });
      }
    }
    columns.push_back(std::move(column));
  }
  return columns;
}

// Finalizes and returns the rows as sorted strings.
std::vector<std::string> SortedRows(Aggregator& aggregator) {
  absl::StatusOr<Block> block = aggregator.Finalize();
  EXPECT_TRUE(block.ok()) << block.status();
  std::vector<std::string> rows(block->rows());
  for (const ColumnPtr& column : block->columns) {
    for (size_t r = 0; r < rows.size(); ++r) {
      if (column->type() == TypeId::kString) {
        rows[r] += std::string(column->StringAt(r)) + "|";
      } else {
        DispatchFixed(column->type(), [&](auto tag) {
          using T = typename decltype(tag)::Type;
          if constexpr (sizeof(T) > 8) {
            rows[r] += "wide|";  // no 128-bit columns here
          } else {
            rows[r] += std::to_string(column->Get<T>(r)) + "|";
          }
        });
      }
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST(AggregatorPresizeTest, PresizedTableGroupsLikeAGrownOne) {
  const std::vector<std::vector<TypeId>> layouts = {
      {TypeId::kUInt64},                     // kFixed64
      {TypeId::kUInt32, TypeId::kUInt16},    // kPacked64
      {TypeId::kUInt64, TypeId::kUInt32},    // kPacked128 (ClickBench Q33's WatchID, ClientIP)
      {TypeId::kString},                     // kString
      {TypeId::kString, TypeId::kUInt32}};   // kSerialized
  constexpr size_t kRows = 30000;
  constexpr size_t kGroups = 6000;
  AggregatorOptions options;
  options.two_level_threshold = 1000;  // the grown table converts midway
  for (const std::vector<TypeId>& types : layouts) {
    SCOPED_TRACE(types.size() == 1 ? std::string(TypeName(types[0])) : "two keys");
    std::vector<AggregateSpec> specs = {{"count", {}}, {"sum", {TypeId::kUInt32}}};
    std::vector<ColumnPtr> keys = KeyColumns(types, kRows, kGroups);
    auto values = std::make_shared<Column>(TypeId::kUInt32);
    for (size_t i = 0; i < kRows; ++i) values->Append<uint32_t>(static_cast<uint32_t>(i));
    std::vector<std::vector<ColumnPtr>> args = {{}, {values}};

    auto grown = *Aggregator::Create(types, specs, options);
    auto presized = *Aggregator::Create(types, specs, options);
    auto reserved = *Aggregator::Create(types, specs, AggregatorOptions{});
    presized->Presize(kGroups);
    EXPECT_TRUE(presized->two_level());  // past the threshold: two-level from the start
    reserved->Presize(kGroups);
    EXPECT_FALSE(reserved->two_level());  // below the default threshold: a reserved single level
    for (Aggregator* aggregator : {grown.get(), presized.get(), reserved.get()}) {
      // In batches, as a worker thread adds morsels.
      for (size_t from = 0; from < kRows; from += 7000) {
        size_t rows = std::min<size_t>(7000, kRows - from);
        std::vector<ColumnPtr> key_slice;
        for (const ColumnPtr& key : keys) {
          key_slice.push_back(std::make_shared<Column>(key->Slice(from, rows)));
        }
        auto value_slice = std::make_shared<Column>(values->Slice(from, rows));
        ASSERT_TRUE(aggregator->Add(key_slice, {{}, {value_slice}}, rows).ok());
      }
    }
    EXPECT_TRUE(grown->two_level());
    EXPECT_EQ(presized->size(), grown->size());
    EXPECT_EQ(reserved->size(), grown->size());
    std::vector<std::string> expected = SortedRows(*grown);
    EXPECT_EQ(expected.size(), kGroups);
    EXPECT_EQ(SortedRows(*presized), expected);
    EXPECT_EQ(SortedRows(*reserved), expected);
  }
}

TEST(AggregatorPresizeTest, IgnoredWhenNotEmptyOrNotHashed) {
  std::vector<AggregateSpec> specs = {{"count", {}}};
  AggregatorOptions options;
  options.two_level_threshold = 10;
  auto direct = *Aggregator::Create({TypeId::kUInt16}, specs, options);
  direct->Presize(1000000);
  EXPECT_FALSE(direct->two_level());
  auto busy = *Aggregator::Create({TypeId::kUInt64}, specs, options);
  std::vector<ColumnPtr> keys = KeyColumns({TypeId::kUInt64}, 5, 5);
  ASSERT_TRUE(busy->Add(keys, {{}}, 5).ok());
  busy->Presize(1000000);  // not empty: keeps its single-level table
  EXPECT_FALSE(busy->two_level());
  EXPECT_EQ(busy->size(), 5u);
}

}  // namespace
}  // namespace granite::core
