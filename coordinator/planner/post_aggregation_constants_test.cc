// Tests of how the binder binds a call over constants beside an aggregate
// (SelectBinder::BindPostAggregation): it binds once, as it is, unless a constant GROUP BY key
// could stand for a part of it. Binding it level by level made a chain of n constant operations
// O(n^2) binds: the sql_bind fuzzer's slowest inputs (bench/results/fuzzing-2026-12-02b.md).
#include <gtest/gtest.h>

#include <string>

#include "coordinator/planner/bind_test_support.h"
#include "core/error.h"
#include "core/plan/expr.h"
#include "core/types.h"

namespace granite::coordinator {
namespace {

using core::TypeId;
using test::Repeat;

// True if `e` reads a column of its input block.
bool ReadsAColumn(const core::plan::Expr& e) {
  if (e.is_column()) return true;
  for (const core::plan::Expr& arg : e.args) {
    if (ReadsAColumn(arg)) return true;
  }
  return false;
}

class PostAggregationConstantsTest : public ::testing::Test {
 protected:
  PostAggregationConstantsTest() {
    catalog_.Reset({test::TestTable("t", {{"u8", TypeId::kUInt8}, {"s", TypeId::kString}})});
  }

  // Returns the first output expression of `sql`, which must bind.
  core::plan::Expr FirstOutput(const std::string& sql) {
    absl::StatusOr<QueryPlan> plan = test::BindSelect(catalog_, sql, 3);
    EXPECT_TRUE(plan.ok()) << sql.substr(0, 80) << ": " << plan.status();
    if (!plan.ok() || plan->final_exprs.empty()) return core::plan::Expr();
    return plan->final_exprs[0];
  }

  Catalog catalog_;
};

TEST_F(PostAggregationConstantsTest, AConstantCallBindsAsItIs) {
  for (const char* sql : {"SELECT 1 + 2 * 3, count() FROM t",
                          "SELECT 1 + 2 * 3 AS c, count() FROM t GROUP BY s",
                          "SELECT 1 + 2 * 3 AS c, c - 1 AS d, d, sum(u8) FROM t GROUP BY u8"}) {
    core::plan::Expr first = FirstOutput(sql);
    EXPECT_TRUE(first.IsCall("plus")) << sql;
    EXPECT_FALSE(ReadsAColumn(first)) << sql;
  }
}

TEST_F(PostAggregationConstantsTest, AConstantKeyStillStandsForItsPart) {
  // GROUP BY 1 + 1 is a constant key: the chain reads it as the key column, as before.
  core::plan::Expr first = FirstOutput("SELECT 1 + 1 + 1, count() FROM t GROUP BY 1 + 1");
  EXPECT_TRUE(first.IsCall("plus"));
  EXPECT_TRUE(ReadsAColumn(first));
}

TEST_F(PostAggregationConstantsTest, ColumnsOutsideTheKeysAreStillAnError) {
  absl::StatusOr<QueryPlan> plan =
      test::BindSelect(catalog_, "SELECT u8 + 1 + 1, count() FROM t", 3);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(core::CodeOf(plan.status()), core::ErrorCode::kNotAnAggregate) << plan.status();
  EXPECT_TRUE(ReadsAColumn(FirstOutput("SELECT u8 + 1 + 1, count() FROM t GROUP BY u8")));
}

TEST_F(PostAggregationConstantsTest, LongConstantChainsBindOnce) {
  // 900 terms: binding each level's subtree again took minutes under ASan.
  const std::string chain = Repeat("1", " + 1", 899);
  for (const std::string& sql : {"SELECT " + chain + ", count() FROM t",
                                 "SELECT " + chain + " AS c, count() FROM t GROUP BY s"}) {
    core::plan::Expr first = FirstOutput(sql);
    EXPECT_TRUE(first.IsCall("plus")) << sql.substr(0, 40);
    EXPECT_FALSE(ReadsAColumn(first)) << sql.substr(0, 40);
  }
  EXPECT_TRUE(test::BindSelect(catalog_, "SELECT count() FROM t HAVING " + chain + " > 0", 3).ok());
}

}  // namespace
}  // namespace granite::coordinator
