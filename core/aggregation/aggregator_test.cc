// Randomized equivalence tests of Aggregator: for every key layout and every aggregate function,
// rows split across 1, 2 and 3 Aggregators (threads / workers), PartialByBucket, encoded and
// decoded, merged bucket by bucket in fresh Aggregators, re-emitted with Partial (as a worker
// does), merged again (as the coordinator does) and finalized, must equal a single-pass
// Aggregator and a naive std::map reference. The same holds for the real worker path: 1-3 threads
// merged in memory by LocalMerger (serial fast path, parallel per bucket / per key range / per
// part, with and without two-level tables, final-only states for one worker), then 1-3 workers
// merged per bucket as BucketedMerger does.
#include "core/aggregation/aggregator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>

#include "core/aggregation/key_hash.h"
#include "core/aggregation/local_merger.h"
#include "core/thread_pool.h"
#include "core/block_codec.h"
#include "core/value.h"

namespace granite::core {
namespace {

using Int128 = __int128;

// Returns row `row` of `column` as a Value (floats as double, signed as int64, else uint64).
Value ValueAt(const Column& column, size_t row) {
  if (column.type() == TypeId::kString) return std::string(column.StringAt(row));
  return DispatchFixed(column.type(), [&](auto tag) -> Value {
    using T = typename decltype(tag)::Type;
    T v = column.Get<T>(row);
    if constexpr (std::is_floating_point_v<T>) return static_cast<double>(v);
    if constexpr (std::is_signed_v<T>) return static_cast<int64_t>(v);
    return static_cast<uint64_t>(v);
  });
}

// Returns a canonical byte string of a value for grouping (-0.0 folded into 0.0).
std::string Canonical(const Value& value) {
  if (const double* d = std::get_if<double>(&value)) {
    double v = *d == 0 ? 0.0 : *d;
    return "d" + std::string(reinterpret_cast<const char*>(&v), 8);
  }
  if (const int64_t* i = std::get_if<int64_t>(&value)) return "i" + std::to_string(*i);
  if (const uint64_t* u = std::get_if<uint64_t>(&value)) return "u" + std::to_string(*u);
  const std::string& s = std::get<std::string>(value);
  return "s" + std::to_string(s.size()) + ":" + s;
}

std::string RowKey(const std::vector<ColumnPtr>& keys, size_t row) {
  std::string out;
  for (const ColumnPtr& key : keys) out += Canonical(ValueAt(*key, row)) + "|";
  return out;
}

// Draws `rows` values of `type` from a pool of `cardinality` random values.
// With `modulo` > 0, integer values are drawn below it.
ColumnPtr RandomColumn(TypeId type, size_t rows, size_t cardinality, std::mt19937_64& rng,
                       uint64_t modulo = 0) {
  auto column = std::make_shared<Column>(type);
  if (type == TypeId::kString) {
    std::vector<std::string> pool;
    for (size_t i = 0; i < cardinality; ++i) {
      std::string s(rng() % 13, ' ');
      for (char& c : s) c = static_cast<char>("ab\xff\x01z0"[rng() % 6]);
      pool.push_back(s);
    }
    for (size_t i = 0; i < rows; ++i) column->AppendString(pool[rng() % pool.size()]);
    return column;
  }
  DispatchFixed(type, [&](auto tag) {
    using T = typename decltype(tag)::Type;
    std::vector<T> pool;
    for (size_t i = 0; i < cardinality; ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        // Include both zeros: they must fall into one group / count once.
        T v = i == 0 ? T(0.0) : i == 1 ? T(-0.0) : static_cast<T>(rng() % 20001) / T(8) - T(1250);
        pool.push_back(v);
      } else {
        pool.push_back(static_cast<T>(modulo > 0 ? rng() % modulo : rng()));
      }
    }
    for (size_t i = 0; i < rows; ++i) column->Append<T>(pool[rng() % pool.size()]);
  });
  return column;
}

struct Argument {
  std::string function;
  TypeId type;
  size_t cardinality;  // 0: no argument
};

// The aggregates every layout is tested with.
const std::vector<Argument> kAggregates = {
    {"count", TypeId::kUInt8, 0},        {"count", TypeId::kUInt8, 5},
    {"sum", TypeId::kInt32, 1000},       {"sum", TypeId::kUInt16, 1000},
    {"sum", TypeId::kInt64, 1000},       {"sum", TypeId::kFloat64, 1000},
    {"sum", TypeId::kUInt64, 1000},      {"avg", TypeId::kInt64, 1000},
    {"avg", TypeId::kUInt64, 1000},      {"avg", TypeId::kFloat32, 1000},
    {"avg", TypeId::kInt8, 100},         {"min", TypeId::kInt32, 1000},
    {"max", TypeId::kInt32, 1000},       {"min", TypeId::kString, 500},
    {"max", TypeId::kString, 500},       {"min", TypeId::kDate, 500},
    {"max", TypeId::kDateTime, 500},     {"min", TypeId::kFloat64, 500},
    {"any", TypeId::kFloat64, 50},       {"any", TypeId::kString, 50},
    {"uniqExact", TypeId::kUInt32, 50},  {"uniqExact", TypeId::kString, 50},
    {"uniqExact", TypeId::kFloat64, 50}, {"uniq", TypeId::kInt64, 100},
    {"uniq", TypeId::kString, 100},
};

struct Dataset {
  std::vector<TypeId> key_types;
  std::vector<ColumnPtr> keys;
  std::vector<AggregateSpec> specs;
  std::vector<std::vector<ColumnPtr>> args;
  size_t rows = 0;
};

Dataset MakeDataset(const std::vector<std::pair<TypeId, size_t>>& keys, size_t rows,
                    uint64_t seed, uint64_t key_modulo = 0) {
  std::mt19937_64 rng(seed);
  Dataset data;
  data.rows = rows;
  for (const auto& [type, cardinality] : keys) {
    data.key_types.push_back(type);
    data.keys.push_back(RandomColumn(type, rows, cardinality, rng, key_modulo));
  }
  for (const Argument& arg : kAggregates) {
    AggregateSpec spec{arg.function, {}};
    std::vector<ColumnPtr> columns;
    if (arg.cardinality > 0) {
      spec.arg_types.push_back(arg.type);
      columns.push_back(RandomColumn(arg.type, rows, arg.cardinality, rng));
    }
    data.specs.push_back(spec);
    data.args.push_back(columns);
  }
  return data;
}

std::vector<ColumnPtr> SliceColumns(const std::vector<ColumnPtr>& columns, size_t start,
                                    size_t count) {
  std::vector<ColumnPtr> out;
  for (const ColumnPtr& column : columns) {
    out.push_back(std::make_shared<Column>(column->Slice(start, count)));
  }
  return out;
}

// Adds rows [start, end) of `data` to `aggregator` in batches of random size.
void AddRange(const Dataset& data, size_t start, size_t end, Aggregator* aggregator,
              std::mt19937_64& rng) {
  while (start < end) {
    size_t count = std::min<size_t>(end - start, 1 + rng() % 3000);
    std::vector<std::vector<ColumnPtr>> args;
    for (const auto& columns : data.args) args.push_back(SliceColumns(columns, start, count));
    ASSERT_TRUE(aggregator->Add(SliceColumns(data.keys, start, count), args, count).ok());
    start += count;
  }
}

Block RoundTrip(const Block& block) {
  auto decoded = DecodeBlock(EncodeBlock(block));
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  return *decoded;
}

// The naive reference result of one aggregate of one group.
struct Expected {
  Value value;                    // exact result (count, integer sums, min, max, uniqExact)
  double approximate = 0;         // float sums, avg, uniq
  std::set<std::string> members;  // any: canonical forms of every value of the group
};

// Maps the canonical key of each group to the expected result of every aggregate.
using Reference = std::map<std::string, std::vector<Expected>>;

Expected ExpectedOf(const std::string& name, const Column* arg, const std::vector<size_t>& rows) {
  Expected e;
  if (name == "count") {
    e.value = static_cast<uint64_t>(rows.size());
    return e;
  }
  TypeId type = arg->type();
  if (name == "sum" && IsFloat(type)) {
    for (size_t r : rows) e.approximate += std::get<double>(ValueAt(*arg, r));
  } else if (name == "sum" && IsSignedInteger(type)) {
    uint64_t sum = 0;
    for (size_t r : rows) sum += static_cast<uint64_t>(std::get<int64_t>(ValueAt(*arg, r)));
    e.value = static_cast<int64_t>(sum);
  } else if (name == "sum") {
    uint64_t sum = 0;
    for (size_t r : rows) sum += std::get<uint64_t>(ValueAt(*arg, r));
    e.value = sum;
  } else if (name == "avg") {
    long double sum = 0;
    for (size_t r : rows) {
      Value v = ValueAt(*arg, r);
      if (auto* d = std::get_if<double>(&v)) sum += *d;
      if (auto* i = std::get_if<int64_t>(&v)) sum += *i;
      if (auto* u = std::get_if<uint64_t>(&v)) sum += *u;
    }
    e.approximate = rows.empty() ? std::nan("") : static_cast<double>(sum / rows.size());
  } else if (name == "min" || name == "max") {
    for (size_t i = 0; i < rows.size(); ++i) {
      Value v = ValueAt(*arg, rows[i]);
      if (i == 0 || (name == "min" ? v < e.value : e.value < v)) e.value = v;
    }
  } else if (name == "any") {
    for (size_t r : rows) e.members.insert(Canonical(ValueAt(*arg, r)));
  } else {  // uniqExact, uniq
    std::set<std::string> distinct;
    for (size_t r : rows) distinct.insert(Canonical(ValueAt(*arg, r)));
    e.value = static_cast<uint64_t>(distinct.size());
  }
  return e;
}

Reference BuildReference(const Dataset& data) {
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t row = 0; row < data.rows; ++row) groups[RowKey(data.keys, row)].push_back(row);
  if (data.keys.empty() && groups.empty()) groups[""] = {};
  Reference reference;
  for (const auto& [key, rows] : groups) {
    std::vector<Expected>& expected = reference[key];
    for (size_t a = 0; a < data.specs.size(); ++a) {
      const Column* arg = data.args[a].empty() ? nullptr : data.args[a][0].get();
      expected.push_back(ExpectedOf(data.specs[a].name, arg, rows));
    }
  }
  return reference;
}

