// Tests of the bounded-aggregation planner rules (distinct_planner.h) through the binder: which
// aggregates get a bitmap state, which keys the direct-indexed layout, and — most important, since
// a wrong decision gives wrong counts — which distinct arguments are disjoint across workers.
#include "coordinator/planner/distinct_planner.h"

#include <gtest/gtest.h>

#include "coordinator/planner/bind_test_support.h"
#include "core/types.h"

namespace granite::coordinator {
namespace {

namespace pb = granite::worker::v1;
using core::TypeId;

pb::TableSchema Table(const std::string& name, std::vector<std::string> sharding_key,
                      uint32_t shard_count) {
  return test::TestTable(name, {{"k"}, {"v"}}, std::move(sharding_key), shard_count);
}

class DistinctPlannerTest : public ::testing::Test {
 protected:
  DistinctPlannerTest() {
    catalog_.Reset({Table("s", {"k"}, 3), Table("two", {"k", "v"}, 3), Table("plain", {}, 0)});
  }

  pb::Fragment Plan(const std::string& sql, size_t workers = 3) {
    return test::PlanFragment(catalog_, sql, workers);
  }

  bool Disjoint(const std::string& sql, size_t workers = 3) {
    pb::Fragment fragment = Plan(sql, workers);
    return fragment.aggregates_size() == 1 && fragment.aggregates(0).disjoint_across_workers();
  }

  Catalog catalog_;
};

TEST_F(DistinctPlannerTest, DisjointForNumberAndTheWholeShardingKey) {
  EXPECT_TRUE(Disjoint("SELECT number % 10 AS k, uniqExact(number) FROM numbers_mt(1000) GROUP BY k"));
  EXPECT_TRUE(Disjoint("SELECT uniq(number) FROM numbers(1000)"));
  EXPECT_TRUE(Disjoint("SELECT count(DISTINCT number) FROM numbers_mt(1000)"));
  EXPECT_TRUE(Disjoint("SELECT v, count(DISTINCT k) FROM s GROUP BY v"));
  EXPECT_TRUE(Disjoint("SELECT uniq(k) FROM s"));
}

TEST_F(DistinctPlannerTest, NotDisjointWhenValuesMaySpanWorkers) {
  EXPECT_FALSE(Disjoint("SELECT uniqExact(number % 7) FROM numbers_mt(1000)"));
  EXPECT_FALSE(Disjoint("SELECT uniqExact(0 + number) FROM numbers_mt(1000)"));
  EXPECT_FALSE(Disjoint("SELECT uniqExact(k % 7) FROM s"));       // an expression of the key
  EXPECT_FALSE(Disjoint("SELECT uniqExact(v) FROM s"));           // not the sharding key
  EXPECT_FALSE(Disjoint("SELECT uniqExact(k) FROM s", 2));        // worker count changed
  EXPECT_FALSE(Disjoint("SELECT uniqExact(k) FROM two"));         // key has two columns
  EXPECT_FALSE(Disjoint("SELECT uniqExact(k) FROM plain"));       // no sharding key
  EXPECT_FALSE(Disjoint("SELECT sum(number) FROM numbers(10)"));  // not a distinct count
}

TEST_F(DistinctPlannerTest, BitmapForBoundedIntegerArguments) {
  pb::Fragment f = Plan("SELECT count(DISTINCT number % 5000000) FROM numbers_mt(100000000)");
  ASSERT_EQ(f.aggregates_size(), 1);
  EXPECT_EQ(f.aggregates(0).bitmap_bits(), 5'000'000u);
  EXPECT_EQ(f.aggregates(0).bitmap_base(), 0u);
  // number itself over 1e8 values is too wide for a bitmap.
  f = Plan("SELECT count(DISTINCT number) FROM numbers_mt(100000000)");
  EXPECT_EQ(f.aggregates(0).bitmap_bits(), 0u);
  // With GROUP BY the bitmap is per group and much smaller.
  f = Plan("SELECT number % 3 AS g, uniqExact(number % 100 - 50) FROM numbers(1000) GROUP BY g");
  EXPECT_EQ(f.aggregates(0).bitmap_bits(), 100u);
  EXPECT_EQ(f.aggregates(0).bitmap_base(), static_cast<uint64_t>(int64_t{-50}));
  f = Plan("SELECT number % 3 AS g, uniqExact(number % 100000) FROM numbers(1000000) GROUP BY g");
  EXPECT_EQ(f.aggregates(0).bitmap_bits(), 0u);
  // uniq keeps its sketch; a table column has only its type's range (UInt32: too wide).
  EXPECT_EQ(Plan("SELECT uniq(number % 10) FROM numbers(100)").aggregates(0).bitmap_bits(), 0u);
  EXPECT_EQ(Plan("SELECT uniqExact(v) FROM s").aggregates(0).bitmap_bits(), 0u);
}

TEST_F(DistinctPlannerTest, DirectKeyForBoundedWideKeys) {
  pb::Fragment f = Plan("SELECT number % 10000 + 1000000 AS k, count() FROM numbers(100000000) GROUP BY k");
  EXPECT_TRUE(f.direct_key());
  EXPECT_EQ(f.direct_key_base(), 1'000'000u);
  EXPECT_FALSE(Plan("SELECT number % 100000 AS k, count() FROM numbers(100000000) GROUP BY k").direct_key());
  EXPECT_FALSE(Plan("SELECT k, count() FROM s GROUP BY k").direct_key());
  EXPECT_FALSE(Plan("SELECT number % 10 AS a, number % 3 AS b, count() FROM numbers(10) GROUP BY a, b")
                   .direct_key());
}

}  // namespace
}  // namespace granite::coordinator
