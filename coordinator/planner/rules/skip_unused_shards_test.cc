// Tests of the "skip unused shards" rule, through the binder: a filter that fixes every
// sharding-key column to constants sends the fragment only to the shards INSERT routes those
// values to (ShardOfRows of the same values), and nothing else prunes.
#include "coordinator/planner/rules/skip_unused_shards.h"

#include <gtest/gtest.h>

#include <set>

#include "coordinator/cluster/sharding_key.h"
#include "coordinator/planner/bind_test_support.h"
#include "core/types.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

class SkipUnusedShardsTest : public ::testing::Test {
 protected:
  SkipUnusedShardsTest() {
    catalog_.Reset({test::TestTable("s", {{"k"}, {"v"}}, {"k"}, 4),
                    test::TestTable("two", {{"k"}, {"j", TypeId::kString}, {"v"}}, {"k", "j"}, 4),
                    test::TestTable("nk", {{"k", core::WithNullable(TypeId::kUInt32, true)}},
                                    {"k"}, 4),
                    test::TestTable("old", {{"k"}, {"v"}}, {"k"}, 2),
                    test::TestTable("plain", {{"k"}, {"v"}})});
  }

  // The shards the plan of `sql` runs on, on a cluster of `shards` shards (empty = all).
  std::vector<uint32_t> Shards(const std::string& sql, size_t shards = 4) {
    absl::StatusOr<QueryPlan> plan = test::BindSelect(catalog_, sql, shards, test::NoSystemTables);
    EXPECT_TRUE(plan.ok()) << sql << ": " << plan.status();
    return plan.ok() ? plan->fragment.shards : std::vector<uint32_t>{};
  }

  // The shards INSERT routes rows with these key values to, or empty when that is every shard.
  static std::vector<uint32_t> RoutedTo(const std::vector<uint32_t>& k,
                                        const std::vector<std::string>& j = {}) {
    core::Block block;
    auto ks = std::make_shared<core::Column>(TypeId::kUInt32);
    for (uint32_t value : k) ks->Append(value);
    block.columns.push_back(ks);
    std::vector<size_t> key_columns = {0};
    if (!j.empty()) {
      auto js = std::make_shared<core::Column>(TypeId::kString);
      for (const std::string& value : j) js->AppendString(value);
      block.columns.push_back(js);
      key_columns.push_back(1);
    }
    const std::vector<uint32_t> rows = ShardOfRows(block, key_columns, 4);
    const std::set<uint32_t> shards(rows.begin(), rows.end());
    if (shards.size() == 4) return {};
    return std::vector<uint32_t>(shards.begin(), shards.end());
  }

  Catalog catalog_;
};

TEST_F(SkipUnusedShardsTest, PointAndListFiltersOnTheKeyRunOnTheirShards) {
  EXPECT_EQ(Shards("SELECT v FROM s WHERE k = 5"), RoutedTo({5}));
  EXPECT_EQ(RoutedTo({5}).size(), 1u);
  EXPECT_EQ(Shards("SELECT count() FROM s WHERE 5 = k AND v > 1"), RoutedTo({5}));
  EXPECT_EQ(Shards("SELECT sum(v) FROM s WHERE v > 1 AND k IN (7, 8)"), RoutedTo({7, 8}));
  EXPECT_EQ(Shards("SELECT k, count() FROM s WHERE k = 300000 GROUP BY k"), RoutedTo({300000}));
  EXPECT_EQ(Shards("SELECT v FROM two WHERE k = 1 AND j = 'a'"), RoutedTo({1}, {"a"}));
  EXPECT_EQ(Shards("SELECT v FROM two WHERE j IN ('a', 'b') AND k = 1"),
            RoutedTo({1, 1}, {"a", "b"}));
}

TEST_F(SkipUnusedShardsTest, FiltersThatDoNotFixTheKeyRunEverywhere) {
  EXPECT_TRUE(Shards("SELECT v FROM s").empty());
  EXPECT_TRUE(Shards("SELECT v FROM s WHERE k > 5").empty());
  EXPECT_TRUE(Shards("SELECT v FROM s WHERE k = 5 OR v = 1").empty());
  EXPECT_TRUE(Shards("SELECT v FROM s WHERE v = 5").empty());
  EXPECT_TRUE(Shards("SELECT v FROM s WHERE k + 1 = 6").empty());
  EXPECT_TRUE(Shards("SELECT v FROM two WHERE k = 1").empty());  // part of the key
  EXPECT_TRUE(Shards("SELECT k FROM nk WHERE k = 1").empty());   // Nullable key
  EXPECT_TRUE(Shards("SELECT v FROM old WHERE k = 1").empty());  // sharded for 2, not 4
  EXPECT_TRUE(Shards("SELECT v FROM plain WHERE k = 1").empty());
  EXPECT_TRUE(Shards("SELECT v FROM s WHERE k = 5 SETTINGS optimize_skip_unused_shards = 0")
                  .empty());
  EXPECT_TRUE(Shards("SELECT v FROM s WHERE k = 5", 1).empty());
}

TEST_F(SkipUnusedShardsTest, ConstantsTheColumnCannotHoldPruneNothing) {
  EXPECT_TRUE(Shards("SELECT v FROM s WHERE k = -1").empty());
  EXPECT_TRUE(Shards("SELECT v FROM s WHERE k = 5000000000").empty());
  EXPECT_TRUE(Shards("SELECT v FROM s WHERE k = 1.5").empty());
  EXPECT_TRUE(Shards("SELECT v FROM s WHERE k = '5'").empty());
}

}  // namespace
}  // namespace granite::coordinator