// Checks `result` (keys then one column per aggregate) against the naive reference.
void ExpectMatchesReference(const Dataset& data, const Reference& reference, const Block& result,
                            const std::string& label) {
  size_t key_count = data.keys.size();
  ASSERT_EQ(result.columns.size(), key_count + data.specs.size()) << label;
  ASSERT_EQ(result.rows(), reference.size()) << label;
  std::vector<ColumnPtr> result_keys(result.columns.begin(), result.columns.begin() + key_count);
  std::set<std::string> seen;
  for (size_t out = 0; out < result.rows(); ++out) {
    std::string key = RowKey(result_keys, out);
    ASSERT_TRUE(seen.insert(key).second) << label << ": duplicate group";
    auto it = reference.find(key);
    ASSERT_NE(it, reference.end()) << label << ": unknown group";
    for (size_t a = 0; a < data.specs.size(); ++a) {
      const std::string& name = data.specs[a].name;
      const Expected& want = it->second[a];
      Value actual = ValueAt(*result.columns[key_count + a], out);
      std::string where = label + ": " + name + " #" + std::to_string(a);
      bool approximate = name == "avg" || (name == "sum" && IsFloat(data.specs[a].arg_types[0]));
      if (approximate) {
        double got = std::get<double>(actual);
        if (std::isnan(want.approximate)) {
          EXPECT_TRUE(std::isnan(got)) << where;
        } else {
          EXPECT_NEAR(got, want.approximate, 1e-9 * (std::abs(want.approximate) + 1)) << where;
        }
      } else if (name == "any") {
        EXPECT_EQ(want.members.count(Canonical(actual)), 1u) << where;
      } else if (name == "uniq") {
        // Small groups are counted exactly (up to 32-bit hash collisions).
        double distinct = static_cast<double>(std::get<uint64_t>(want.value));
        EXPECT_NEAR(static_cast<double>(std::get<uint64_t>(actual)), distinct,
                    1 + distinct / 100.0) << where;
      } else {
        EXPECT_EQ(actual, want.value) << where;
      }
    }
  }
}

