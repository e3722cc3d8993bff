// Targeted Aggregator tests: avg exactness beyond Int64, empty inputs, string min/max ordering,
// the pinned key hash / bucket definition, and error reporting.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/aggregation/aggregator.h"
#include "core/aggregation/key_hash.h"
#include "core/block_codec.h"
#include "core/error.h"

namespace granite::core {
namespace {

template <typename T>
ColumnPtr MakeColumn(TypeId type, const std::vector<T>& values) {
  auto column = std::make_shared<Column>(type);
  for (const T& v : values) {
    if constexpr (std::is_same_v<T, std::string>) {
      column->AppendString(v);
    } else {
      column->Append<T>(v);
    }
  }
  return column;
}

std::unique_ptr<Aggregator> MustCreate(std::vector<TypeId> keys, std::vector<AggregateSpec> specs) {
  auto aggregator = Aggregator::Create(std::move(keys), std::move(specs));
  EXPECT_TRUE(aggregator.ok()) << aggregator.status();
  return std::move(aggregator).value();
}

TEST(AggregatorEdgeTest, AvgIsExactWhenInt64SumOverflows) {
  // Values 2^62 and 2^62 + 2048 alternate: the sum overflows Int64 after 2 rows, the mean
  // 2^62 + 1024 is exactly representable as a double.
  const int64_t base = int64_t{1} << 62;
  std::vector<int64_t> values;
  for (int i = 0; i < 1000; ++i) values.push_back(base + (i % 2) * 2048);
  std::vector<int64_t> negative;
  for (int64_t v : values) negative.push_back(-v);
  auto column = MakeColumn(TypeId::kInt64, values);
  auto negative_column = MakeColumn(TypeId::kInt64, negative);
  std::vector<AggregateSpec> specs = {{"avg", {TypeId::kInt64}}, {"avg", {TypeId::kInt64}}};

  // Split over two aggregators and merged through the codec, so the 128-bit state travels.
  auto first = MustCreate({}, specs);
  auto second = MustCreate({}, specs);
  auto half = [](const ColumnPtr& c, size_t start) {
    return std::make_shared<Column>(c->Slice(start, 500));
  };
  ASSERT_TRUE(first->Add({}, {{half(column, 0)}, {half(negative_column, 0)}}, 500).ok());
  ASSERT_TRUE(second->Add({}, {{half(column, 500)}, {half(negative_column, 500)}}, 500).ok());
  auto merged = MustCreate({}, specs);
  for (auto* part : {first.get(), second.get()}) {
    auto decoded = DecodeBlock(EncodeBlock(part->Partial()));
    ASSERT_TRUE(decoded.ok());
    ASSERT_TRUE(merged->Merge(*decoded).ok());
  }
  auto result = merged->Finalize();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->columns[0]->Get<double>(0), std::ldexp(1.0, 62) + 1024);
  EXPECT_EQ(result->columns[1]->Get<double>(0), -(std::ldexp(1.0, 62) + 1024));
}

TEST(AggregatorEdgeTest, AvgOfLargeUInt64IsExact) {
  const uint64_t top = std::numeric_limits<uint64_t>::max();
  auto column = MakeColumn(TypeId::kUInt64, std::vector<uint64_t>(100, top));
  auto aggregator = MustCreate({}, {{"avg", {TypeId::kUInt64}}, {"sum", {TypeId::kUInt64}}});
  ASSERT_TRUE(aggregator->Add({}, {{column}, {column}}, 100).ok());
  auto result = aggregator->Finalize();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->columns[0]->Get<double>(0), static_cast<double>(top));
  EXPECT_EQ(result->columns[1]->Get<uint64_t>(0), top * 100);  // wraps like ClickHouse
}

