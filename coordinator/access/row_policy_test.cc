// Row policies (row_policy.h, grant_store.h): CREATE / DROP / SHOW ROW POLICY parsing, the
// stored text, and which filter a user's reads get.
#include "coordinator/access/row_policy.h"

#include <gtest/gtest.h>

#include <variant>

#include "coordinator/access/grant_store.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"

namespace granite::coordinator::access {
namespace {

using Kind = sql::AccessStatement::Kind;

absl::StatusOr<sql::AccessStatement> Parse(const char* sql) {
  auto parsed = sql::ParseStatement(sql);
  if (!parsed.ok()) return parsed.status();
  return std::get<sql::AccessStatement>(*parsed);
}

absl::Status Apply(const char* sql, AccessEntities* entities) {
  auto parsed = Parse(sql);
  if (!parsed.ok()) return parsed.status();
  if (parsed->database.empty()) parsed->database = "default";
  return ApplyAccessStatement(*parsed, entities);
}

// The filter `user` (holding `roles`) gets on default.t, as SQL-ish text ("" for none).
std::string FilterText(const AccessEntities& entities, const std::string& user,
                       const std::set<std::string>& roles = {}) {
  std::vector<RowPolicy> policies;
  for (const auto& [name, policy] : entities.policies) policies.push_back(policy);
  auto filter = RowFilterFor(policies, user, roles);
  EXPECT_TRUE(filter.ok()) << filter.status();
  return filter.ok() && *filter ? sql::ColumnName(**filter) : "";
}

TEST(RowPolicyTest, ParsesClickHouseSpellings) {
  auto create = Parse(
      "CREATE ROW POLICY IF NOT EXISTS own ON db.t AS RESTRICTIVE FOR SELECT USING a = 1 AND\n"
      "  b   IN (1, 2) -- note\n TO ALL EXCEPT bob, `odd user`");
  ASSERT_TRUE(create.ok()) << create.status();
  EXPECT_EQ(create->kind, Kind::kCreatePolicy);
  EXPECT_TRUE(create->if_not_exists);
  EXPECT_EQ(create->names, (std::vector<std::string>{"own"}));
  EXPECT_EQ(create->database, "db");
  EXPECT_EQ(create->table, "t");
  EXPECT_TRUE(create->restrictive);
  EXPECT_EQ(create->condition, "a = 1 AND b IN (1, 2)");
  EXPECT_TRUE(create->to_all);
  EXPECT_EQ(create->except, (std::vector<std::string>{"bob", "odd user"}));

  auto short_form = Parse("CREATE POLICY p ON t USING x > 0 TO alice, reader");
  ASSERT_TRUE(short_form.ok()) << short_form.status();
  EXPECT_FALSE(short_form->restrictive);
  EXPECT_EQ(short_form->database, "");
  EXPECT_EQ(short_form->users, (std::vector<std::string>{"alice", "reader"}));
  EXPECT_EQ(Parse("CREATE OR REPLACE ROW POLICY p ON t USING 1")->or_replace, true);
  EXPECT_EQ(Parse("DROP ROW POLICY IF EXISTS p ON db.t")->kind, Kind::kDropPolicy);
  EXPECT_EQ(Parse("DROP POLICY p ON t")->kind, Kind::kDropPolicy);
  EXPECT_EQ(Parse("SHOW ROW POLICIES ON db.t")->kind, Kind::kShowPolicies);
  EXPECT_EQ(Parse("SHOW POLICIES")->kind, Kind::kShowPolicies);
  EXPECT_EQ(Parse("SHOW CREATE ROW POLICY p ON t")->kind, Kind::kShowCreatePolicy);
  // SHOW CREATE TABLE is still the catalog's.
  auto table = sql::ParseStatement("SHOW CREATE TABLE t");
  ASSERT_TRUE(table.ok());
  EXPECT_FALSE(std::holds_alternative<sql::AccessStatement>(*table));

  EXPECT_EQ(core::CodeOf(Parse("CREATE ROW POLICY p ON t USING").status()),
            core::ErrorCode::kSyntaxError);
  EXPECT_EQ(core::CodeOf(Parse("CREATE ROW POLICY p ON t USING a AS").status()),
            core::ErrorCode::kSyntaxError);
  EXPECT_EQ(core::CodeOf(Parse("CREATE ROW POLICY p ON t USING a IN (SELECT 1)").status()),
            core::ErrorCode::kNotImplemented);
  EXPECT_EQ(core::CodeOf(Parse("CREATE ROW POLICY p ON t USING a = 'x\ny'").status()),
            core::ErrorCode::kSyntaxError);
  EXPECT_EQ(core::CodeOf(Parse("CREATE ROW POLICY p ON t, u USING 1").status()),
            core::ErrorCode::kNotImplemented);
}

TEST(RowPolicyTest, FilterOrsPermissiveAndAndsRestrictive) {
  AccessEntities entities;
  ASSERT_TRUE(Apply("CREATE ROW POLICY mine ON t USING owner = 'alice' TO alice", &entities).ok());
  ASSERT_TRUE(Apply("CREATE ROW POLICY open ON t USING public = 1 TO alice, readers", &entities)
                  .ok());
  ASSERT_TRUE(Apply("CREATE ROW POLICY fresh ON t AS RESTRICTIVE USING day > 10 TO ALL EXCEPT "
                    "admin",
                    &entities)
                  .ok());
  EXPECT_EQ(FilterText(entities, "alice"),
            "and(or(equals(owner, 'alice'), equals(public, 1)), greater(day, 10))");
  // Through a role; nobody else's permissive policy applies, so only the restrictive one.
  EXPECT_EQ(FilterText(entities, "bob", {"readers"}), "and(equals(public, 1), greater(day, 10))");
  EXPECT_EQ(FilterText(entities, "carol"), "greater(day, 10)");
  EXPECT_EQ(FilterText(entities, "admin"), "");
  // A policy without TO applies to nobody.
  AccessEntities idle;
  ASSERT_TRUE(Apply("CREATE ROW POLICY idle ON t USING 0", &idle).ok());
  EXPECT_EQ(FilterText(idle, "alice"), "");
}

TEST(RowPolicyTest, CurrentUserIsTheReader) {
  AccessEntities entities;
  ASSERT_TRUE(Apply("CREATE ROW POLICY own ON t USING owner = currentUser() TO ALL", &entities)
                  .ok());
  EXPECT_EQ(FilterText(entities, "dave"), "equals(owner, 'dave')");
}

TEST(RowPolicyTest, StoredTextRoundTripsAndNamesAreUnique) {
  AccessEntities entities;
  ASSERT_TRUE(Apply("CREATE ROLE readers", &entities).ok());
  ASSERT_TRUE(Apply("CREATE ROW POLICY `my policy` ON db.t AS RESTRICTIVE USING "
                    "x IN ('a`b', 'c') TO ALL EXCEPT readers",
                    &entities)
                  .ok());
  ASSERT_TRUE(Apply("CREATE ROW POLICY p ON t USING y > 0 TO alice", &entities).ok());
  entities.version = 7;
  auto back = AccessEntities::Parse(entities.Serialize());
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << entities.Serialize();
  EXPECT_EQ(back->Serialize(), entities.Serialize());
  EXPECT_EQ(back->policies, entities.policies);
  const RowPolicy& odd = back->policies.at("my policy ON db.t");
  EXPECT_EQ(odd.condition, "x IN ('a`b', 'c')");
  EXPECT_TRUE(odd.restrictive);
  EXPECT_EQ(odd.except, (std::vector<std::string>{"readers"}));

  absl::Status again = Apply("CREATE ROW POLICY p ON t USING 1 TO alice", &entities);
  EXPECT_EQ(core::CodeOf(again), core::ErrorCode::kAccessEntityAlreadyExists) << again;
  EXPECT_NE(again.message().find("p ON default.t"), std::string::npos) << again;
  EXPECT_TRUE(Apply("CREATE ROW POLICY IF NOT EXISTS p ON t USING 1 TO alice", &entities).ok());
  EXPECT_EQ(entities.policies.at("p ON default.t").condition, "y > 0");
  ASSERT_TRUE(Apply("CREATE OR REPLACE ROW POLICY p ON t USING 1 TO alice", &entities).ok());
  EXPECT_EQ(entities.policies.at("p ON default.t").condition, "1");
  // The same name on another table is another policy.
  ASSERT_TRUE(Apply("CREATE ROW POLICY p ON u USING 1 TO alice", &entities).ok());
  ASSERT_TRUE(Apply("DROP ROW POLICY p ON t", &entities).ok());
  EXPECT_EQ(entities.policies.count("p ON default.t"), 0u);
  EXPECT_EQ(entities.policies.count("p ON default.u"), 1u);
  EXPECT_EQ(core::CodeOf(Apply("DROP ROW POLICY p ON t", &entities)),
            core::ErrorCode::kAccessEntityNotFound);
  EXPECT_TRUE(Apply("DROP ROW POLICY IF EXISTS p ON t", &entities).ok());
}

TEST(RowPolicyTest, StoreFailsClosedUntilLoaded) {
  GrantStore store;
  auto filter = store.RowFilter("alice", "default", "t");
  EXPECT_FALSE(filter.ok());
}

}  // namespace
}  // namespace granite::coordinator::access