// Aggregates `data` in `parts` Aggregators and merges their buckets like workers and the
// coordinator do; returns the union of every bucket's finalized rows.
Block AggregateDistributed(const Dataset& data, size_t parts, std::mt19937_64& rng) {
  // Split rows into `parts` contiguous ranges of random size.
  std::vector<size_t> bounds = {0};
  for (size_t p = 1; p < parts; ++p) bounds.push_back(rng() % (data.rows + 1));
  bounds.push_back(data.rows);
  std::sort(bounds.begin(), bounds.end());
  std::vector<std::vector<Block>> partials;
  std::map<std::string, uint32_t> bucket_of_key;
  for (size_t p = 0; p < parts; ++p) {
    auto aggregator = Aggregator::Create(data.key_types, data.specs);
    EXPECT_TRUE(aggregator.ok()) << aggregator.status();
    AddRange(data, bounds[p], bounds[p + 1], aggregator->get(), rng);
    std::vector<Block> buckets = (*aggregator)->PartialByBucket();
    EXPECT_EQ(buckets.size(), kBucketCount);
    EXPECT_EQ((*aggregator)->size(), 0u);
    for (uint32_t b = 0; b < kBucketCount; ++b) {
      Block& bucket = buckets[b];
      EXPECT_EQ(bucket.columns.size(), (*aggregator)->PartialTypes().size());
      std::vector<ColumnPtr> keys(bucket.columns.begin(),
                                  bucket.columns.begin() + data.key_types.size());
      // A key falls into the same bucket in every aggregator.
      for (size_t row = 0; row < bucket.rows(); ++row) {
        auto [it, inserted] = bucket_of_key.emplace(RowKey(keys, row), b);
        EXPECT_EQ(it->second, b);
      }
      bucket = RoundTrip(bucket);
    }
    partials.push_back(std::move(buckets));
  }
  Block result;
  auto final_merge = Aggregator::Create(data.key_types, data.specs);
  for (uint32_t b = 0; b < kBucketCount; ++b) {
    // Worker side: merge bucket b of every thread, emit it as one partial block.
    auto worker = Aggregator::Create(data.key_types, data.specs);
    for (const auto& buckets : partials) EXPECT_TRUE((*worker)->Merge(buckets[b]).ok());
    Block sent = RoundTrip((*worker)->Partial());
    // Coordinator side: merge and finalize bucket b on its own (no keys: one merge for all).
    if (data.key_types.empty()) {
      EXPECT_TRUE((*final_merge)->Merge(sent).ok());
      continue;
    }
    auto coordinator = Aggregator::Create(data.key_types, data.specs);
    EXPECT_TRUE((*coordinator)->Merge(sent).ok());
    auto finalized = (*coordinator)->Finalize();
    EXPECT_TRUE(finalized.ok());
    if (result.columns.empty()) {
      for (const ColumnPtr& column : finalized->columns) {
        result.columns.push_back(std::make_shared<Column>(column->type()));
      }
    }
    for (size_t c = 0; c < result.columns.size(); ++c) {
      std::const_pointer_cast<Column>(result.columns[c])
          ->AppendRange(*finalized->columns[c], 0, finalized->rows());
    }
  }
  if (data.key_types.empty()) return *(*final_merge)->Finalize();
  return result;
}

