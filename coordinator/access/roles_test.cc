// Roles (grant_store.h, access_rights.h): CREATE / DROP ROLE, GRANT role TO user or role, and
// what a user may do with them.
#include <gtest/gtest.h>

#include <variant>

#include "coordinator/access/access_rights.h"
#include "coordinator/access/grant_store.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"

namespace granite::coordinator::access {
namespace {

absl::Status Apply(const char* sql, AccessEntities* entities) {
  auto parsed = sql::ParseStatement(sql);
  if (!parsed.ok()) return parsed.status();
  return ApplyAccessStatement(std::get<sql::AccessStatement>(*parsed), entities);
}

TEST(RolesTest, ParsesRoleStatements) {
  auto grant = sql::ParseStatement("GRANT reader, `odd role` TO bob, carol");
  ASSERT_TRUE(grant.ok()) << grant.status();
  const auto& g = std::get<sql::AccessStatement>(*grant);
  EXPECT_EQ(g.kind, sql::AccessStatement::Kind::kGrantRole);
  EXPECT_EQ(g.names, (std::vector<std::string>{"reader", "odd role"}));
  EXPECT_EQ(g.users, (std::vector<std::string>{"bob", "carol"}));
  auto privileges = sql::ParseStatement("GRANT SELECT ON db.t TO reader");
  ASSERT_TRUE(privileges.ok());
  EXPECT_EQ(std::get<sql::AccessStatement>(*privileges).kind, sql::AccessStatement::Kind::kGrant);
  auto revoke = sql::ParseStatement("REVOKE reader FROM bob");
  ASSERT_TRUE(revoke.ok());
  EXPECT_EQ(std::get<sql::AccessStatement>(*revoke).kind, sql::AccessStatement::Kind::kRevokeRole);
  auto create = sql::ParseStatement("CREATE ROLE IF NOT EXISTS a, b");
  ASSERT_TRUE(create.ok()) << create.status();
  EXPECT_TRUE(std::get<sql::AccessStatement>(*create).if_not_exists);
  EXPECT_TRUE(sql::ParseStatement("CREATE OR REPLACE ROLE a").ok());
  EXPECT_TRUE(sql::ParseStatement("DROP ROLE IF EXISTS a, b").ok());
  EXPECT_EQ(core::CodeOf(sql::ParseStatement("GRANT reader TO bob WITH ADMIN OPTION").status()),
            core::ErrorCode::kNotImplemented);
}

TEST(RolesTest, RightsComeFromOwnRulesOrAnyRole) {
  AccessEntities entities;
  ASSERT_TRUE(Apply("CREATE ROLE reader, writer, staff", &entities).ok());
  ASSERT_TRUE(Apply("GRANT SELECT ON db.* TO reader", &entities).ok());
  ASSERT_TRUE(Apply("REVOKE SELECT ON db.secret FROM reader", &entities).ok());
  ASSERT_TRUE(Apply("GRANT INSERT ON db.log TO writer", &entities).ok());
  ASSERT_TRUE(Apply("GRANT reader, writer TO staff", &entities).ok());
  ASSERT_TRUE(Apply("GRANT staff TO bob", &entities).ok());
  ASSERT_TRUE(Apply("GRANT SELECT ON db.secret TO bob", &entities).ok());
  // Round trip through the stored text.
  entities.version = 3;
  auto back = AccessEntities::Parse(entities.Serialize());
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << entities.Serialize();
  EXPECT_EQ(back->Serialize(), entities.Serialize());
  EXPECT_EQ(back->granted_roles.at("bob"), (std::set<std::string>{"staff"}));

  GrantStore store;
  ASSERT_TRUE(store.InstallIfNewer(back->Serialize()).ok());  // not loaded yet: ignored
  ASSERT_TRUE(store.EnsureLoaded([&] {
    return absl::StatusOr<std::vector<std::string>>(std::vector<std::string>{back->Serialize()});
  }).ok());
  User bob;
  bob.name = "bob";
  bob.grants = AccessRights();  // nothing from the users file
  const AccessRights rights = store.RightsOf(bob);
  EXPECT_TRUE(rights.Allows(kSelect, "db", "t"));       // reader, through staff
  EXPECT_TRUE(rights.Allows(kSelect, "db", "secret"));  // bob's own grant
  EXPECT_TRUE(rights.Allows(kSelect | kInsert, "db", "log"));  // one bit from each role
  EXPECT_FALSE(rights.Allows(kInsert, "db", "t"));
  EXPECT_FALSE(rights.Allows(kSelect, "other", "t"));
  EXPECT_TRUE(rights.AllowsAny("db", "*"));

  // Revoking the role from staff takes SELECT away, but not bob's own grant.
  ASSERT_TRUE(store.Change(std::get<sql::AccessStatement>(*sql::ParseStatement(
                               "REVOKE reader FROM staff")),
                           [](const std::string&) { return absl::OkStatus(); }).ok());
  EXPECT_FALSE(store.RightsOf(bob).Allows(kSelect, "db", "t"));
  EXPECT_TRUE(store.RightsOf(bob).Allows(kSelect, "db", "secret"));
  EXPECT_TRUE(store.RightsOf(bob).Allows(kInsert, "db", "log"));
}

TEST(RolesTest, ErrorsAndDrop) {
  AccessEntities entities;
  ASSERT_TRUE(Apply("CREATE ROLE a, b", &entities).ok());
  EXPECT_EQ(core::CodeOf(Apply("CREATE ROLE a", &entities)),
            core::ErrorCode::kAccessEntityAlreadyExists);
  EXPECT_TRUE(Apply("CREATE ROLE IF NOT EXISTS a", &entities).ok());
  EXPECT_EQ(core::CodeOf(Apply("GRANT nope TO bob", &entities)),
            core::ErrorCode::kAccessEntityNotFound);
  EXPECT_EQ(core::CodeOf(Apply("DROP ROLE nope", &entities)),
            core::ErrorCode::kAccessEntityNotFound);
  ASSERT_TRUE(Apply("GRANT a TO b", &entities).ok());
  EXPECT_EQ(core::CodeOf(Apply("GRANT b TO a", &entities)), core::ErrorCode::kBadArguments);
  EXPECT_EQ(core::CodeOf(Apply("GRANT a TO a", &entities)), core::ErrorCode::kBadArguments);
  ASSERT_TRUE(Apply("GRANT SELECT ON *.* TO a", &entities).ok());
  ASSERT_TRUE(Apply("GRANT a TO bob", &entities).ok());
  // Dropping a role removes its rules and every grant of it.
  ASSERT_TRUE(Apply("DROP ROLE a", &entities).ok());
  EXPECT_FALSE(entities.rules.count("a"));
  EXPECT_FALSE(entities.granted_roles.count("bob"));
  EXPECT_FALSE(entities.granted_roles.count("b"));
  ASSERT_TRUE(Apply("CREATE OR REPLACE ROLE b", &entities).ok());
  EXPECT_TRUE(entities.roles.count("b"));
}

TEST(RolesTest, DefaultAndCurrentRolesChooseTheEnabledOnes) {
  auto set = sql::ParseStatement("SET ROLE ALL EXCEPT a, b");
  ASSERT_TRUE(set.ok()) << set.status();
  const auto& s = std::get<sql::AccessStatement>(*set);
  EXPECT_EQ(s.kind, sql::AccessStatement::Kind::kSetRole);
  EXPECT_TRUE(s.to_all);
  EXPECT_EQ(s.except, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(std::get<sql::AccessStatement>(*sql::ParseStatement("SET ROLE DEFAULT"))
                  .role_default);
  auto set_none = sql::ParseStatement("SET ROLE NONE");
  ASSERT_TRUE(set_none.ok());
  EXPECT_FALSE(std::get<sql::AccessStatement>(*set_none).to_all);
  EXPECT_TRUE(std::get<sql::AccessStatement>(*set_none).names.empty());
  EXPECT_TRUE(std::holds_alternative<sql::SetStatement>(*sql::ParseStatement("SET max_threads = 1")));

  AccessEntities entities;
  ASSERT_TRUE(Apply("CREATE ROLE reader, writer, inner", &entities).ok());
  ASSERT_TRUE(Apply("GRANT SELECT ON db.* TO reader", &entities).ok());
  ASSERT_TRUE(Apply("GRANT INSERT ON db.* TO writer", &entities).ok());
  ASSERT_TRUE(Apply("GRANT inner TO writer", &entities).ok());
  ASSERT_TRUE(Apply("GRANT reader, writer TO bob", &entities).ok());
  ASSERT_TRUE(Apply("SET DEFAULT ROLE writer TO bob", &entities).ok());
  entities.version = 2;
  auto back = AccessEntities::Parse(entities.Serialize());
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << entities.Serialize();
  EXPECT_EQ(back->Serialize(), entities.Serialize());
  EXPECT_EQ(back->default_roles.at("bob").names, (std::vector<std::string>{"writer"}));

  GrantStore store;
  ASSERT_TRUE(store.EnsureLoaded([&]() -> absl::StatusOr<std::vector<std::string>> {
    return std::vector<std::string>{back->Serialize()};
  }).ok());
  User bob;
  bob.name = "bob";
  bob.grants = AccessRights();  // nothing from the users file
  // Defaults: writer and what it holds.
  EXPECT_EQ(store.EnabledRoles("bob"), (std::vector<std::string>{"writer", "inner"}));
  EXPECT_FALSE(store.RightsOf(bob).Allows(kSelect, "db", "t"));
  EXPECT_TRUE(store.RightsOf(bob).Allows(kInsert, "db", "t"));
  RoleSet reader;
  reader.all = false;
  reader.names = {"reader"};
  EXPECT_EQ(store.EnabledRoles("bob", &reader), (std::vector<std::string>{"reader"}));
  EXPECT_TRUE(store.RightsOf(bob, &reader).Allows(kSelect, "db", "t"));
  EXPECT_FALSE(store.RightsOf(bob, &reader).Allows(kInsert, "db", "t"));
  RoleSet none;
  none.all = false;
  EXPECT_TRUE(store.EnabledRoles("bob", &none).empty());
  EXPECT_EQ(none.Text(), "NONE");
  EXPECT_EQ(reader.Text(), "`reader`");
  // Dropping a role takes it out of the default lists, so the stored text still loads.
  ASSERT_TRUE(Apply("DROP ROLE writer", &entities).ok());
  EXPECT_TRUE(entities.default_roles.at("bob").names.empty());
  EXPECT_TRUE(AccessEntities::Parse(entities.Serialize()).ok());
}

}  // namespace
}  // namespace granite::coordinator::access