TEST(AggregatorEdgeTest, NoKeysEmptyInputReturnsOneDefaultRow) {
  auto aggregator = MustCreate({}, {{"count", {}},
                                    {"sum", {TypeId::kInt32}},
                                    {"avg", {TypeId::kFloat64}},
                                    {"min", {TypeId::kString}},
                                    {"max", {TypeId::kDateTime}},
                                    {"any", {TypeId::kUInt16}},
                                    {"uniqExact", {TypeId::kString}},
                                    {"uniq", {TypeId::kUInt64}}});
  EXPECT_EQ(aggregator->Partial().rows(), 0u);  // nothing to send yet
  auto result = aggregator->Finalize();
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->rows(), 1u);
  EXPECT_EQ(result->columns[0]->Get<uint64_t>(0), 0u);
  EXPECT_EQ(result->columns[1]->Get<int64_t>(0), 0);
  EXPECT_TRUE(std::isnan(result->columns[2]->Get<double>(0)));
  EXPECT_EQ(result->columns[3]->StringAt(0), "");
  EXPECT_EQ(result->columns[4]->Get<uint32_t>(0), 0u);
  EXPECT_EQ(result->columns[5]->Get<uint16_t>(0), 0u);
  EXPECT_EQ(result->columns[6]->Get<uint64_t>(0), 0u);
  EXPECT_EQ(result->columns[7]->Get<uint64_t>(0), 0u);
}

TEST(AggregatorEdgeTest, KeyedEmptyInputReturnsNoRows) {
  auto aggregator = MustCreate({TypeId::kString}, {{"count", {}}});
  auto result = aggregator->Finalize();
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->columns.size(), 2u);
  EXPECT_EQ(result->rows(), 0u);
  std::vector<Block> buckets = aggregator->PartialByBucket();
  ASSERT_EQ(buckets.size(), kBucketCount);
  EXPECT_EQ(buckets[17].columns.size(), 2u);
  EXPECT_EQ(buckets[17].columns[0]->type(), TypeId::kString);
  EXPECT_EQ(buckets[17].columns[1]->type(), TypeId::kUInt64);
}

// Runs of equal keys (rows clustered by the key) take the previous row's group without a probe:
// the groups must equal a reference across runs, a key that comes back after another, runs that
// cross batches, and both one-word (Int64) and two-word (Int64, Int64) keys, with enough distinct
// keys that the tables leave their direct-array and cache-resident forms.
TEST(AggregatorEdgeTest, RunsOfEqualKeysGroupAsSingleRows) {
  std::vector<int64_t> a, b;
  std::map<std::pair<int64_t, int64_t>, uint64_t> reference;
  for (int64_t k = 0; k < 300000; ++k) {
    const int64_t key = (k * 7919) % 300007 + 100000;  // large, unordered keys
    const int repeat = 1 + k % 4;
    for (int r = 0; r < repeat; ++r) {
      a.push_back(key);
      b.push_back(k % 3 == 0 ? r % 2 : 0);  // the second key splits some runs
      ++reference[{key, b.back()}];
    }
    if (k % 1000 == 0) {  // an earlier key again, after others
      a.push_back(100000);
      b.push_back(0);
      ++reference[{100000, 0}];
    }
  }
  for (bool two_keys : {false, true}) {
    std::vector<TypeId> key_types = {TypeId::kInt64};
    if (two_keys) key_types.push_back(TypeId::kInt64);
    auto aggregator = MustCreate(key_types, {{"count", {}}});
    for (size_t begin = 0; begin < a.size(); begin += 8192) {
      const size_t rows = std::min<size_t>(8192, a.size() - begin);
      std::vector<ColumnPtr> keys = {MakeColumn(TypeId::kInt64, std::vector<int64_t>(
                                         a.begin() + begin, a.begin() + begin + rows))};
      if (two_keys) {
        keys.push_back(MakeColumn(TypeId::kInt64, std::vector<int64_t>(b.begin() + begin,
                                                                      b.begin() + begin + rows)));
      }
      ASSERT_TRUE(aggregator->Add(keys, {{}}, rows).ok());
    }
    absl::StatusOr<Block> result = aggregator->Finalize();
    ASSERT_TRUE(result.ok()) << result.status();
    std::map<std::pair<int64_t, int64_t>, uint64_t> groups;
    const Column& counts = *result->columns.back();
    for (size_t row = 0; row < result->rows(); ++row) {
      const int64_t first = result->columns[0]->Get<int64_t>(row);
      const int64_t second = two_keys ? result->columns[1]->Get<int64_t>(row) : 0;
      groups[{first, second}] += counts.Get<uint64_t>(row);
    }
    if (two_keys) {
      EXPECT_EQ(groups, reference);
    } else {
      std::map<std::pair<int64_t, int64_t>, uint64_t> by_first;
      for (const auto& [key, count] : reference) by_first[{key.first, 0}] += count;
      EXPECT_EQ(groups, by_first);
    }
    EXPECT_EQ(result->rows(), two_keys ? reference.size() : groups.size());
  }
}

