// Tests of GROUP BY key elimination in the binder (SelectBinder::DropDependentKeys, setting
// optimize_group_by_function_keys): which keys stay in Fragment.group_keys. Result equality with
// the rewrite on and off is checked end to end in tests/sql/aggregation/group_by_function_keys.test.
#include <gtest/gtest.h>

#include "coordinator/planner/bind_test_support.h"
#include "core/error.h"
#include "core/types.h"

namespace granite::coordinator {
namespace {

namespace pb = granite::worker::v1;
using core::TypeId;

pb::TableSchema Hits() {
  return test::TestTable("hits", {{"ClientIP", TypeId::kInt32},
                                  {"URL", TypeId::kString},
                                  {"f", TypeId::kFloat64},
                                  {"x", TypeId::kUInt16}});
}

class GroupByFunctionKeysTest : public ::testing::Test {
 protected:
  GroupByFunctionKeysTest() { catalog_.Reset({Hits()}); }

  // Returns the number of hash keys the binder kept for `sql`, or -1 on a binding error.
  int Keys(const std::string& sql) {
    absl::StatusOr<QueryPlan> plan = test::BindSelect(catalog_, sql, 2);
    EXPECT_TRUE(plan.ok()) << sql << ": " << plan.status();
    return plan.ok() ? plan->fragment.group_keys_size() : -1;
  }

  Catalog catalog_;
};

constexpr char kQ36[] =
    "SELECT ClientIP, ClientIP - 1, ClientIP - 2, ClientIP - 3, COUNT(*) AS c FROM hits "
    "GROUP BY ClientIP, ClientIP - 1, ClientIP - 2, ClientIP - 3 ORDER BY c DESC LIMIT 10";

TEST_F(GroupByFunctionKeysTest, ArithmeticOfAKeyIsDropped) {
  EXPECT_EQ(Keys(kQ36), 1);
  EXPECT_EQ(Keys("SELECT count() FROM hits GROUP BY ClientIP - 1, ClientIP"), 1);
  EXPECT_EQ(Keys("SELECT count() FROM hits GROUP BY ClientIP, ClientIP, ClientIP - 1, 'a'"), 1);
}

TEST_F(GroupByFunctionKeysTest, SettingTurnsItOff) {
  EXPECT_EQ(Keys(std::string(kQ36) + " SETTINGS optimize_group_by_function_keys = 0"), 4);
  EXPECT_EQ(Keys(std::string(kQ36) + " SETTINGS optimize_group_by_function_keys = 1"), 1);
}

TEST_F(GroupByFunctionKeysTest, AnyDeterministicFunctionOfKeysIsDropped) {
  EXPECT_EQ(Keys("SELECT URL, lower(URL), length(URL), count() FROM hits GROUP BY URL, lower(URL), length(URL)"), 1);
  EXPECT_EQ(Keys("SELECT count() FROM hits GROUP BY x, ClientIP, if(x > 2, ClientIP, x + 1), x IN (1, 2)"), 2);
  // Positional keys refer to the select items.
  EXPECT_EQ(Keys("SELECT x, x * 10, count() FROM hits GROUP BY 1, 2"), 1);
}

TEST_F(GroupByFunctionKeysTest, KeysReadingOtherColumnsOrFloatsStay) {
  EXPECT_EQ(Keys("SELECT count() FROM hits GROUP BY ClientIP, ClientIP + x"), 2);
  EXPECT_EQ(Keys("SELECT count() FROM hits GROUP BY lower(URL), URL = ''"), 2);  // URL is no key
  EXPECT_EQ(Keys("SELECT count() FROM hits GROUP BY f, f * 2"), 2);
  // One key always stays (no keyless aggregate).
  EXPECT_EQ(Keys("SELECT count() FROM hits GROUP BY 1 + 1, 'b'"), 1);
}

}  // namespace
}  // namespace granite::coordinator
