// Tests of late finalization: merging a bucket's keys and ORDER BY aggregates first, then the other
// aggregates of the top rows only, gives exactly CutPiece of the fully merged bucket — every
// column, row order and ties included — and it applies only where it is exact.
#include "coordinator/exec/late_finalizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coordinator/exec/bucketed_merger.h"
#include "coordinator/exec/final_stage.h"
#include "core/aggregation/aggregator.h"
#include "core/block_codec.h"
#include "core/functions/expr_builder.h"
#include "core/thread_pool.h"

namespace granite::coordinator {
namespace {

namespace pb = granite::core::plan;
using core::TypeId;

using core::Col;

pb::Expr Plus(pb::Expr a, pb::Expr b, TypeId type) {
  return core::Call("plus", type, {std::move(a), std::move(b)});
}

// Q33's shape: GROUP BY UInt64, UInt32 with count(), sum(Int16), avg(Int16); or one String key.
struct Shape {
  bool string_key = false;
  std::vector<TypeId> keys() const {
    return string_key ? std::vector<TypeId>{TypeId::kString}
                      : std::vector<TypeId>{TypeId::kUInt64, TypeId::kUInt32};
  }
  std::vector<core::AggregateSpec> specs() const {
    return {{"count", {}}, {"sum", {TypeId::kInt16}}, {"avg", {TypeId::kInt16}}};
  }
};

// The partial block of one worker: `rows` rows over `distinct` keys (so counts of 1 to 3 and
// many ties), keys shared with the other workers.
core::Block WorkerPartial(const Shape& shape, uint64_t seed, uint64_t rows, uint64_t distinct) {
  auto aggregator = std::move(*core::Aggregator::Create(shape.keys(), shape.specs()));
  std::vector<core::ColumnPtr> keys;
  auto x = std::make_shared<core::Column>(TypeId::kInt16);
  auto k1 = std::make_shared<core::Column>(shape.string_key ? TypeId::kString : TypeId::kUInt64);
  auto k2 = std::make_shared<core::Column>(TypeId::kUInt32);
  for (uint64_t i = 0; i < rows; ++i) {
    uint64_t key = ((i * 7 + seed * 13) % distinct) * 0x9E3779B97F4A7C15ULL;
    if (shape.string_key) {
      k1->AppendString("k" + std::to_string(key % 100003));
    } else {
      k1->Append<uint64_t>(key);
      k2->Append<uint32_t>(static_cast<uint32_t>(key % 7));
    }
    x->Append<int16_t>(static_cast<int16_t>((i * 37 + seed) % 1000) - 500);
  }
  keys.push_back(k1);
  if (!shape.string_key) keys.push_back(k2);
  EXPECT_TRUE(aggregator->Add(keys, {{}, {x}, {x}}, rows).ok());
  return aggregator->Partial();
}

std::vector<core::Block> Inputs(const Shape& shape, uint64_t rows) {
  return {WorkerPartial(shape, 1, rows, rows * 2 / 3), WorkerPartial(shape, 2, rows, rows / 2),
          core::Block(), WorkerPartial(shape, 3, rows / 3, rows / 5)};
}

// Stage: keys, then count, sum, avg; the final columns are the stage columns.
QueryPlan Plan(const Shape& shape, std::vector<core::SortColumn> order, uint64_t limit,
               uint64_t offset) {
  auto aggregator = std::move(*core::Aggregator::Create(shape.keys(), shape.specs()));
  std::vector<TypeId> types = aggregator->ResultTypes();
  QueryPlan plan;
  for (uint32_t c = 0; c < types.size(); ++c) plan.final_exprs.push_back(Col(c, types[c]));
  plan.visible = types.size();
  plan.order = std::move(order);
  plan.has_limit = true;
  plan.limit = limit;
  plan.offset = offset;
  return plan;
}

// CutPiece of the whole merge: what MergeAndCut must return.
core::Block Expected(const QueryPlan& plan, const Shape& shape,
                     const std::vector<core::Block>& inputs) {
  core::AggregatorOptions options;
  options.sparse = true;
  auto aggregator = std::move(*core::Aggregator::Create(shape.keys(), shape.specs(), options));
  for (const core::Block& input : inputs) {
    if (input.rows() > 0) {
      EXPECT_TRUE(aggregator->Merge(input).ok());
    }
  }
  absl::StatusOr<core::Block> finalized = aggregator->Finalize();
  EXPECT_TRUE(finalized.ok());
  absl::StatusOr<core::Block> cut = CutPiece(plan, *finalized);
  EXPECT_TRUE(cut.ok());
  return *cut;
}

void ExpectLateEqualsFull(const QueryPlan& plan, const Shape& shape, uint64_t rows,
                          size_t early_count) {
  std::vector<core::Block> inputs = Inputs(shape, rows);
  auto late = LateFinalizer::Create(plan, shape.keys(), shape.specs());
  ASSERT_TRUE(late.ok()) << late.status();
  ASSERT_NE(*late, nullptr);
  EXPECT_EQ((*late)->early_aggregates().size(), early_count);
  size_t groups = 0;
  absl::StatusOr<core::Block> got = (*late)->MergeAndCut(inputs, &groups);
  ASSERT_TRUE(got.ok()) << got.status();
  core::Block want = Expected(plan, shape, inputs);
  EXPECT_GT(groups, want.rows());
  ASSERT_EQ(got->rows(), want.rows());
  // Byte-equal blocks: same rows, same order, same float bits.
  EXPECT_EQ(core::EncodeBlock(*got), core::EncodeBlock(want));
}

TEST(LateFinalizerTest, OrderByCountDescEqualsFullMergeWithTies) {
  Shape shape;
  ExpectLateEqualsFull(Plan(shape, {{2, true}}, 10, 0), shape, 3000, 1);
}

TEST(LateFinalizerTest, OneIntegerColumnAscendingAndSigned) {
  Shape shape;
  // One integer ORDER BY column takes the one-pass top (ties by row, as the stable sort).
  ExpectLateEqualsFull(Plan(shape, {{2, false}}, 10, 3), shape, 3000, 1);
  ExpectLateEqualsFull(Plan(shape, {{3, true}}, 1, 0), shape, 3000, 1);   // sum: Int64
  ExpectLateEqualsFull(Plan(shape, {{3, false}}, 25, 0), shape, 3000, 1);
  ExpectLateEqualsFull(Plan(shape, {{1, true}}, 10, 0), shape, 3000, 0);  // the UInt32 key
}

TEST(LateFinalizerTest, OffsetAndSecondOrderKey) {
  Shape shape;
  ExpectLateEqualsFull(Plan(shape, {{2, false}, {1, true}}, 7, 5), shape, 3000, 1);
}

TEST(LateFinalizerTest, ExpressionOverKeyAndAggregate) {
  Shape shape;
  QueryPlan plan = Plan(shape, {{5, true}}, 10, 0);
  // A sixth final column, count() + the UInt32 key, is the ORDER BY.
  plan.final_exprs.push_back(Plus(Col(2, TypeId::kUInt64), Col(1, TypeId::kUInt32),
                                  TypeId::kUInt64));
  ExpectLateEqualsFull(plan, shape, 3000, 1);
  plan.order = {{5, true}, {3, false}};  // sum() joins the early aggregates
  ExpectLateEqualsFull(plan, shape, 3000, 2);
}

TEST(LateFinalizerTest, OrderByKeysOnlyMergesNoAggregateEarly) {
  Shape shape;
  ExpectLateEqualsFull(Plan(shape, {{0, true}, {1, false}}, 10, 0), shape, 3000, 0);
}

TEST(LateFinalizerTest, StringKey) {
  Shape shape{.string_key = true};
  ExpectLateEqualsFull(Plan(shape, {{1, true}}, 10, 0), shape, 3000, 1);
}

// ClickBench Q34: GROUP BY URL ORDER BY count() with count() the only aggregate.
TEST(LateFinalizerTest, StringKeyEveryAggregateEarly) {
  Shape shape{.string_key = true};
  ExpectLateEqualsFull(Plan(shape, {{1, true}, {2, false}, {3, true}}, 10, 0), shape, 3000, 3);
  ExpectLateEqualsFull(Plan(shape, {{1, false}, {2, true}, {3, false}}, 7, 5), shape, 3000, 3);
}

TEST(LateFinalizerTest, SmallBucketKeepsItsInputs) {
  Shape shape;
  // 12 + 12 + 4 input rows <= 4 * 10: the inputs are kept by reference, same result.
  std::vector<core::Block> inputs = Inputs(shape, 12);
  QueryPlan plan = Plan(shape, {{2, true}}, 10, 0);
  auto late = LateFinalizer::Create(plan, shape.keys(), shape.specs());
  ASSERT_TRUE(late.ok() && *late != nullptr);
  size_t groups = 0;
  absl::StatusOr<core::Block> got = (*late)->MergeAndCut(inputs, &groups);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(core::EncodeBlock(*got), core::EncodeBlock(Expected(plan, shape, inputs)));
}

TEST(LateFinalizerTest, AppliesOnlyWhereExact) {
  Shape shape;
  auto applies = [&](const QueryPlan& plan) {
    auto late = LateFinalizer::Create(plan, shape.keys(), shape.specs());
    EXPECT_TRUE(late.ok());
    return late.ok() && *late != nullptr;
  };
  EXPECT_TRUE(applies(Plan(shape, {{2, true}}, 10, 0)));
  QueryPlan having = Plan(shape, {{2, true}}, 10, 0);
  having.has_having = true;
  having.having = Col(2, TypeId::kUInt64);
  EXPECT_FALSE(applies(having));                                    // HAVING may use sum
  // Every aggregate early: applies only without key references (keys built for survivors only).
  EXPECT_TRUE(applies(Plan(shape, {{2, true}, {3, true}, {4, true}}, 10, 0)));
  EXPECT_FALSE(applies(Plan(shape, {{2, true}, {3, true}, {4, true}, {0, true}}, 10, 0)));
  EXPECT_FALSE(applies(Plan(shape, {{2, true}}, 0, 0)));           // LIMIT 0: no cut
  QueryPlan no_limit = Plan(shape, {{2, true}}, 10, 0);
  no_limit.has_limit = false;
  EXPECT_FALSE(applies(no_limit));
  QueryPlan off = Plan(shape, {{2, true}}, 10, 0);
  off.settings.late_aggregate_finalization = false;
  EXPECT_FALSE(applies(off));
  auto no_keys = LateFinalizer::Create(Plan(shape, {{0, true}}, 10, 0), {}, shape.specs());
  EXPECT_TRUE(no_keys.ok() && *no_keys == nullptr);
}

TEST(LateFinalizerTest, BucketedMergerWithLateFinalizationEqualsFinalStage) {
  Shape shape;
  QueryPlan plan = Plan(shape, {{2, true}, {0, false}}, 10, 2);
  // Two workers' groups split into buckets, as they send them.
  std::vector<std::vector<core::Block>> sent;
  std::vector<core::Block> whole;
  for (uint64_t seed : {1, 2}) {
    core::Block partial = WorkerPartial(shape, seed, 20000, 12000);
    whole.push_back(partial);
    auto splitter = std::move(*core::Aggregator::Create(shape.keys(), shape.specs()));
    ASSERT_TRUE(splitter->Merge(partial).ok());
    sent.push_back(splitter->PartialByBucket());
  }
  auto late = LateFinalizer::Create(plan, shape.keys(), shape.specs());
  ASSERT_TRUE(late.ok() && *late != nullptr);
  core::ThreadPool pool(2);
  BucketedMerger merger(shape.keys(), shape.specs(), 2, &pool, [] { return false; });
  merger.SetPieceCut([&plan](const core::Block& piece) { return CutPiece(plan, piece); });
  merger.SetPieceCombine(
      [&plan](std::vector<core::Block> pieces) { return CombineCutPieces(plan, std::move(pieces)); });
  (*late)->Attach(&merger);
  for (uint32_t b = 0; b < core::kBucketCount; ++b) {
    for (size_t w = 0; w < 2; ++w) merger.Add(w, b, std::move(sent[w][b]));
  }
  absl::StatusOr<core::Block> stage = merger.Finish();
  ASSERT_TRUE(stage.ok()) << stage.status();
  absl::StatusOr<core::Block> got = FinishFinalStage(plan, *stage);
  ASSERT_TRUE(got.ok());
  // The reference: one aggregator over everything, then the whole final stage.
  auto all = std::move(*core::Aggregator::Create(shape.keys(), shape.specs()));
  for (const core::Block& partial : whole) ASSERT_TRUE(all->Merge(partial).ok());
  absl::StatusOr<core::Block> finalized = all->Finalize();
  ASSERT_TRUE(finalized.ok());
  absl::StatusOr<core::Block> want = RunFinalStage(plan, *finalized);
  ASSERT_TRUE(want.ok());
  ASSERT_EQ(got->rows(), 10u);
  // The key breaks every tie of count(): one answer, every column equal (integer avg states).
  EXPECT_EQ(core::EncodeBlock(*got), core::EncodeBlock(*want));
}


// The same buckets merged by a BucketedMerger with and without late finalization, and the final
// stage of each: the late path picks its top across buckets and must give the same rows in the
// same order (ties among buckets included: the plan has no tie-breaking key).
void ExpectAcrossBucketsEqualsPieceCut(const Shape& shape, const QueryPlan& plan, uint64_t rows,
                                       uint64_t distinct) {
  std::vector<std::vector<core::Block>> sent[2];
  for (uint64_t seed : {1, 2}) {
    core::Block partial = WorkerPartial(shape, seed, rows, distinct);
    auto splitter = std::move(*core::Aggregator::Create(shape.keys(), shape.specs()));
    ASSERT_TRUE(splitter->Merge(partial).ok());
    std::vector<core::Block> buckets = splitter->PartialByBucket();
    sent[0].push_back(buckets);
    sent[1].push_back(std::move(buckets));
  }
  auto late = LateFinalizer::Create(plan, shape.keys(), shape.specs());
  ASSERT_TRUE(late.ok() && *late != nullptr);
  core::ThreadPool pool(2);
  std::vector<std::string> results;
  for (int late_on = 0; late_on < 2; ++late_on) {
    BucketedMerger merger(shape.keys(), shape.specs(), 2, &pool, [] { return false; });
    merger.SetPieceCut([&plan](const core::Block& piece) { return CutPiece(plan, piece); });
    merger.SetPieceCombine([&plan](std::vector<core::Block> pieces) {
      return CombineCutPieces(plan, std::move(pieces));
    });
    if (late_on) (*late)->Attach(&merger);
    for (uint32_t b = 0; b < core::kBucketCount; ++b) {
      for (size_t w = 0; w < 2; ++w) merger.Add(w, b, std::move(sent[late_on][w][b]));
    }
    absl::StatusOr<core::Block> stage = merger.Finish();
    ASSERT_TRUE(stage.ok()) << stage.status();
    absl::StatusOr<core::Block> got = FinishFinalStage(plan, *stage);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->rows(), std::min<uint64_t>(plan.limit, distinct - plan.offset));
    results.push_back(core::EncodeBlock(*got));
  }
  EXPECT_EQ(results[0], results[1]);
}

// ClickBench Q39/Q40: OFFSET 1000 keeps 1010 rows, more than any bucket holds: every bucket's
// groups are candidates and the top is chosen across buckets.
TEST(LateFinalizerTest, LargeOffsetChoosesAcrossBucketsWithTies) {
  Shape url{.string_key = true};
  ExpectAcrossBucketsEqualsPieceCut(url, Plan(url, {{1, true}}, 10, 1000), 60000, 40000);
  Shape q33;
  ExpectAcrossBucketsEqualsPieceCut(q33, Plan(q33, {{2, true}}, 10, 1000), 60000, 40000);
  // Ascending, a second ORDER BY column, and an offset past most groups.
  ExpectAcrossBucketsEqualsPieceCut(q33, Plan(q33, {{2, false}, {3, true}}, 50, 1900), 6000,
                                    4000);
}

// An OFFSET of thousands over one integer ORDER BY column (the top chosen by selection, not by a
// partial sort): descending and ascending counts, a signed sum with negative values, the kept
// rows' last value tied with many rows not kept, and an offset past every group.
TEST(LateFinalizerTest, ThousandsKeptByOneIntegerColumn) {
  Shape q33;
  ExpectAcrossBucketsEqualsPieceCut(q33, Plan(q33, {{2, true}}, 10, 10000), 60000, 40000);
  ExpectAcrossBucketsEqualsPieceCut(q33, Plan(q33, {{2, false}}, 300, 5000), 60000, 40000);
  ExpectAcrossBucketsEqualsPieceCut(q33, Plan(q33, {{3, true}}, 20, 3000), 30000, 20000);
  ExpectAcrossBucketsEqualsPieceCut(q33, Plan(q33, {{3, false}}, 500, 1000), 30000, 20000);
  Shape url{.string_key = true};
  ExpectAcrossBucketsEqualsPieceCut(url, Plan(url, {{1, true}}, 10, 20000), 60000, 40000);
  ExpectLateEqualsFull(Plan(q33, {{2, true}}, 100, 900), q33, 3000, 1);
  ExpectLateEqualsFull(Plan(q33, {{3, false}}, 700, 0), q33, 3000, 1);
}

// Q40's shape: GROUP BY (String, UInt16, String) ORDER BY count() with a large offset, grouped
// by reference and with an Aggregator (late_aggregate_finalization_by_ref = 0).
TEST(LateFinalizerTest, MultiColumnStringKeysByReference) {
  std::vector<TypeId> keys = {TypeId::kString, TypeId::kUInt16, TypeId::kString};
  std::vector<core::AggregateSpec> specs = {{"count", {}}, {"sum", {TypeId::kInt16}}};
  auto partial = [&](uint64_t seed, size_t rows) {
    auto a = std::make_shared<core::Column>(TypeId::kString);
    auto b = std::make_shared<core::Column>(TypeId::kUInt16);
    auto c = std::make_shared<core::Column>(TypeId::kString);
    auto x = std::make_shared<core::Column>(TypeId::kInt16);
    for (size_t i = 0; i < rows; ++i) {
      uint64_t v = (i * 7919 + seed * 31) % 4001;
      a->AppendString(v % 5 == 0 ? std::string() : "u" + std::to_string(v % 1311));
      b->Append<uint16_t>(static_cast<uint16_t>(v % 3));
      c->AppendString(v % 2 ? "bc" : "c");
      x->Append<int16_t>(static_cast<int16_t>(i % 100));
    }
    auto aggregator = std::move(*core::Aggregator::Create(keys, specs));
    EXPECT_TRUE(aggregator->Add({a, b, c}, {{}, {x}}, rows).ok());
    return aggregator->Partial();
  };
  std::vector<core::Block> inputs = {partial(1, 6000), partial(2, 5000)};
  QueryPlan plan;
  auto types = std::move(*core::Aggregator::Create(keys, specs))->ResultTypes();
  for (uint32_t c = 0; c < types.size(); ++c) plan.final_exprs.push_back(Col(c, types[c]));
  plan.visible = types.size();
  plan.has_limit = true;
  for (auto [limit, offset] : {std::pair<uint64_t, uint64_t>{10, 0}, {10, 300}, {50, 3000}}) {
    plan.limit = limit;
    plan.offset = offset;
    for (bool descending : {true, false}) {
      plan.order = {{3, descending}};
      std::vector<std::string> got;
      for (const char* by_ref : {"1", "0"}) {
        ASSERT_TRUE(plan.settings.Set("late_aggregate_finalization_by_ref", by_ref).ok());
        auto late = LateFinalizer::Create(plan, keys, specs);
        ASSERT_TRUE(late.ok() && *late != nullptr);
        size_t groups = 0;
        absl::StatusOr<core::Block> cut = (*late)->MergeAndCut(inputs, &groups);
        ASSERT_TRUE(cut.ok()) << cut.status();
        EXPECT_GT(groups, 1000u);
        got.push_back(core::EncodeBlock(*cut));
      }
      EXPECT_EQ(got[0], got[1]);
      // And the full merge's cut.
      core::AggregatorOptions options;
      options.sparse = true;
      auto full = std::move(*core::Aggregator::Create(keys, specs, options));
      for (const core::Block& input : inputs) ASSERT_TRUE(full->Merge(input).ok());
      absl::StatusOr<core::Block> finalized = full->Finalize();
      ASSERT_TRUE(finalized.ok());
      absl::StatusOr<core::Block> want = CutPiece(plan, *finalized);
      ASSERT_TRUE(want.ok());
      EXPECT_EQ(got[0], core::EncodeBlock(*want));
    }
  }
}

// LIMIT 10: buckets larger than 4 * 10 rows copy their candidates' rows at once.
TEST(LateFinalizerTest, SmallLimitGathersCandidatesPerBucket) {
  Shape url{.string_key = true};
  ExpectAcrossBucketsEqualsPieceCut(url, Plan(url, {{1, true}}, 10, 0), 60000, 40000);
  Shape q33;
  ExpectAcrossBucketsEqualsPieceCut(q33, Plan(q33, {{2, false}}, 10, 3), 60000, 40000);
}

TEST(LateFinalizerTest, NoGroupsGivesEmptyFinalColumns) {
  Shape shape;
  QueryPlan plan = Plan(shape, {{2, true}}, 10, 0);
  auto late = LateFinalizer::Create(plan, shape.keys(), shape.specs());
  ASSERT_TRUE(late.ok() && *late != nullptr);
  size_t groups = 7;
  absl::StatusOr<size_t> candidates = (*late)->MergeBucket(3, {core::Block()}, &groups);
  ASSERT_TRUE(candidates.ok());
  EXPECT_EQ(*candidates, 0u);
  EXPECT_EQ(groups, 0u);
  absl::StatusOr<core::Block> combined = (*late)->Combine();
  ASSERT_TRUE(combined.ok());
  EXPECT_EQ(combined->rows(), 0u);
  EXPECT_EQ(combined->columns.size(), plan.final_exprs.size());
  EXPECT_FALSE((*late)->MergeBucket(core::kBucketCount, {}, &groups).ok());
}

}  // namespace
}  // namespace granite::coordinator