TEST(AggregatorEdgeTest, StringMinMaxCompareBytesUnsigned) {
  auto keys = MakeColumn<uint32_t>(TypeId::kUInt32, {1, 1, 1, 1, 2, 2});
  auto values = MakeColumn<std::string>(TypeId::kString,
                                        {"b", "\xff", "", "ab", "zz", "z"});
  auto aggregator = MustCreate({TypeId::kUInt32}, {{"min", {TypeId::kString}},
                                                   {"max", {TypeId::kString}},
                                                   {"any", {TypeId::kString}}});
  ASSERT_TRUE(aggregator->Add({keys}, {{values}, {values}, {values}}, 6).ok());
  auto result = aggregator->Finalize();
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->rows(), 2u);
  EXPECT_EQ(result->columns[0]->Get<uint32_t>(0), 1u);  // groups in order of first appearance
  EXPECT_EQ(result->columns[1]->StringAt(0), "");
  EXPECT_EQ(result->columns[2]->StringAt(0), "\xff");
  EXPECT_EQ(result->columns[3]->StringAt(0), "b");
  EXPECT_EQ(result->columns[1]->StringAt(1), "z");
  EXPECT_EQ(result->columns[2]->StringAt(1), "zz");
}

TEST(AggregatorEdgeTest, KeyHashIsPinned) {
  // The bucket of a key must be the same in every process: pin the definition.
  uint64_t hash = 0;
  HashKeys({MakeColumn<int8_t>(TypeId::kInt8, {-1})}, 1, &hash);
  EXPECT_EQ(hash, HashInt(~uint64_t{0}));  // sign-extended
  HashKeys({MakeColumn<uint32_t>(TypeId::kDateTime, {7})}, 1, &hash);
  EXPECT_EQ(hash, HashInt(7));
  HashKeys({MakeColumn<double>(TypeId::kFloat64, {-0.0})}, 1, &hash);
  EXPECT_EQ(hash, HashInt(0));  // -0.0 is 0.0
  HashKeys({MakeColumn<std::string>(TypeId::kString, {"abc"}),
            MakeColumn<uint16_t>(TypeId::kUInt16, {5})},
           1, &hash);
  EXPECT_EQ(hash, HashCombine(HashBytes("abc"), HashInt(5)));

  // PartialByBucket places each group by BucketOf(hash) for every layout.
  auto aggregator = MustCreate({TypeId::kString, TypeId::kUInt16}, {{"count", {}}});
  ASSERT_TRUE(aggregator->Add({MakeColumn<std::string>(TypeId::kString, {"abc"}),
                               MakeColumn<uint16_t>(TypeId::kUInt16, {5})},
                              {{}}, 1)
                  .ok());
  std::vector<Block> buckets = aggregator->PartialByBucket();
  EXPECT_EQ(buckets[BucketOf(HashCombine(HashBytes("abc"), HashInt(5)))].rows(), 1u);
  auto direct = MustCreate({TypeId::kInt8}, {{"count", {}}});
  ASSERT_TRUE(direct->Add({MakeColumn<int8_t>(TypeId::kInt8, {-1})}, {{}}, 1).ok());
  // One integer key: the hash of the widened value (core::HashIntKey).
  EXPECT_EQ(direct->PartialByBucket()[BucketOf(HashIntKey(~uint64_t{0}))].rows(), 1u);
}

