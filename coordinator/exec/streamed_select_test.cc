// Tests of the streamed final stage: OFFSET / LIMIT counted across blocks and shards, an ordered
// source's shards kept in shard order whatever order their blocks arrive in, and a sink that
// wants no more rows.
#include "coordinator/exec/streamed_select.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "core/functions/expr_builder.h"

namespace granite::coordinator {
namespace {

using core::Col;
using core::TypeId;

core::Block Numbers(uint64_t from, uint64_t rows) {
  auto column = std::make_shared<core::Column>(TypeId::kUInt64);
  for (uint64_t i = from; i < from + rows; ++i) column->Append<uint64_t>(i);
  core::Block block;
  block.columns = {column};
  block.rows_without_columns = rows;
  return block;
}

QueryPlan Plan(bool has_limit, uint64_t limit, uint64_t offset, bool ordered) {
  QueryPlan plan;
  plan.final_exprs = {Col(0, TypeId::kUInt64)};
  plan.visible = 1;
  plan.has_limit = has_limit;
  plan.limit = limit;
  plan.offset = offset;
  plan.ordered_source = ordered;
  return plan;
}

// Collects the rows pushed; wants at most `max_rows` of them (0 = all).
class CollectingSink : public ResultSink {
 public:
  explicit CollectingSink(size_t max_rows = 0) : max_rows_(max_rows) {}
  absl::Status Begin(const std::vector<std::string>&, const std::vector<core::TypeId>&,
                     const std::string&) override {
    return absl::OkStatus();
  }
  absl::StatusOr<bool> Push(const core::Block& block) override {
    for (size_t r = 0; r < block.rows(); ++r) rows.push_back(block.columns[0]->Get<uint64_t>(r));
    ++pushes;
    return max_rows_ == 0 || rows.size() < max_rows_;
  }
  std::vector<uint64_t> rows;
  int pushes = 0;

 private:
  const size_t max_rows_;
};

TEST(StreamedFinalStageTest, CanStreamOnlyRowsFromWorkersWithoutOrder) {
  QueryPlan plan = Plan(false, 0, 0, false);
  EXPECT_TRUE(CanStream(plan));
  plan.order = {{0, false}};
  EXPECT_FALSE(CanStream(plan));
  plan = Plan(false, 0, 0, false);
  plan.source = SourceKind::kLocal;
  EXPECT_FALSE(CanStream(plan));
}

TEST(StreamedFinalStageTest, OffsetAndLimitCountAcrossBlocks) {
  QueryPlan plan = Plan(true, 5, 3, false);
  QueryContext query("q");
  CollectingSink sink;
  StreamedFinalStage stage(plan, &query, &sink, 1);
  EXPECT_TRUE(*stage.Consume(0, Numbers(0, 2)));   // both skipped by OFFSET 3
  EXPECT_TRUE(*stage.Consume(0, Numbers(2, 2)));   // 2 skipped, 3 kept
  EXPECT_FALSE(*stage.Consume(0, Numbers(4, 10)));  // 4..7 kept: LIMIT 5 reached
  EXPECT_FALSE(*stage.Consume(0, Numbers(14, 2)));
  EXPECT_EQ(sink.rows, (std::vector<uint64_t>{3, 4, 5, 6, 7}));
  EXPECT_EQ(stage.rows(), 5u);
}

TEST(StreamedFinalStageTest, LimitZeroSendsNothing) {
  QueryPlan plan = Plan(true, 0, 0, false);
  QueryContext query("q");
  CollectingSink sink;
  StreamedFinalStage stage(plan, &query, &sink, 1);
  EXPECT_FALSE(*stage.Consume(0, Numbers(0, 2)));
  EXPECT_EQ(sink.pushes, 0);
}

TEST(StreamedFinalStageTest, SinkThatWantsNoMoreStopsTheStage) {
  QueryPlan plan = Plan(false, 0, 0, false);
  QueryContext query("q");
  CollectingSink sink(3);
  StreamedFinalStage stage(plan, &query, &sink, 2);
  EXPECT_TRUE(*stage.Consume(0, Numbers(0, 2)));
  EXPECT_FALSE(*stage.Consume(1, Numbers(10, 2)));
  EXPECT_FALSE(*stage.Consume(0, Numbers(2, 2)));
  EXPECT_EQ(sink.pushes, 2);
}

TEST(StreamedFinalStageTest, OrderedSourceKeepsShardOrder) {
  QueryPlan plan = Plan(false, 0, 0, true);
  QueryContext query("q");
  CollectingSink sink;
  StreamedFinalStage stage(plan, &query, &sink, 2);
  // Shard 1 starts first; its block waits until shard 0 ended.
  std::thread second([&] {
    EXPECT_TRUE(*stage.Consume(1, Numbers(10, 2)));
    stage.ShardDone(1);
  });
  EXPECT_TRUE(*stage.Consume(0, Numbers(0, 2)));
  EXPECT_TRUE(*stage.Consume(0, Numbers(2, 2)));
  stage.ShardDone(0);
  second.join();
  EXPECT_EQ(sink.rows, (std::vector<uint64_t>{0, 1, 2, 3, 10, 11}));
}

TEST(StreamedFinalStageTest, CancelledQueryReleasesAWaitingShard) {
  QueryPlan plan = Plan(false, 0, 0, true);
  QueryContext query("q");
  CollectingSink sink;
  StreamedFinalStage stage(plan, &query, &sink, 2);
  std::thread second([&] { EXPECT_FALSE(*stage.Consume(1, Numbers(10, 2))); });
  query.Cancel();
  second.join();
  EXPECT_TRUE(sink.rows.empty());
}

}  // namespace
}  // namespace granite::coordinator
