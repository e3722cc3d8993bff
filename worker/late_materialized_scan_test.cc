// Late materialization of small top-N fragments: when it applies, and that FragmentExecutor
// returns the same rows with it as without it (Fragment::late_materialization off; the planner
// rule that sets the flag is tested in coordinator/planner/rules/merge_rules_test.cc).
#include "worker/late_materialized_scan.h"

#include <gtest/gtest.h>

#include <string>

#include "core/block_codec.h"
#include "core/error.h"
#include "core/functions/expr_builder.h"
#include "worker/store_test_base.h"
#include "worker/fragment_executor.h"

namespace granite::worker {
namespace {

namespace plan = granite::core::plan;
using core::Col;
using core::Lit;
using core::TypeId;

constexpr uint32_t kRows = 3000;

// Unique per row: 7919 is invertible modulo the prime 3001.
uint32_t EventTimeOf(uint32_t id) { return id * 7919u % 3001u; }

class LateMaterializedScanTest : public StoreTestBase {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(CreateTable("hits",
                                        {{"Id", TypeId::kUInt32},
                                         {"EventTime", TypeId::kUInt32},
                                         {"URL", TypeId::kString},
                                         {"Title", TypeId::kString}},
                                        128));
    for (uint32_t begin = 0; begin < kRows; begin += 1000) {  // three parts
      auto id = std::make_shared<core::Column>(TypeId::kUInt32);
      auto time = std::make_shared<core::Column>(TypeId::kUInt32);
      auto url = std::make_shared<core::Column>(TypeId::kString);
      auto title = std::make_shared<core::Column>(TypeId::kString);
      for (uint32_t i = begin; i < begin + 1000; ++i) {
        id->Append<uint32_t>(i);
        time->Append<uint32_t>(EventTimeOf(i));
        url->AppendString("http://x/" + std::to_string(i));
        title->AppendString(std::string(i % 50, 't'));
      }
      ASSERT_NO_FATAL_FAILURE(Insert("hits", {id, time, url, title}));
    }
  }

  // SELECT Id, EventTime, URL, Title FROM hits WHERE Id > 100 [ORDER BY EventTime DESC] LIMIT n,
  // with the planner's late_materialization flag set.
  static plan::Fragment TopN(uint64_t limit, bool ordered) {
    plan::Fragment fragment;
    fragment.worker_count = 1;
    fragment.scan.table = "hits";
    for (const char* name : {"Id", "EventTime", "URL", "Title"}) {
      fragment.scan.columns.push_back(name);
    }
    fragment.filter =
        core::Call("greater", TypeId::kUInt8, {Col(0, TypeId::kUInt32), Lit(uint64_t{100})});
    fragment.projections.push_back(Col(0, TypeId::kUInt32));
    fragment.projections.push_back(Col(1, TypeId::kUInt32));
    fragment.projections.push_back(Col(2, TypeId::kString));
    fragment.projections.push_back(Col(3, TypeId::kString));
    if (ordered) fragment.order_by.push_back({.column = 1, .descending = true});
    fragment.limit = limit;
    fragment.late_materialization = true;
    return fragment;
  }

  // Runs `fragment` and returns its rows.
  core::Block Run(const plan::Fragment& fragment) {
    core::ThreadPool pool(2);
    FragmentExecutor executor(store_.get(), &pool);
    std::atomic<bool> cancelled{false};
    std::vector<core::Block> blocks;
    absl::Status status = executor.Run(fragment, cancelled, [&](plan::ResultChunk&& chunk) {
      if (chunk.kind != plan::ResultChunk::Kind::kBlock) return true;
      auto block = core::DecodeWireBlock(chunk.block.data, chunk.block.raw_size);
      EXPECT_TRUE(block.ok()) << block.status();
      blocks.push_back(*block);
      return true;
    });
    EXPECT_TRUE(status.ok()) << status;
    return blocks.empty() ? core::Block() : core::ConcatBlocks(blocks);
  }
};

TEST_F(LateMaterializedScanTest, AppliesOnlyWhereColumnsCanWait) {
  auto plan = LateMaterializedScan::Plan(TopN(10, true));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_NE(*plan, nullptr);

  // Without the planner's flag (a limit past late_materialization_max_limit, or the setting 0).
  plan::Fragment unflagged = TopN(10, true);
  unflagged.late_materialization = false;
  EXPECT_EQ(*LateMaterializedScan::Plan(unflagged), nullptr);
  plan::Fragment no_limit = TopN(0, true);
  EXPECT_EQ(*LateMaterializedScan::Plan(no_limit), nullptr);
  // Every column is read by the filter or the sort key: nothing to defer.
  plan::Fragment narrow = TopN(10, true);
  narrow.scan.columns.resize(2);
  narrow.projections.resize(2);
  EXPECT_EQ(*LateMaterializedScan::Plan(narrow), nullptr);

  // A bad setting value never reaches a fragment: the typed settings refuse it.
  plan::Fragment bad = TopN(10, true);
  absl::Status error = bad.settings.Set("late_materialization_max_limit", "ten");
  EXPECT_EQ(core::CodeOf(error), core::ErrorCode::kBadArguments);
  EXPECT_NE(error.message().find("'ten'"), std::string::npos);
}

TEST_F(LateMaterializedScanTest, TopNRowsMatchTheFullScan) {
  core::Block late = Run(TopN(7, true));
  plan::Fragment full_fragment = TopN(7, true);
  full_fragment.late_materialization = false;
  core::Block full = Run(full_fragment);
  ASSERT_EQ(late.rows(), 7u);
  ASSERT_EQ(full.rows(), 7u);
  // The largest EventTimes among Id > 100: 3000 down, skipping the rows with Id <= 100.
  uint32_t expected_time = 3000;
  for (size_t r = 0; r < 7; ++r) {
    uint32_t id = late.columns[0]->Get<uint32_t>(r);
    uint32_t time = late.columns[1]->Get<uint32_t>(r);
    EXPECT_GT(id, 100u);
    EXPECT_EQ(time, EventTimeOf(id));
    EXPECT_LE(time, expected_time);
    expected_time = time;
    EXPECT_EQ(late.columns[2]->StringAt(r), "http://x/" + std::to_string(id));
    EXPECT_EQ(late.columns[3]->StringAt(r), std::string(id % 50, 't'));
    EXPECT_EQ(id, full.columns[0]->Get<uint32_t>(r));
    EXPECT_EQ(late.columns[2]->StringAt(r), full.columns[2]->StringAt(r));
  }
}

TEST_F(LateMaterializedScanTest, LimitWithoutOrderReadsMatchingRows) {
  core::Block rows = Run(TopN(4, false));
  ASSERT_EQ(rows.rows(), 4u);
  for (size_t r = 0; r < rows.rows(); ++r) {
    uint32_t id = rows.columns[0]->Get<uint32_t>(r);
    EXPECT_GT(id, 100u);
    EXPECT_EQ(rows.columns[1]->Get<uint32_t>(r), EventTimeOf(id));
    EXPECT_EQ(rows.columns[2]->StringAt(r), "http://x/" + std::to_string(id));
  }
  // A filter nothing passes leaves an empty result of the right shape.
  plan::Fragment none = TopN(4, true);
  none.filter =
      core::Call("greater", TypeId::kUInt8, {Col(0, TypeId::kUInt32), Lit(uint64_t{kRows})});
  EXPECT_EQ(Run(none).rows(), 0u);
}

}  // namespace
}  // namespace granite::worker