// The worker path: rows split over `workers` x `threads` Aggregators; each worker's threads are
// merged by LocalMerger, its buckets encoded, and bucket b of every worker merged and finalized
// as BucketedMerger does (no keys: parts merged, then added up with MergeDisjointFrom).
Block AggregateLikeCluster(const Dataset& data, size_t workers, size_t threads,
                           const AggregatorOptions& options, size_t parallel_threshold,
                           ThreadPool* pool, std::mt19937_64& rng) {
  size_t parts = workers * threads;
  std::vector<size_t> bounds = {0};
  for (size_t p = 1; p < parts; ++p) bounds.push_back(rng() % (data.rows + 1));
  bounds.push_back(data.rows);
  std::sort(bounds.begin(), bounds.end());
  std::vector<std::vector<Block>> sent(workers);
  for (size_t w = 0; w < workers; ++w) {
    std::vector<std::unique_ptr<Aggregator>> locals;
    for (size_t t = 0; t < threads; ++t) {
      auto aggregator = Aggregator::Create(data.key_types, data.specs, options);
      EXPECT_TRUE(aggregator.ok()) << aggregator.status();
      size_t p = w * threads + t;
      AddRange(data, bounds[p], bounds[p + 1], aggregator->get(), rng);
      locals.push_back(std::move(*aggregator));
    }
    LocalMerger::Options merge_options;
    merge_options.parallel_threshold = parallel_threshold;
    merge_options.final_only = workers == 1;
    std::vector<Block> buckets = LocalMerger::Merge(std::move(locals), pool, merge_options);
    EXPECT_EQ(buckets.size(), kBucketCount);
    for (Block& bucket : buckets) sent[w].push_back(RoundTrip(bucket));
  }
  AggregatorOptions sparse;
  sparse.sparse = true;
  std::vector<std::unique_ptr<Aggregator>> no_key_parts;
  Block result;
  for (uint32_t b = 0; b < kBucketCount; ++b) {
    auto coordinator = Aggregator::Create(data.key_types, data.specs, sparse);
    for (size_t w = 0; w < workers; ++w) {
      absl::Status status = (*coordinator)->Merge(sent[w][b]);
      EXPECT_TRUE(status.ok()) << status;
    }
    if (data.key_types.empty()) {
      no_key_parts.push_back(std::move(*coordinator));
      continue;
    }
    auto finalized = (*coordinator)->Finalize();
    EXPECT_TRUE(finalized.ok());
    if (result.columns.empty()) {
      for (const ColumnPtr& column : finalized->columns) {
        result.columns.push_back(std::make_shared<Column>(column->type()));
      }
    }
    for (size_t c = 0; c < result.columns.size(); ++c) {
      std::const_pointer_cast<Column>(result.columns[c])
          ->AppendRange(*finalized->columns[c], 0, finalized->rows());
    }
  }
  if (data.key_types.empty()) {
    for (size_t p = 1; p < no_key_parts.size(); ++p) {
      no_key_parts[0]->MergeDisjointFrom(*no_key_parts[p]);
    }
    return *no_key_parts[0]->Finalize();
  }
  return result;
}

