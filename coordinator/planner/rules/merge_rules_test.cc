// Tests of the late_materialization planner rule (merge_rules.h) through the binder: a projecting
// fragment over a table with 0 < LIMIT <= late_materialization_max_limit gets
// Fragment::late_materialization, which the worker's LateMaterializedScan requires.
#include "coordinator/planner/rules/merge_rules.h"

#include <gtest/gtest.h>

#include <string>

#include "coordinator/planner/bind_test_support.h"
#include "core/types.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

class LateMaterializationRuleTest : public ::testing::Test {
 protected:
  LateMaterializationRuleTest() {
    catalog_.Reset({test::TestTable(
        "hits", {{"Id", TypeId::kUInt32}, {"EventTime", TypeId::kUInt32}, {"URL", TypeId::kString}})});
  }

  bool Late(const std::string& sql) { return test::PlanFragment(catalog_, sql, 1).late_materialization; }

  Catalog catalog_;
};

TEST_F(LateMaterializationRuleTest, SmallLimitsOfProjectingTableScans) {
  EXPECT_TRUE(Late("SELECT Id, URL FROM hits WHERE Id > 100 ORDER BY EventTime DESC LIMIT 10"));
  EXPECT_TRUE(Late("SELECT Id, URL FROM hits LIMIT 4"));
  EXPECT_TRUE(Late("SELECT Id, URL FROM hits ORDER BY EventTime LIMIT 1000"));  // the default max
}

TEST_F(LateMaterializationRuleTest, NotPastTheSettingNorWithoutALimitNorForAggregates) {
  EXPECT_FALSE(Late("SELECT Id, URL FROM hits ORDER BY EventTime LIMIT 5000"));
  EXPECT_FALSE(Late("SELECT Id, URL FROM hits ORDER BY EventTime LIMIT 10 "
                    "SETTINGS late_materialization_max_limit = 0"));
  EXPECT_FALSE(Late("SELECT Id, URL FROM hits ORDER BY EventTime"));
  EXPECT_FALSE(Late("SELECT Id, count() FROM hits GROUP BY Id LIMIT 10"));
  EXPECT_FALSE(Late("SELECT number FROM numbers(100) ORDER BY number LIMIT 10"));
}

}  // namespace
}  // namespace granite::coordinator
