// Tests of the "skip the final merge" rule, through the binder: it fires exactly when the GROUP BY
// keys include every sharding-key column as a plain column of a sharded table read on the worker
// count the table was created with, and the fragment then carries finalize_on_worker.
#include "coordinator/planner/rules/shard_local_aggregation.h"

#include <gtest/gtest.h>

#include "coordinator/planner/bind_test_support.h"
#include "core/error.h"
#include "core/functions/expr_builder.h"
#include "core/types.h"

namespace granite::coordinator {

namespace {

using core::TypeId;

core::TableSchema Table(const std::string& name, std::vector<std::string> sharding_key,
                      uint32_t shard_count) {
  return test::TestTable(name, {{"k"}, {"j"}, {"g"}, {"v"}}, std::move(sharding_key), shard_count);
}

class ShardLocalAggregationTest : public ::testing::Test {
 protected:
  ShardLocalAggregationTest() {
    catalog_.Reset({Table("s", {"k"}, 3), Table("two", {"k", "j"}, 3), Table("plain", {}, 0),
                    Table("old", {"k"}, 2)});
  }

  // Binds `sql` on a cluster of `workers` and returns whether the plan finalizes on workers.
  bool Fires(const std::string& sql, size_t workers = 3) {
    auto provider = [](const std::string&) -> absl::StatusOr<LocalTable> {
      LocalTable table;
      table.names = {"k"};
      table.types = {TypeId::kUInt32};
      table.block.columns.push_back(std::make_shared<core::Column>(TypeId::kUInt32));
      return table;
    };
    absl::StatusOr<QueryPlan> plan = test::BindSelect(catalog_, sql, workers, provider);
    EXPECT_TRUE(plan.ok()) << sql << ": " << plan.status();
    return plan.ok() && plan->fragment.aggregate && plan->fragment.aggregate->finalize_on_worker;
  }