TEST(AggregatorEdgeTest, ReportsMismatchedInputs) {
  auto aggregator = MustCreate({TypeId::kUInt32}, {{"sum", {TypeId::kInt64}}});
  auto keys = MakeColumn<uint32_t>(TypeId::kUInt32, {1});
  auto wrong = MakeColumn<int32_t>(TypeId::kInt32, {1});
  absl::Status status = aggregator->Add({keys}, {{wrong}}, 1);
  EXPECT_EQ(CodeOf(status), ErrorCode::kLogicalError);
  EXPECT_NE(status.message().find("sum"), std::string::npos) << status;
  EXPECT_EQ(CodeOf(aggregator->Add({wrong}, {{wrong}}, 1)), ErrorCode::kLogicalError);
  EXPECT_EQ(CodeOf(aggregator->Add({keys}, {{}}, 1)), ErrorCode::kLogicalError);
  EXPECT_EQ(aggregator->size(), 0u);

  Block partial;
  partial.columns = {keys, wrong};
  EXPECT_EQ(CodeOf(aggregator->Merge(partial)), ErrorCode::kLogicalError);

  auto unknown = Aggregator::Create({}, {{"medianSpline", {TypeId::kInt64}}});
  EXPECT_EQ(CodeOf(unknown.status()), ErrorCode::kUnknownAggregateFunction);
}

TEST(AggregatorEdgeTest, RejectsCorruptedSerializedStates) {
  for (const char* function : {"uniqExact", "uniq"}) {
    for (TypeId type : {TypeId::kUInt64, TypeId::kString}) {
      auto aggregator = MustCreate({TypeId::kUInt8}, {{function, {type}}});
      Block partial;
      partial.columns = {MakeColumn<uint8_t>(TypeId::kUInt8, {1, 2}),
                         MakeColumn<std::string>(TypeId::kString, {"\x01", "\x01\x01\x05xyz"})};
      absl::Status status = aggregator->Merge(partial);
      EXPECT_EQ(CodeOf(status), ErrorCode::kCorruptedData) << function << " " << status;
    }
  }
}

TEST(AggregatorEdgeTest, UniqIsWithinOnePercentAcrossMerges) {
  // 300000 distinct values (each twice), split over three aggregators by bucket and merged.
  const size_t rows = 600000;
  std::vector<uint64_t> numbers;
  std::vector<std::string> strings;
  for (size_t i = 0; i < rows; ++i) {
    numbers.push_back((i % 300000) * 0x9E3779B97F4A7C15ULL);
    strings.push_back("s" + std::to_string(i % 300000));
  }
  auto number_column = MakeColumn(TypeId::kUInt64, numbers);
  auto string_column = MakeColumn(TypeId::kString, strings);
  std::vector<AggregateSpec> specs = {{"uniq", {TypeId::kUInt64}},
                                      {"uniq", {TypeId::kString}},
                                      {"uniqExact", {TypeId::kUInt64}},
                                      {"uniqExact", {TypeId::kString}}};
  auto single = MustCreate({}, specs);
  ASSERT_TRUE(single->Add({}, {{number_column}, {string_column}, {number_column}, {string_column}},
                          rows)
                  .ok());
  auto merged = MustCreate({}, specs);
  for (size_t part = 0; part < 3; ++part) {
    auto slice = [&](const ColumnPtr& c) {
      return std::make_shared<Column>(c->Slice(part * rows / 3, rows / 3));
    };
    auto aggregator = MustCreate({}, specs);
    ASSERT_TRUE(aggregator->Add({}, {{slice(number_column)}, {slice(string_column)},
                                     {slice(number_column)}, {slice(string_column)}},
                                rows / 3)
                    .ok());
    for (const Block& bucket : aggregator->PartialByBucket()) {
      auto decoded = DecodeBlock(EncodeBlock(bucket));
      ASSERT_TRUE(decoded.ok());
      ASSERT_TRUE(merged->Merge(*decoded).ok());
    }
  }
  auto single_result = single->Finalize();
  auto merged_result = merged->Finalize();
  ASSERT_TRUE(single_result.ok() && merged_result.ok());
  for (size_t a = 0; a < specs.size(); ++a) {
    uint64_t estimate = merged_result->columns[a]->Get<uint64_t>(0);
    EXPECT_EQ(estimate, single_result->columns[a]->Get<uint64_t>(0)) << a;
    if (specs[a].name == "uniqExact") {
      EXPECT_EQ(estimate, 300000u);
    } else {
      EXPECT_NEAR(static_cast<double>(estimate), 300000.0, 3000.0) << a;
    }
  }
}

