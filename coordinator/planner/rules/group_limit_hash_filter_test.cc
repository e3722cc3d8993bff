// Tests of the GROUP BY ... LIMIT key-hash filter rule, through the binder: it sets
// Fragment.group_limit_hash_filter = limit + offset exactly for a keyed aggregation with LIMIT and
// no ORDER BY / HAVING / final-merge skip, within the setting's cap; and KeepBottomGroups keeps the
// smallest (key hash, key) groups of the merged stage block.
#include "coordinator/planner/rules/group_limit_hash_filter.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "coordinator/planner/bind_test_support.h"
#include "core/aggregation/key_hash.h"
#include "core/error.h"
#include "core/types.h"

namespace granite::coordinator {

namespace {

using core::TypeId;

core::TableSchema Table(const std::string& name, std::vector<std::string> sharding_key) {
  uint32_t shards = sharding_key.empty() ? 0 : 3;
  return test::TestTable(name, {{"k"}, {"v"}, {"s", TypeId::kString}}, std::move(sharding_key),
                         shards);
}

class GroupLimitHashFilterTest : public ::testing::Test {
 protected:
  GroupLimitHashFilterTest() { catalog_.Reset({Table("t", {}), Table("sharded", {"k"})}); }

  absl::StatusOr<QueryPlan> Plan(const std::string& sql) {
    return test::BindSelect(catalog_, sql, 3);
  }

  // Returns the L the binder chose for `sql` (0: the rule did not fire).
  uint64_t Groups(const std::string& sql) {
    absl::StatusOr<QueryPlan> plan = Plan(sql);
    EXPECT_TRUE(plan.ok()) << sql << ": " << plan.status();
    return plan.ok() && plan->fragment.aggregate ? plan->fragment.aggregate->hash_limit : 0;
  }

  Catalog catalog_;
};

TEST_F(GroupLimitHashFilterTest, FiresForKeyedLimitWithoutOrder) {
  EXPECT_EQ(Groups("SELECT k, s, count() FROM t GROUP BY k, s LIMIT 10"), 10u);
  EXPECT_EQ(Groups("SELECT k, sum(v) FROM t GROUP BY k LIMIT 5 OFFSET 20"), 25u);
  EXPECT_EQ(Groups("SELECT k, sum(v) FROM t GROUP BY k LIMIT 20, 5"), 25u);
  EXPECT_EQ(Groups("SELECT DISTINCT s FROM t LIMIT 3"), 3u);
  EXPECT_EQ(Groups("SELECT k % 7 AS r, count() FROM t GROUP BY r LIMIT 3"), 3u);
  EXPECT_EQ(Groups("SELECT number % 10, count() FROM numbers(100) GROUP BY number % 10 LIMIT 2"),
            2u);
}

TEST_F(GroupLimitHashFilterTest, DoesNotFireWhereGroupsAreFilteredOrOrdered) {
  EXPECT_EQ(Groups("SELECT k, count() FROM t GROUP BY k"), 0u);
  EXPECT_EQ(Groups("SELECT k, count() FROM t GROUP BY k LIMIT 0"), 0u);
  EXPECT_EQ(Groups("SELECT k, count() AS c FROM t GROUP BY k ORDER BY c LIMIT 10"), 0u);
  EXPECT_EQ(Groups("SELECT k, count() AS c FROM t GROUP BY k HAVING c > 1 LIMIT 10"), 0u);
  EXPECT_EQ(Groups("SELECT count() FROM t LIMIT 10"), 0u);  // no keys
  EXPECT_EQ(Groups("SELECT k, v FROM t LIMIT 10"), 0u);     // no aggregation
  // Every group lives on one worker: this rule still wins over finalizing on the workers
  // (far fewer groups aggregated); with it turned off the workers finalize.
  absl::StatusOr<QueryPlan> sharded = Plan("SELECT k, count() FROM sharded GROUP BY k LIMIT 10");
  ASSERT_TRUE(sharded.ok()) << sharded.status();
  EXPECT_FALSE(sharded->fragment.aggregate->finalize_on_worker);
  EXPECT_EQ(sharded->fragment.aggregate->hash_limit, 10u);
  sharded = Plan("SELECT k, count() FROM sharded GROUP BY k LIMIT 10 SETTINGS "
                 "group_by_limit_hash_filter = 0");
  ASSERT_TRUE(sharded.ok()) << sharded.status();
  EXPECT_TRUE(sharded->fragment.aggregate->finalize_on_worker);
  EXPECT_EQ(sharded->fragment.aggregate->hash_limit, 0u);
}

TEST_F(GroupLimitHashFilterTest, SettingCapsAndDisables) {
  EXPECT_EQ(Groups("SELECT k, count() FROM t GROUP BY k LIMIT 10 SETTINGS "
                   "group_by_limit_hash_filter = 0"),
            0u);
  EXPECT_EQ(Groups("SELECT k, count() FROM t GROUP BY k LIMIT 10 SETTINGS "
                   "group_by_limit_hash_filter = 10"),
            10u);
  EXPECT_EQ(Groups("SELECT k, count() FROM t GROUP BY k LIMIT 5 OFFSET 6 SETTINGS "
                   "group_by_limit_hash_filter = 10"),
            0u);
  EXPECT_EQ(Groups("SELECT k, count() FROM t GROUP BY k LIMIT 1000000"), 0u);  // past the default
  absl::StatusOr<QueryPlan> bad =
      Plan("SELECT k, count() FROM t GROUP BY k LIMIT 1 SETTINGS group_by_limit_hash_filter = 'x'");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(core::CodeOf(bad.status()), core::ErrorCode::kBadArguments);
  EXPECT_NE(bad.status().message().find("'x'"), std::string::npos) << bad.status();
}

TEST_F(GroupLimitHashFilterTest, KeepBottomGroupsKeepsSmallestKeyHashes) {
  absl::StatusOr<QueryPlan> plan = Plan("SELECT k, count() FROM t GROUP BY k LIMIT 2 OFFSET 1");
  ASSERT_TRUE(plan.ok()) << plan.status();
  auto keys = std::make_shared<core::Column>(TypeId::kUInt32);
  auto counts = std::make_shared<core::Column>(TypeId::kUInt64);
  for (uint32_t k = 0; k < 100; ++k) {
    keys->Append<uint32_t>(k);
    counts->Append<uint64_t>(k * 10);
  }
  core::Block stage;
  stage.columns = {keys, counts};
  std::vector<uint64_t> hashes(100);
  core::HashKeys(std::vector<core::ColumnPtr>{keys}, 100, hashes.data());
  std::vector<uint64_t> sorted = hashes;
  std::sort(sorted.begin(), sorted.end());

  core::Block kept = KeepBottomGroups(*plan, stage);
  ASSERT_EQ(kept.rows(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    uint32_t k = kept.columns[0]->Get<uint32_t>(i);
    EXPECT_EQ(hashes[k], sorted[i]) << i;
    EXPECT_EQ(kept.columns[1]->Get<uint64_t>(i), k * 10u);  // rows stay whole
  }
  // Fewer groups than L: the block is returned as it is.
  core::Block small;
  small.columns = {std::make_shared<core::Column>(keys->Slice(0, 2)),
                   std::make_shared<core::Column>(counts->Slice(0, 2))};
  EXPECT_EQ(KeepBottomGroups(*plan, small).rows(), 2u);
}

}  // namespace
}  // namespace granite::coordinator
