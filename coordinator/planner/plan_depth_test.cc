// Issue 19: expressions of ~50 levels failed on the workers, whose gRPC parse of the fragment
// stopped at protobuf's default nesting limit. Every expression the parser accepts must survive
// the trip: the deepest ones are bound here and their fragments parsed as a worker parses them.
#include <string>

#include "coordinator/planner/bind_test_support.h"
#include "coordinator/sql/expression_parser.h"
#include "core/wire/plan_codec.h"
#include "gtest/gtest.h"

namespace granite::coordinator {
namespace {

using core::TypeId;
using test::Repeat;

// Returns the largest n for which make(n) parses (make(n + 1) must not).
template <typename Make>
int DeepestAccepted(Make make) {
  int n = 1;
  while (sql::ParseStatement(make(n * 2)).ok()) n *= 2;
  int low = n, high = n * 2;  // low parses, high does not
  while (high - low > 1) {
    int mid = (low + high) / 2;
    (sql::ParseStatement(make(mid)).ok() ? low : high) = mid;
  }
  return low;
}

class PlanDepthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_.Put(test::TestTable("t", {{"a", TypeId::kInt64}, {"s", TypeId::kString}}));
  }

  // Binds `sql` and parses its serialized fragment as a worker does.
  void ExpectFragmentTravels(const std::string& sql) {
    core::plan::Fragment fragment = test::PlanFragment(catalog_, sql, 3);
    std::string bytes = core::wire::EncodeFragment(fragment);
    ASSERT_FALSE(bytes.empty()) << sql.substr(0, 80);
    absl::StatusOr<core::plan::Fragment> parsed = core::wire::DecodeFragment(bytes);
    ASSERT_TRUE(parsed.ok()) << parsed.status() << " for " << sql.substr(0, 80);
    EXPECT_EQ(parsed->scan, fragment.scan);
    EXPECT_EQ(parsed->filter, fragment.filter);
    EXPECT_EQ(parsed->projections, fragment.projections);
    EXPECT_EQ(parsed->aggregate, fragment.aggregate);
    EXPECT_EQ(parsed->order_by, fragment.order_by);
    EXPECT_EQ(parsed->limit, fragment.limit);
  }

  Catalog catalog_;
};

TEST_F(PlanDepthTest, TheDeepestOperatorChainsTravel) {
  auto projection = [](int n) { return Repeat("SELECT number", "+1", n, " FROM numbers(3)"); };
  const int chain = DeepestAccepted(projection);
  EXPECT_GE(chain, sql::ExpressionParser::kMaxTreeDepth - 10);
  ExpectFragmentTravels(projection(chain));
  auto filter = [](int n) { return Repeat("SELECT s FROM t WHERE a", " + 1", n, " > 0"); };
  ExpectFragmentTravels(filter(DeepestAccepted(filter)));
  auto aggregate = [](int n) { return Repeat("SELECT sum(a", " * 1", n, ") FROM t GROUP BY s"); };
  ExpectFragmentTravels(aggregate(DeepestAccepted(aggregate)));
}

TEST_F(PlanDepthTest, TheDeepestNestedCallsTravel) {
  auto concat = [](int n) {
    return Repeat(Repeat("SELECT ", "concat(", n, "s"), ", 'x')", n, " FROM t");
  };
  const int calls = DeepestAccepted(concat);
  EXPECT_GE(calls, sql::ExpressionParser::kMaxRecursion - 10);
  ExpectFragmentTravels(concat(calls));
  auto parentheses = [](int n) {
    return Repeat(Repeat("SELECT s FROM t WHERE ", "(a + ", n, "1"), ")", n, " > 0");
  };
  ExpectFragmentTravels(parentheses(DeepestAccepted(parentheses)));
}

TEST_F(PlanDepthTest, TheLimitCoversTwoMessagesPerLevelWithRoomForCasts) {
  static_assert(core::wire::kPlanRecursionLimit >= 4 * sql::ExpressionParser::kMaxTreeDepth);
}

}  // namespace
}  // namespace granite::coordinator