TEST(AggregatorEdgeTest, ReusableAfterPartial) {
  auto aggregator = MustCreate({TypeId::kUInt64}, {{"count", {}}, {"max", {TypeId::kString}}});
  auto keys = MakeColumn<uint64_t>(TypeId::kUInt64, {1, 2, 1});
  auto values = MakeColumn<std::string>(TypeId::kString, {"a", "b", "c"});
  ASSERT_TRUE(aggregator->Add({keys}, {{}, {values}}, 3).ok());
  EXPECT_EQ(aggregator->size(), 2u);
  Block first = aggregator->Partial();
  EXPECT_EQ(first.rows(), 2u);
  EXPECT_EQ(aggregator->size(), 0u);
  ASSERT_TRUE(aggregator->Add({keys}, {{}, {values}}, 1).ok());
  ASSERT_TRUE(aggregator->Merge(first).ok());
  auto result = aggregator->Finalize();
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->rows(), 2u);
  EXPECT_EQ(result->columns[0]->Get<uint64_t>(0), 1u);
  EXPECT_EQ(result->columns[1]->Get<uint64_t>(0), 3u);
  EXPECT_EQ(result->columns[2]->StringAt(0), "c");
}

// PartialByBucket of many groups scatters keys and states to their buckets (bucket_scatter.h);
// the blocks must equal the per-bucket gather of the same groups (PartialOfGroups over
// BucketOrder), byte for byte, for fixed-width and String keys, Nullable keys (no scatter path),
// and aggregates with a scatter path (count, sum, avg) and without one (uniqExact, max(String)).
TEST(AggregatorEdgeTest, PartialByBucketOfManyGroupsEqualsTheGather) {
  constexpr size_t kGroups = 300000;  // above the scatter threshold (2^18)
  const std::vector<AggregateSpec> specs = {{"count", {}},
                                            {"sum", {TypeId::kInt16}},
                                            {"avg", {TypeId::kInt32}},
                                            {"uniqExact", {TypeId::kInt64}},
                                            {"max", {TypeId::kString}}};
  auto args = [&](size_t rows) {
    std::vector<int16_t> small;
    std::vector<int32_t> medium;
    std::vector<int64_t> users;
    std::vector<std::string> texts;
    for (size_t i = 0; i < rows; ++i) {
      small.push_back(static_cast<int16_t>(i * 7));
      medium.push_back(static_cast<int32_t>(i * 13));
      users.push_back(static_cast<int64_t>(i % 1000));
      texts.push_back(std::to_string(i % 977));
    }
    return std::vector<std::vector<ColumnPtr>>{{},
                                               {MakeColumn(TypeId::kInt16, small)},
                                               {MakeColumn(TypeId::kInt32, medium)},
                                               {MakeColumn(TypeId::kInt64, users)},
                                               {MakeColumn(TypeId::kString, texts)}};
  };
  struct Shape {
    const char* name;
    std::vector<TypeId> key_types;
  };
  const std::vector<Shape> shapes = {
      {"Int64, Int32 (packed)", {TypeId::kInt64, TypeId::kInt32}},
      {"String", {TypeId::kString}},
      {"Int64, String (serialized)", {TypeId::kInt64, TypeId::kString}},
      {"Nullable(Int64)", {WithNullable(TypeId::kInt64, true)}}};
  for (const Shape& shape : shapes) {
    SCOPED_TRACE(shape.name);
    const size_t rows = kGroups + kGroups / 2;  // half the groups get two rows
    std::vector<ColumnPtr> keys;
    for (TypeId type : shape.key_types) {
      auto column = std::make_shared<Column>(type);
      for (size_t i = 0; i < rows; ++i) {
        const uint64_t g = i % kGroups;
        if (HasStringLayout(type)) {
          column->AppendString("key-" + std::to_string(g * 2654435761u));
        } else if (ValueSize(type) == 4) {
          column->Append<int32_t>(static_cast<int32_t>(g % 1000));
        } else {
          column->Append<int64_t>(static_cast<int64_t>(g * 0x9E3779B97F4A7C15ull));
        }
      }
      keys.push_back(std::move(column));
    }
    auto gathered = MustCreate(shape.key_types, specs);
    auto scattered = MustCreate(shape.key_types, specs);
    ASSERT_TRUE(gathered->Add(keys, args(rows), rows).ok());
    ASSERT_TRUE(scattered->Add(keys, args(rows), rows).ok());
    ASSERT_EQ(scattered->size(), kGroups);
    std::vector<uint32_t> order;
    std::vector<uint32_t> starts;
    gathered->BucketOrder(&order, &starts);
    std::vector<Block> buckets = scattered->PartialByBucket();
    ASSERT_EQ(buckets.size(), kBucketCount);
    size_t total = 0;
    for (uint32_t b = 0; b < kBucketCount; ++b) {
      Block expected =
          gathered->PartialOfGroups(order.data() + starts[b], starts[b + 1] - starts[b]);
      ASSERT_EQ(buckets[b].rows(), expected.rows()) << "bucket " << b;
      ASSERT_EQ(EncodeBlock(buckets[b]), EncodeBlock(expected)) << "bucket " << b;
      total += buckets[b].rows();
    }
    EXPECT_EQ(total, kGroups);
    EXPECT_EQ(scattered->size(), 0u);  // emptied, as before
  }
}

