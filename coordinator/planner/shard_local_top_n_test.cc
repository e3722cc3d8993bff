// Tests of shard-local HAVING / top-N planning through the binder: the fragment carries the
// query's HAVING, ORDER BY expressions and limit + offset exactly when the "skip the final merge"
// rule fired, and nothing otherwise.
#include "coordinator/planner/shard_local_top_n.h"

#include <gtest/gtest.h>

#include "coordinator/planner/bind_test_support.h"
#include "core/types.h"

namespace granite::coordinator {
namespace {

namespace pb = granite::worker::v1;
using core::TypeId;

pb::TableSchema Table(const std::string& name, std::vector<std::string> sharding_key) {
  uint32_t shards = sharding_key.empty() ? 0 : 3;
  return test::TestTable(name, {{"k"}, {"g"}, {"v"}}, std::move(sharding_key), shards);
}

class ShardLocalTopNTest : public ::testing::Test {
 protected:
  ShardLocalTopNTest() { catalog_.Reset({Table("s", {"k"}), Table("plain", {})}); }

  pb::Fragment Plan(const std::string& sql) { return test::PlanFragment(catalog_, sql, 3); }

  Catalog catalog_;
};

TEST_F(ShardLocalTopNTest, CarriesHavingOrderAndLimitPlusOffsetWhenTheRuleFires) {
  pb::Fragment f = Plan(
      "SELECT k, count() AS c FROM s GROUP BY k HAVING c > 2 ORDER BY c DESC, k LIMIT 10 OFFSET 5");
  ASSERT_TRUE(f.finalize_on_worker());
  EXPECT_TRUE(f.has_local_having());
  EXPECT_EQ(f.local_limit(), 15u);
  ASSERT_EQ(f.local_order_size(), 2);
  EXPECT_EQ(f.local_order_descending_size(), 2);
  EXPECT_TRUE(f.local_order_descending(0));
  EXPECT_FALSE(f.local_order_descending(1));
}

TEST_F(ShardLocalTopNTest, LimitWithoutOrderAndHavingWithoutLimit) {
  // (Without the setting the key-hash filter of group_limit_hash_filter.h takes this query.)
  pb::Fragment f =
      Plan("SELECT k, sum(v) FROM s GROUP BY k LIMIT 7 SETTINGS group_by_limit_hash_filter = 0");
  ASSERT_TRUE(f.finalize_on_worker());
  EXPECT_FALSE(f.has_local_having());
  EXPECT_EQ(f.local_limit(), 7u);
  EXPECT_EQ(f.local_order_size(), 0);

  f = Plan("SELECT k FROM s GROUP BY k HAVING sum(v) > 1 ORDER BY k");
  ASSERT_TRUE(f.finalize_on_worker());
  EXPECT_TRUE(f.has_local_having());
  EXPECT_EQ(f.local_limit(), 0u);  // no LIMIT: every passing group is shipped
  EXPECT_EQ(f.local_order_size(), 0);

  f = Plan("SELECT k FROM s GROUP BY k ORDER BY k LIMIT 0");
  EXPECT_EQ(f.local_limit(), 0u);
}

TEST_F(ShardLocalTopNTest, SettingsTurnTheCutAndTheRuleOff) {
  pb::Fragment f = Plan(
      "SELECT k, count() AS c FROM s GROUP BY k HAVING c > 2 ORDER BY c LIMIT 3 "
      "SETTINGS shard_local_top_n = 0");
  EXPECT_TRUE(f.finalize_on_worker());
  EXPECT_FALSE(f.has_local_having());
  EXPECT_EQ(f.local_limit(), 0u);
  f = Plan("SELECT k, count() AS c FROM s GROUP BY k ORDER BY c LIMIT 3 "
           "SETTINGS shard_local_aggregation = 0");
  EXPECT_FALSE(f.finalize_on_worker());
  EXPECT_EQ(f.local_limit(), 0u);
  f = Plan("SELECT k, count() AS c FROM s GROUP BY k ORDER BY c LIMIT 3 "
           "SETTINGS shard_local_aggregation = 1");
  EXPECT_TRUE(f.finalize_on_worker());
  EXPECT_EQ(f.local_limit(), 3u);
}

TEST_F(ShardLocalTopNTest, NothingWhenTheRuleDoesNotFire) {
  for (const char* sql :
       {"SELECT g, count() AS c FROM s GROUP BY g HAVING c > 1 ORDER BY c LIMIT 3",
        "SELECT k % 10 AS r, count() FROM s GROUP BY r ORDER BY r LIMIT 3",
        "SELECT k, count() FROM plain GROUP BY k ORDER BY k LIMIT 3"}) {
    pb::Fragment f = Plan(sql);
    EXPECT_FALSE(f.finalize_on_worker()) << sql;
    EXPECT_FALSE(f.has_local_having()) << sql;
    EXPECT_EQ(f.local_limit(), 0u) << sql;
    EXPECT_EQ(f.local_order_size(), 0) << sql;
  }
}

}  // namespace
}  // namespace granite::coordinator