struct LayoutCase {
  std::string name;
  std::vector<std::pair<TypeId, size_t>> keys;  // type, cardinality
  Aggregator::KeyLayout layout;
  uint64_t key_modulo = 0;  // > 0: integer key values below it
};

void PrintTo(const LayoutCase& layout, std::ostream* os) { *os << layout.name; }

class AggregatorRandomTest : public testing::TestWithParam<LayoutCase> {};

TEST_P(AggregatorRandomTest, DistributedMergeEqualsSinglePassAndReference) {
  const LayoutCase& layout = GetParam();
  for (uint64_t seed : {1, 2}) {
    size_t rows = seed == 1 ? 10000 : 300;
    Dataset data = MakeDataset(layout.keys, rows, seed * 7919 + layout.keys.size(),
                               layout.key_modulo);
    std::mt19937_64 rng(seed);
    Reference reference = BuildReference(data);

    auto single = Aggregator::Create(data.key_types, data.specs);
    ASSERT_TRUE(single.ok()) << single.status();
    EXPECT_EQ((*single)->layout(), layout.layout);
    AddRange(data, 0, data.rows, single->get(), rng);
    auto single_result = (*single)->Finalize();
    ASSERT_TRUE(single_result.ok());
    EXPECT_EQ((*single)->size(), 0u);
    ExpectMatchesReference(data, reference, *single_result, layout.name + " single seed " +
                                                     std::to_string(seed));
    for (size_t parts : {1, 2, 3}) {
      Block merged = AggregateDistributed(data, parts, rng);
      ExpectMatchesReference(data, reference, merged, layout.name + " parts " + std::to_string(parts) +
                                               " seed " + std::to_string(seed));
    }
  }
}