TEST(AggregatorEdgeTest, InMemoryMergeOfStringKeysShortAndLong) {
  // Keys of 0 to 40 bytes (inline and arena-held KeyRefs); src holds keys 0..199 with users
  // 1000 + i and 2000 + i, dst holds keys 100..299 with user 1000 + i; src's groups are merged
  // in two MergeGroupsFrom calls (second half first).
  auto key_of = [](int i) {
    return std::string(static_cast<size_t>(i % 41), 'k') + std::to_string(i);
  };
  auto build = [&](int first, int last, int copies) {
    auto aggregator =
        MustCreate({TypeId::kString}, {{"count", {}}, {"uniqExact", {TypeId::kInt64}}});
    std::vector<std::string> keys;
    std::vector<int64_t> users;
    for (int c = 0; c < copies; ++c) {
      for (int i = first; i < last; ++i) {
        keys.push_back(key_of(i));
        users.push_back(1000 * (c + 1) + i);
      }
    }
    EXPECT_TRUE(aggregator
                    ->Add({MakeColumn<std::string>(TypeId::kString, keys)},
                          {{}, {MakeColumn<int64_t>(TypeId::kInt64, users)}}, keys.size())
                    .ok());
    return aggregator;
  };
  auto src = build(0, 200, 2);
  auto dst = build(100, 300, 1);
  ASSERT_EQ(dst->layout(), Aggregator::KeyLayout::kString);
  std::vector<uint32_t> first_half(100);
  for (uint32_t g = 0; g < 100; ++g) first_half[g] = g;
  std::vector<uint32_t> second_half(100);
  for (uint32_t g = 0; g < 100; ++g) second_half[g] = 100 + g;
  dst->MergeGroupsFrom(*src, second_half.data(), second_half.size());
  dst->MergeGroupsFrom(*src, first_half.data(), first_half.size());
  auto result = dst->Finalize();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->rows(), 300u);
  std::map<std::string, std::pair<uint64_t, uint64_t>> got;
  for (size_t r = 0; r < result->rows(); ++r) {
    got[std::string(result->columns[0]->StringAt(r))] = {result->columns[1]->Get<uint64_t>(r),
                                                         result->columns[2]->Get<uint64_t>(r)};
  }
  for (int i = 0; i < 300; ++i) {
    // src: 2 rows, users 1000+i and 2000+i; dst: 1 row, user 1000+i.
    uint64_t count = (i < 200 ? 2 : 0) + (i >= 100 ? 1 : 0);
    uint64_t users = i < 200 ? 2 : 1;
    EXPECT_EQ(got[key_of(i)], std::make_pair(count, users)) << key_of(i);
  }
}