  Catalog catalog_;
};

TEST_F(ShardLocalAggregationTest, FiresWhenEveryKeyColumnIsAPlainGroupKey) {
  EXPECT_TRUE(Fires("SELECT k, count() FROM s GROUP BY k"));
  EXPECT_TRUE(Fires("SELECT g, k, sum(v) FROM s GROUP BY g, k HAVING sum(v) > 1 ORDER BY 3"));
  EXPECT_TRUE(
      Fires("SELECT k, k + 1, count() FROM s GROUP BY k + 1, k ORDER BY k LIMIT 2 OFFSET 1"));
  EXPECT_TRUE(Fires("SELECT k, count() FROM s GROUP BY k LIMIT 2 SETTINGS "
                    "group_by_limit_hash_filter = 0"));
  EXPECT_TRUE(Fires("SELECT k AS x, count() FROM s WHERE v > 1 GROUP BY x"));
  EXPECT_TRUE(Fires("SELECT k, count() FROM s GROUP BY 1"));
  EXPECT_TRUE(Fires("SELECT DISTINCT k, g FROM s"));
  EXPECT_TRUE(Fires("SELECT k, count(DISTINCT v) FROM s GROUP BY k"));
  EXPECT_TRUE(Fires("SELECT j, k, count() FROM two GROUP BY j, k"));
  EXPECT_TRUE(Fires("SELECT k, j, g, count() FROM two GROUP BY g, j, k"));
}

TEST_F(ShardLocalAggregationTest, DoesNotFireWhenGroupsMaySpanWorkers) {
  EXPECT_FALSE(Fires("SELECT g, count() FROM s GROUP BY g"));             // subset without k
  EXPECT_FALSE(Fires("SELECT k % 10 AS r, count() FROM s GROUP BY r"));  // expression of k
  EXPECT_FALSE(Fires("SELECT k + 0, count() FROM s GROUP BY k + 0"));
  EXPECT_FALSE(Fires("SELECT count(), sum(k) FROM s"));                  // no GROUP BY
  EXPECT_FALSE(Fires("SELECT count(DISTINCT k) FROM s"));
  EXPECT_FALSE(Fires("SELECT k, v FROM s"));                             // no aggregation
  EXPECT_FALSE(Fires("SELECT k, count() FROM two GROUP BY k"));          // part of the key
  EXPECT_FALSE(Fires("SELECT j, k % 2, count() FROM two GROUP BY j, k % 2"));
  EXPECT_FALSE(Fires("SELECT k, count() FROM plain GROUP BY k"));        // no sharding key
  EXPECT_FALSE(Fires("SELECT k, count() FROM system.tables GROUP BY k"));
  EXPECT_FALSE(Fires("SELECT number, count() FROM numbers(10) GROUP BY number"));
  // GROUP BY ... LIMIT without ORDER BY / HAVING: the key-hash filter is preferred.
  EXPECT_FALSE(Fires("SELECT k, count() FROM s GROUP BY k LIMIT 2"));
  EXPECT_FALSE(Fires("SELECT k, count() FROM s GROUP BY k LIMIT 2 SETTINGS "
                     "shard_local_aggregation = 0, group_by_limit_hash_filter = 0"));
}

TEST_F(ShardLocalAggregationTest, DoesNotFireOnAnotherWorkerCount) {
  EXPECT_FALSE(Fires("SELECT k, count() FROM old GROUP BY k", 3));  // sharded for 2 workers
  EXPECT_TRUE(Fires("SELECT k, count() FROM old GROUP BY k", 2));
  EXPECT_FALSE(Fires("SELECT k, count() FROM s GROUP BY k", 1));
  EXPECT_FALSE(Fires("SELECT k, count() FROM s GROUP BY k", 4));
}

TEST_F(ShardLocalAggregationTest, ExplainsItsDecision) {
  core::plan::Fragment fragment;
  fragment.aggregate.emplace();
  fragment.scan.table = "s";
  fragment.scan.columns.push_back("g");
  fragment.aggregate->keys.push_back(core::Col(0, TypeId::kUInt32));
  ShardLocalDecision decision = DecideShardLocalAggregation(fragment, Table("s", {"k"}, 3), 3, core::Settings());
  EXPECT_FALSE(decision.fire);
  EXPECT_NE(decision.reason.find("k is not a GROUP BY key"), std::string::npos) << decision.reason;
  decision = DecideShardLocalAggregation(fragment, Table("s", {"k"}, 3), 2, core::Settings());
  EXPECT_FALSE(decision.fire);
  EXPECT_NE(decision.reason.find("sharded for 3 workers, not 2"), std::string::npos);
  fragment.scan.columns[0] = "k";
  EXPECT_TRUE(DecideShardLocalAggregation(fragment, Table("s", {"k"}, 3), 3, core::Settings()).fire);
  // A key column index past the source columns never matches (and never crashes).
  fragment.aggregate->keys[0].column = 5;
  EXPECT_FALSE(DecideShardLocalAggregation(fragment, Table("s", {"k"}, 3), 3, core::Settings()).fire);
}

// A shuffled first join grouped by every probe key: each group's rows met on one worker. Not
// for RIGHT / FULL joins, Nullable keys, a probe key left out of the GROUP BY, or no shuffle.
TEST_F(ShardLocalAggregationTest, ShuffledJoinGroupedByItsProbeKeys) {
  using Kind = core::plan::BroadcastJoin::Kind;
  core::plan::Fragment fragment;
  fragment.scan.table = "plain";
  fragment.scan.columns = {"k", "g"};
  fragment.aggregate.emplace();
  fragment.aggregate->keys = {core::Col(1, TypeId::kUInt32), core::Col(0, TypeId::kUInt64)};
  core::plan::BroadcastJoin& join = fragment.joins.emplace_back();
  join.kind = Kind::kLeft;
  join.probe_keys = {core::Col(0, TypeId::kUInt64)};
  join.build_keys = {0};
  const core::Settings settings;
  EXPECT_FALSE(DecideShuffledLocalAggregation(fragment, settings).fire);  // broadcast
  join.shuffle = true;
  EXPECT_TRUE(DecideShuffledLocalAggregation(fragment, settings).fire);
  join.kind = Kind::kInner;
  EXPECT_TRUE(DecideShuffledLocalAggregation(fragment, settings).fire);
  for (Kind kind : {Kind::kRight, Kind::kFull}) {
    join.kind = kind;
    EXPECT_FALSE(DecideShuffledLocalAggregation(fragment, settings).fire);
  }
  join.kind = Kind::kLeft;
  join.probe_keys.push_back(core::Col(1, TypeId::kUInt32));  // both keys grouped
  EXPECT_TRUE(DecideShuffledLocalAggregation(fragment, settings).fire);
  fragment.aggregate->keys.pop_back();  // one join key is no GROUP BY key
  ShardLocalDecision decision = DecideShuffledLocalAggregation(fragment, settings);
  EXPECT_FALSE(decision.fire);
  EXPECT_NE(decision.reason.find("not a GROUP BY key"), std::string::npos) << decision.reason;
  join.probe_keys = {core::Col(1, core::WithNullable(TypeId::kUInt32, true))};
  fragment.aggregate->keys = {join.probe_keys[0]};
  EXPECT_FALSE(DecideShuffledLocalAggregation(fragment, settings).fire);
  core::Settings off;
  off.shard_local_aggregation = false;
  join.probe_keys = {core::Col(1, TypeId::kUInt32)};
  fragment.aggregate->keys = {join.probe_keys[0]};
  EXPECT_TRUE(DecideShuffledLocalAggregation(fragment, settings).fire);
  EXPECT_FALSE(DecideShuffledLocalAggregation(fragment, off).fire);
}

TEST_F(ShardLocalAggregationTest, WholeShardingKeyNeedsTheOneColumnAndTheWorkerCount) {
  EXPECT_TRUE(IsWholeShardingKey(Table("s", {"k"}, 3), "k", 3));
  EXPECT_FALSE(IsWholeShardingKey(Table("s", {"k"}, 3), "g", 3));       // another column
  EXPECT_FALSE(IsWholeShardingKey(Table("s", {"k"}, 3), "k", 2));       // worker count changed
  EXPECT_FALSE(IsWholeShardingKey(Table("two", {"k", "j"}, 3), "k", 3));  // part of the key
  EXPECT_FALSE(IsWholeShardingKey(Table("plain", {}, 0), "k", 3));
  EXPECT_FALSE(IsWholeShardingKey(Table("plain", {}, 0), "k", 0));
}

}  // namespace
}  // namespace granite::coordinator