TEST_P(AggregatorRandomTest, ThreadAndWorkerMergeEqualsReference) {
  const LayoutCase& layout = GetParam();
  ThreadPool pool(3);
  Dataset data = MakeDataset(layout.keys, 3000, 4243 + layout.keys.size(), layout.key_modulo);
  Reference reference = BuildReference(data);
  std::mt19937_64 rng(17);
  struct Shape {
    size_t workers, threads;
  };
  for (Shape shape : {Shape{1, 1}, Shape{1, 3}, Shape{2, 2}, Shape{3, 1}}) {
    for (bool forced : {false, true}) {
      AggregatorOptions options;
      size_t parallel_threshold = 1000000;  // default-like: the serial fast path
      if (forced) {
        options.two_level_threshold = 1;   // every hashed table converts at once
        parallel_threshold = 0;            // and the merge always takes the parallel path
      }
      Block merged = AggregateLikeCluster(data, shape.workers, shape.threads, options,
                                          parallel_threshold, forced ? &pool : nullptr, rng);
      ExpectMatchesReference(data, reference, merged,
                             layout.name + " workers " + std::to_string(shape.workers) +
                                 " threads " + std::to_string(shape.threads) +
                                 (forced ? " forced" : ""));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, AggregatorRandomTest,
    testing::Values(
        LayoutCase{"NoKeys", {}, Aggregator::KeyLayout::kNoKeys},
        LayoutCase{"UInt8", {{TypeId::kUInt8, 200}}, Aggregator::KeyLayout::kDirect16},
        LayoutCase{"Int8", {{TypeId::kInt8, 100}}, Aggregator::KeyLayout::kDirect16},
        LayoutCase{"Int16", {{TypeId::kInt16, 3000}}, Aggregator::KeyLayout::kDirect16},
        LayoutCase{"Date", {{TypeId::kDate, 300}}, Aggregator::KeyLayout::kDirect16},
        LayoutCase{"UInt32", {{TypeId::kUInt32, 5000}}, Aggregator::KeyLayout::kFixed64},
        LayoutCase{"Int64", {{TypeId::kInt64, 15000}}, Aggregator::KeyLayout::kFixed64},
        LayoutCase{"Float64", {{TypeId::kFloat64, 100}}, Aggregator::KeyLayout::kFixed64},
        LayoutCase{"Float32", {{TypeId::kFloat32, 100}}, Aggregator::KeyLayout::kFixed64},
        LayoutCase{"DateTime", {{TypeId::kDateTime, 700}}, Aggregator::KeyLayout::kFixed64},
        LayoutCase{"String", {{TypeId::kString, 3000}}, Aggregator::KeyLayout::kString},
        LayoutCase{"StringUInt32",
                   {{TypeId::kString, 30}, {TypeId::kUInt32, 40}},
                   Aggregator::KeyLayout::kSerialized},
        LayoutCase{"Int8Float32String",
                   {{TypeId::kInt8, 5}, {TypeId::kFloat32, 6}, {TypeId::kString, 20}},
                   Aggregator::KeyLayout::kSerialized},
        LayoutCase{"UInt16UInt16",
                   {{TypeId::kUInt16, 60}, {TypeId::kUInt16, 60}},
                   Aggregator::KeyLayout::kPacked64},
        LayoutCase{"UInt8Int16Float32",
                   {{TypeId::kUInt8, 6}, {TypeId::kInt16, 50}, {TypeId::kFloat32, 8}},
                   Aggregator::KeyLayout::kPacked64},
        LayoutCase{"UInt32Int64",
                   {{TypeId::kUInt32, 30}, {TypeId::kInt64, 40}},
                   Aggregator::KeyLayout::kPacked128},
        LayoutCase{"Int64Int64",
                   {{TypeId::kInt64, 100}, {TypeId::kInt64, 100}},
                   Aggregator::KeyLayout::kPacked128},
        LayoutCase{"ThreeUInt64",
                   {{TypeId::kUInt64, 10}, {TypeId::kUInt64, 10}, {TypeId::kUInt64, 10}},
                   Aggregator::KeyLayout::kSerialized},
        LayoutCase{"UInt64SmallAndLarge", {{TypeId::kUInt64, 3000}},
                   Aggregator::KeyLayout::kFixed64, 131072},
        LayoutCase{"Int64Small", {{TypeId::kInt64, 800}}, Aggregator::KeyLayout::kFixed64, 1000}),
    [](const testing::TestParamInfo<LayoutCase>& info) { return info.param.name; });

}  // namespace
}  // namespace granite::core