TEST(AggregatorEdgeTest, SerializedKeysComeBackAsAdded) {
  // Keys of the kSerialized layout (Nullable and not, Strings with fixed widths) through Add, the
  // bucket split, the codec, a Merge and Finalize: every value, NULL, sign and empty string must
  // come back as it was added.
  const std::vector<TypeId> key_types = {WithNullable(TypeId::kString, true), TypeId::kInt8,
                                         TypeId::kUInt64, WithNullable(TypeId::kInt32, true),
                                         TypeId::kString};
  auto aggregator = MustCreate(key_types, {{"count", {}}});
  ASSERT_EQ(aggregator->layout(), Aggregator::KeyLayout::kSerialized);
  std::vector<MutableColumnPtr> columns;
  for (TypeId type : key_types) columns.push_back(std::make_shared<Column>(type));
  using Row = std::tuple<std::string, bool, int8_t, uint64_t, int32_t, bool, std::string>;
  std::map<Row, uint64_t> expected;
  const size_t rows = 5000;
  for (size_t i = 0; i < rows; ++i) {
    const size_t g = (i * 7919) % 1300;
    const bool null_text = g % 5 == 0;
    const std::string text = null_text ? "" : std::string(g % 23, 'x') + std::to_string(g);
    const auto small = static_cast<int8_t>(static_cast<int>(g % 256) - 128);
    const uint64_t wide = ~uint64_t{0} - g;
    const bool null_int = g % 3 == 0;
    const int32_t medium = null_int ? 0 : -static_cast<int32_t>(g) * 1000;
    const std::string last = g % 4 == 0 ? "" : "tail" + std::to_string(g % 4);
    if (null_text) {
      columns[0]->AppendNull();
    } else {
      columns[0]->AppendString(text);
    }
    columns[1]->Append<int8_t>(small);
    columns[2]->Append<uint64_t>(wide);
    if (null_int) {
      columns[3]->AppendNull();
    } else {
      columns[3]->Append<int32_t>(medium);
    }
    columns[4]->AppendString(last);
    ++expected[Row{text, null_text, small, wide, medium, null_int, last}];
  }
  std::vector<ColumnPtr> keys(columns.begin(), columns.end());
  ASSERT_TRUE(aggregator->Add(keys, {{}}, rows).ok());
  // Through a partial block and the codec into a second aggregator, then finalized.
  auto merged = MustCreate(key_types, {{"count", {}}});
  for (const Block& bucket : aggregator->PartialByBucket()) {
    ASSERT_TRUE(merged->Merge(DecodeBlock(EncodeBlock(bucket)).value()).ok());
  }
  auto result = merged->Finalize();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->rows(), expected.size());
  std::map<Row, uint64_t> got;
  for (size_t r = 0; r < result->rows(); ++r) {
    const auto& c = result->columns;
    got[Row{std::string(c[0]->StringAt(r)), c[0]->IsNullAt(r), c[1]->Get<int8_t>(r),
            c[2]->Get<uint64_t>(r), c[3]->IsNullAt(r) ? 0 : c[3]->Get<int32_t>(r),
            c[3]->IsNullAt(r), std::string(c[4]->StringAt(r))}] = c[5]->Get<uint64_t>(r);
  }
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace granite::core
