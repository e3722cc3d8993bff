// Tests of post-aggregation binding of a call that fails to bind as an input expression
// (SelectBinder::BindPostAggregation): its arguments are bound one level down, and a node that
// failed to bind as input already is not bound again (SelectBinder::input_failures_). Binding
// each level's subtree again made a failing chain of n operations beside an aggregate O(n^2)
// binds: the sql_bind fuzzer's slowest inputs (bench/results/fuzzing-2026-12-02c.md). The
// errors are the ones of before: each case below was checked against the binder before the
// change.
#include <gtest/gtest.h>

#include <string>

#include "coordinator/planner/bind_test_support.h"
#include "core/error.h"
#include "core/types.h"

namespace granite::coordinator {
namespace {

using core::ErrorCode;
using core::TypeId;
using test::Repeat;

class PostAggregationInputFailuresTest : public ::testing::Test {
 protected:
  PostAggregationInputFailuresTest() {
    catalog_.Reset({test::TestTable("t", {{"u8", TypeId::kUInt8},
                                          {"u16", TypeId::kUInt16},
                                          {"s", TypeId::kString}})});
  }

  // Expects `sql` to fail with `code` and a message that contains `text`.
  void ExpectError(const std::string& sql, ErrorCode code, const std::string& text) {
    absl::StatusOr<QueryPlan> plan = test::BindSelect(catalog_, sql, 3);
    ASSERT_FALSE(plan.ok()) << sql.substr(0, 80);
    EXPECT_EQ(core::CodeOf(plan.status()), code) << sql.substr(0, 80) << ": " << plan.status();
    EXPECT_NE(plan.status().message().find(text), std::string::npos)
        << sql.substr(0, 80) << ": " << plan.status();
  }

  Catalog catalog_;
};

TEST_F(PostAggregationInputFailuresTest, AnUnknownNameInsideACallIsStillReported) {
  for (const char* sql : {"SELECT 1 + 1 + nope + 1, count() FROM t",
                          "SELECT 1 + 1 + nope + 1, count() FROM t GROUP BY 1 + 1",
                          "SELECT 1 + 1 + nope + 1 AS q, count() FROM t ORDER BY q",
                          "SELECT u8 + 1 + nope, count() FROM t GROUP BY u8 + 1",
                          "SELECT count() FROM t HAVING 1 + nope > 0",
                          "SELECT 1 + nope AS a, a + 1, count() FROM t",
                          "SELECT u8 + 1 + 1 AS c, c + nope, count() FROM t GROUP BY u8",
                          "SELECT (1 + nope) IN (1, 2), count() FROM t"}) {
    ExpectError(sql, ErrorCode::kUnknownIdentifier, "Unknown identifier: nope");
  }
}

TEST_F(PostAggregationInputFailuresTest, TuplesAndLambdasKeepTheirErrors) {
  // Tuple comparisons and lambdas bind trees the binder builds (not remembered by address).
  for (const char* sql : {"SELECT tuple(1, nope) = tuple(1, 2), count() FROM t",
                          "SELECT (1, 2) IN ((1, nope)), count() FROM t",
                          "SELECT arrayMap(x -> x + nope, [1, 2]), count() FROM t",
                          "SELECT arrayMap(x -> x + u8, [1, 2]) + nope, count() FROM t GROUP BY u8"}) {
    ExpectError(sql, ErrorCode::kUnknownIdentifier, "Unknown identifier: nope");
  }
}

TEST_F(PostAggregationInputFailuresTest, TheArgumentsStillDecideTheError) {
  // u8 + s fails as input (types), then post-aggregation finds s outside the keys.
  ExpectError("SELECT u8 + s + 1, count() FROM t GROUP BY u8", ErrorCode::kNotAnAggregate,
              "Column `s`");
  ExpectError("SELECT 1 + 'x' + 1, count() FROM t", ErrorCode::kIllegalTypeOfArgument,
              "of function plus");
  ExpectError("SELECT a + 1 AS b, b + 1 AS a, count() FROM t", ErrorCode::kUnknownIdentifier,
              "Unknown identifier: b");
  EXPECT_TRUE(test::BindSelect(catalog_, "SELECT 1 + u16 + 1, count() FROM t GROUP BY u16", 3).ok());
}

TEST_F(PostAggregationInputFailuresTest, LongFailingChainsBindTheirInputOnce) {
  // 900 terms with the unknown name near the start: each level bound its whole subtree again.
  const std::string chain = Repeat("1 + nope", " + 1", 898);
  for (const std::string& sql : {"SELECT " + chain + ", count() FROM t",
                                 "SELECT " + chain + " AS c, count() FROM t GROUP BY u8",
                                 "SELECT count() FROM t HAVING " + chain + " > 0"}) {
    ExpectError(sql, ErrorCode::kUnknownIdentifier, "Unknown identifier: nope");
  }
}

}  // namespace
}  // namespace granite::coordinator
