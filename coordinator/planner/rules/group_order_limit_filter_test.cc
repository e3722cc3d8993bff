// Tests of the GROUP BY ... ORDER BY key LIMIT rule, through the binder: it ranks by the first
// ORDER BY expression when that is a GROUP BY key of a type with order codes, with L = limit +
// offset, and stays off with HAVING, an ORDER BY on an aggregate, unsupported key types, past the
// cap, and with enable_group_by_top_k_optimization = 0.
#include "coordinator/planner/rules/group_order_limit_filter.h"

#include <gtest/gtest.h>

#include "coordinator/planner/bind_test_support.h"
#include "core/types.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

class GroupOrderLimitFilterTest : public ::testing::Test {
 protected:
  GroupOrderLimitFilterTest() {
    catalog_.Reset({test::TestTable("t", {{"k"},
                                          {"v"},
                                          {"s", TypeId::kString},
                                          {"d", TypeId::kDate},
                                          {"f", TypeId::kFloat64},
                                          {"n", core::WithNullable(TypeId::kInt64, true)}}),
                    test::TestTable("sharded", {{"k"}, {"v"}}, {"k"}, 3)});
  }

  // Returns the aggregate the binder planned for `sql` (keys empty on a binding error).
  core::plan::Aggregate Aggregate(const std::string& sql) {
    absl::StatusOr<QueryPlan> plan = test::BindSelect(catalog_, sql, 3);
    EXPECT_TRUE(plan.ok()) << sql << ": " << plan.status();
    if (!plan.ok() || !plan->fragment.aggregate) return {};
    return *plan->fragment.aggregate;
  }
  uint64_t Limit(const std::string& sql) { return Aggregate(sql).order_limit; }

  Catalog catalog_;
};

TEST_F(GroupOrderLimitFilterTest, RanksTheFirstOrderByKeyWhenItIsAGroupKey) {
  core::plan::Aggregate a = Aggregate("SELECT k, count() FROM t GROUP BY k ORDER BY k LIMIT 10");
  EXPECT_EQ(a.order_limit, 10u);
  EXPECT_EQ(a.order_key, 0u);
  EXPECT_FALSE(a.order_descending);
  a = Aggregate("SELECT v, s, count() AS c FROM t GROUP BY v, s ORDER BY s DESC, c LIMIT 5, 3");
  EXPECT_EQ(a.order_limit, 8u);
  EXPECT_EQ(a.order_key, 1u);
  EXPECT_TRUE(a.order_descending);
  // The ORDER BY key need not be selected; an expression key is matched as written.
  EXPECT_EQ(Limit("SELECT count() FROM t GROUP BY d ORDER BY d DESC LIMIT 3"), 3u);
  EXPECT_EQ(Limit("SELECT k % 7 AS r, sum(v) FROM t GROUP BY r ORDER BY r LIMIT 2"), 2u);
  EXPECT_EQ(Limit("SELECT DISTINCT s FROM t ORDER BY s LIMIT 4"), 4u);
  EXPECT_EQ(Limit("SELECT k, count() FROM sharded GROUP BY k ORDER BY k LIMIT 6"), 6u);
}

TEST_F(GroupOrderLimitFilterTest, StaysOffWhereGroupsCouldBeDroppedOrRankedOtherwise) {
  EXPECT_EQ(Limit("SELECT k, count() FROM t GROUP BY k ORDER BY k"), 0u);
  EXPECT_EQ(Limit("SELECT k, count() AS c FROM t GROUP BY k HAVING c > 1 ORDER BY k LIMIT 3"), 0u);
  EXPECT_EQ(Limit("SELECT k, count() AS c FROM t GROUP BY k ORDER BY c, k LIMIT 3"), 0u);
  EXPECT_EQ(Limit("SELECT k, count() FROM t GROUP BY k ORDER BY -k LIMIT 3"), 0u);
  EXPECT_EQ(Limit("SELECT f, count() FROM t GROUP BY f ORDER BY f LIMIT 3"), 0u);
  EXPECT_EQ(Limit("SELECT n, count() FROM t GROUP BY n ORDER BY n LIMIT 3"), 0u);
  EXPECT_EQ(Limit("SELECT k, count() FROM t GROUP BY k LIMIT 3"), 0u);  // the key-hash filter's
  EXPECT_EQ(Limit("SELECT k, count() FROM t GROUP BY k ORDER BY k LIMIT 0"), 0u);
}

TEST_F(GroupOrderLimitFilterTest, SettingsCapAndDisable) {
  EXPECT_EQ(Limit("SELECT k, count() FROM t GROUP BY k ORDER BY k LIMIT 1000"), 1000u);
  EXPECT_EQ(Limit("SELECT k, count() FROM t GROUP BY k ORDER BY k LIMIT 10 OFFSET 991"), 0u);
  EXPECT_EQ(Limit("SELECT k, count() FROM t GROUP BY k ORDER BY k LIMIT 10 OFFSET 1000 SETTINGS "
                  "query_plan_max_limit_for_top_k_optimization = 2000"),
            1010u);
  EXPECT_EQ(Limit("SELECT k, count() FROM t GROUP BY k ORDER BY k LIMIT 1000000 SETTINGS "
                  "query_plan_max_limit_for_top_k_optimization = 0"),
            1000000u);
  EXPECT_EQ(Limit("SELECT k, count() FROM t GROUP BY k ORDER BY k LIMIT 10 SETTINGS "
                  "enable_group_by_top_k_optimization = 0"),
            0u);
}

}  // namespace
}  // namespace granite::coordinator
