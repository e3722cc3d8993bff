#include <gtest/gtest.h>

#include <set>
#include <string>

#include "coordinator/planner/rules/rule.h"
#include "core/settings/settings.h"

namespace granite::coordinator {
namespace {

// A rule names the setting that turns it off (rule.h); the name must be a registered query
// setting (core/settings/setting_list.h), or users are told of one that does not exist.
TEST(PlannerRulesTest, EverySettingIsRegistered) {
  std::set<std::string> registered;
  for (const core::SettingInfo& info : core::Settings::Infos()) {
    registered.insert(std::string(info.name));
  }
  ASSERT_FALSE(PlannerRules().empty());
  for (const PlannerRule& rule : PlannerRules()) {
    EXPECT_TRUE(registered.contains(std::string(rule.setting)))
        << "rule " << rule.name << " names setting " << rule.setting;
  }
}

// Names are what EXPLAIN prints and QueryPlan::rules_fired records: unique.
TEST(PlannerRulesTest, NamesAreUnique) {
  std::set<std::string_view> names;
  for (const PlannerRule& rule : PlannerRules()) {
    EXPECT_TRUE(names.insert(rule.name).second) << rule.name;
  }
}

}  // namespace
}  // namespace granite::coordinator
