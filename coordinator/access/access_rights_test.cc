#include "coordinator/access/access_rights.h"

#include <gtest/gtest.h>

#include <variant>

#include "coordinator/access/grant_store.h"
#include "coordinator/access/privilege_check.h"
#include "coordinator/access/quota_book.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"

namespace granite::coordinator::access {
namespace {

AccessRule Rule(bool grant, uint32_t privileges, std::string database, std::string table) {
  return AccessRule{grant, privileges, std::move(database), std::move(table)};
}

TEST(AccessRightsTest, GrantsCoverTheirScope) {
  AccessRights rights;
  rights.Apply(Rule(true, kSelect | kInsert, "db", "*"));
  rights.Apply(Rule(true, kDrop, "db", "t"));
  EXPECT_TRUE(rights.Allows(kSelect, "db", "t"));
  EXPECT_TRUE(rights.Allows(kSelect | kInsert, "db", "*"));
  EXPECT_TRUE(rights.Allows(kDrop, "db", "t"));
  EXPECT_FALSE(rights.Allows(kDrop, "db", "u"));
  EXPECT_FALSE(rights.Allows(kSelect, "other", "t"));
  EXPECT_FALSE(rights.Allows(kCreate, "db", "*"));
}

TEST(AccessRightsTest, PartialRevokes) {
  AccessRights rights;
  rights.Apply(Rule(true, kAllPrivileges, "*", "*"));
  rights.Apply(Rule(false, kSelect, "db", "secret"));
  EXPECT_FALSE(rights.Allows(kSelect, "db", "secret"));
  EXPECT_TRUE(rights.Allows(kInsert, "db", "secret"));
  EXPECT_TRUE(rights.Allows(kSelect, "db", "open"));
  // The whole database no longer holds SELECT everywhere.
  EXPECT_FALSE(rights.Allows(kSelect, "db", "*"));
  EXPECT_TRUE(rights.AllowsAny("db", "secret"));
  // A later grant covering it restores it and absorbs the revoke.
  rights.Apply(Rule(true, kSelect, "db", "*"));
  EXPECT_TRUE(rights.Allows(kSelect, "db", "secret"));
  EXPECT_EQ(rights.rules().size(), 2u);
}

TEST(AccessRightsTest, ApplyKeepsTheListShort) {
  AccessRights rights;
  for (int i = 0; i < 10; ++i) {
    rights.Apply(Rule(true, kSelect, "db", "t"));
    rights.Apply(Rule(false, kSelect, "db", "t"));
  }
  EXPECT_EQ(rights.rules().size(), 1u);
  EXPECT_FALSE(rights.Allows(kSelect, "db", "t"));
}

TEST(AccessRightsTest, IdleRevokesAreDropped) {
  AccessRights rights;
  rights.Apply(Rule(true, kSelect, "db", "a"));
  rights.Apply(Rule(false, kSelect | kInsert, "db", "*"));  // also takes the grant away
  rights.Apply(Rule(true, kAllPrivileges, "*", "*"));
  rights.Apply(Rule(false, kInsert, "db", "b"));
  rights.Apply(Rule(false, kDrop, "other", "c"));
  rights = WithoutIdleRevokes(rights);
  ASSERT_EQ(rights.rules().size(), 3u);  // GRANT ALL, REVOKE INSERT db.b, REVOKE DROP other.c
  AccessRights only_revokes;
  only_revokes.Apply(Rule(false, kSelect, "db", "a"));
  EXPECT_TRUE(WithoutIdleRevokes(only_revokes).rules().empty());
}

TEST(AccessRightsTest, PrivilegeNames) {
  EXPECT_EQ(PrivilegeNames(kAllPrivileges), "ALL");
  EXPECT_EQ(PrivilegeNames(kSelect | kInsert), "SELECT, INSERT");
  EXPECT_EQ(*ParsePrivilege("CREATE TABLE"), kCreate);
  EXPECT_EQ(*ParsePrivilege("ALL PRIVILEGES"), kAllPrivileges);
  EXPECT_FALSE(ParsePrivilege("FLY").ok());
  EXPECT_EQ(Rule(false, kSelect, "db", "my table").Text("bob"),
            "REVOKE SELECT ON db.`my table` FROM bob");
}

TEST(AccessRightsTest, GrantListOfTheUsersFile) {
  auto rules = ParseGrantList("SELECT, INSERT ON db.*; ALL ON db2.t; REVOKE INSERT ON db.x");
  ASSERT_TRUE(rules.ok()) << rules.status();
  ASSERT_EQ(rules->size(), 3u);
  EXPECT_EQ((*rules)[0].privileges, kSelect | kInsert);
  EXPECT_EQ((*rules)[1].table, "t");
  EXPECT_FALSE((*rules)[2].grant);
  EXPECT_FALSE(ParseGrantList("SELECT ON t").ok());  // no database
  EXPECT_FALSE(ParseGrantList("FLY ON db.t").ok());
}

TEST(AccessRightsTest, RequirementsOfASelectReachEveryTable) {
  auto parsed = sql::ParseStatement(
      "WITH c AS (SELECT * FROM d1.a) SELECT * FROM c JOIN b USING (x) "
      "WHERE x IN (SELECT x FROM d2.e) AND y = (SELECT max(y) FROM f) "
      "UNION ALL SELECT * FROM (SELECT * FROM g) UNION ALL SELECT * FROM system.one "
      "UNION ALL SELECT * FROM numbers(3)");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  std::vector<std::string> tables;
  for (const Requirement& requirement : RequirementsOf(*parsed, "cur")) {
    EXPECT_EQ(requirement.privileges, kSelect);
    tables.push_back(requirement.database + "." + requirement.table);
  }
  std::sort(tables.begin(), tables.end());
  EXPECT_EQ(tables, (std::vector<std::string>{"cur.b", "cur.f", "cur.g", "d1.a", "d2.e"}));
}

TEST(AccessRightsTest, AccessDeniedNamesUserPrivilegeAndTable) {
  AccessRights rights;
  rights.Apply(Rule(true, kSelect, "db", "*"));
  auto parsed = sql::ParseStatement("INSERT INTO t SELECT * FROM db.s");
  ASSERT_TRUE(parsed.ok());
  absl::Status status = CheckRequirements("bob", rights, RequirementsOf(*parsed, "db"));
  // INSERT's table is a catalog name: "t" is default.t.
  EXPECT_EQ(core::CodeOf(status), core::ErrorCode::kAccessDenied);
  EXPECT_EQ(status.message(),
            "bob: Not enough privileges. To execute this query, it's necessary to have the "
            "grant INSERT ON default.t");
}

TEST(GrantStoreTest, TextRoundTrip) {
  AccessEntities entities;
  for (const char* sql : {"GRANT SELECT, INSERT ON db.* TO bob", "REVOKE INSERT ON db.`x y` FROM bob",
                          "GRANT ALL ON *.* TO `odd name`",
                          "CREATE QUOTA q FOR INTERVAL 1 hour MAX queries = 10, errors = 2, "
                          "FOR INTERVAL 1 minute TRACKING ONLY TO bob, carol"}) {
    auto parsed = sql::ParseStatement(sql);
    ASSERT_TRUE(parsed.ok()) << sql << ": " << parsed.status();
    ASSERT_TRUE(ApplyAccessStatement(std::get<sql::AccessStatement>(*parsed), &entities).ok());
  }
  entities.version = 7;
  auto back = AccessEntities::Parse(entities.Serialize());
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << entities.Serialize();
  EXPECT_EQ(back->Serialize(), entities.Serialize());
  EXPECT_EQ(back->version, 7u);
  ASSERT_EQ(back->quotas.at("q").intervals.size(), 2u);
  EXPECT_EQ(back->quotas.at("q").intervals[0].seconds, 3600u);
  EXPECT_EQ(back->quotas.at("q").intervals[0].max.at("queries"), 10u);
  EXPECT_EQ(back->quotas.at("q").users, (std::vector<std::string>{"bob", "carol"}));
  EXPECT_FALSE(back->rules.at("bob").Allows(kInsert, "db", "x y"));
  EXPECT_TRUE(back->rules.at("odd name").Allows(kDrop, "a", "b"));
  EXPECT_FALSE(AccessEntities::Parse("SELECT 1").ok());
}

TEST(QuotaBookTest, CountsQueriesAndResetsWithTheInterval) {
  QuotaBook book;
  QuotaSpec quota{"q", {QuotaInterval{60, {{"queries", 2}, {"errors", 1}}}}, {"bob"}, false};
  const auto start = QuotaBook::Clock::from_time_t(6000);  // an interval boundary
  EXPECT_TRUE(book.Start("bob", {quota}, "select", start).ok());
  EXPECT_TRUE(book.Start("bob", {quota}, "select", start).ok());
  absl::Status third = book.Start("bob", {quota}, "select", start);
  EXPECT_EQ(core::CodeOf(third), core::ErrorCode::kQuotaExceeded);
  EXPECT_NE(third.message().find("queries = 3/2"), std::string::npos) << third;
  EXPECT_NE(third.message().find("1970-01-01 01:41:00"), std::string::npos) << third;
  EXPECT_NE(third.message().find("`q`"), std::string::npos) << third;
  EXPECT_TRUE(book.Start("carol", {quota}, "select", start).ok());  // per user
  EXPECT_TRUE(book.Start("bob", {quota}, "select", start + std::chrono::seconds(60)).ok());
  book.Finish("bob", {quota}, QuotaConsumption{true}, start + std::chrono::seconds(61));
  EXPECT_EQ(core::CodeOf(book.Start("bob", {quota}, "select", start + std::chrono::seconds(62))),
            core::ErrorCode::kQuotaExceeded);  // errors = 1/1
}

}  // namespace
}  // namespace granite::coordinator::access
