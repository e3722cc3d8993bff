#include "coordinator/sql/catalog_statement_parser.h"

#include <string>

#include "coordinator/sql/expression_parser.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"
#include "gtest/gtest.h"

namespace granite::coordinator::sql {
namespace {

template <typename T>
T ParseAs(std::string_view sql) {
  auto parsed = ParseStatement(sql);
  EXPECT_TRUE(parsed.ok()) << sql << "\n" << parsed.status();
  if (!parsed.ok()) return T{};
  const T* statement = std::get_if<T>(&*parsed);
  EXPECT_NE(statement, nullptr) << sql;
  return statement != nullptr ? *statement : T{};
}

std::string ErrorOf(std::string_view sql) {
  auto parsed = ParseStatement(sql);
  EXPECT_FALSE(parsed.ok()) << sql;
  if (parsed.ok()) return "";
  EXPECT_EQ(core::CodeOf(parsed.status()), core::ErrorCode::kSyntaxError) << parsed.status();
  return std::string(parsed.status().message());
}

TEST(CatalogStatementParserTest, Databases) {
  auto create = ParseAs<DatabaseStatement>("CREATE DATABASE IF NOT EXISTS shop ENGINE = Atomic;");
  EXPECT_FALSE(create.drop);
  EXPECT_TRUE(create.if_not_exists);
  EXPECT_EQ(create.name, "shop");
  auto drop = ParseAs<DatabaseStatement>("drop database if exists `my db` sync");
  EXPECT_TRUE(drop.drop);
  EXPECT_TRUE(drop.if_exists);
  EXPECT_EQ(drop.name, "my db");
  EXPECT_EQ(ParseAs<UseStatement>("USE shop").database, "shop");
  EXPECT_NE(ErrorOf("USE"), "");
  EXPECT_NE(ErrorOf("CREATE DATABASE a b"), "");
  // CREATE / DROP TABLE still go to the table parser.
  EXPECT_EQ(ParseAs<DropTableStatement>("DROP TABLE shop.t").name, "shop.t");
}

TEST(CatalogStatementParserTest, Show) {
  auto tables = ParseAs<ShowTablesStatement>("SHOW TABLES FROM shop NOT ILIKE '%tmp%' FORMAT CSV");
  EXPECT_EQ(tables.database, "shop");
  EXPECT_TRUE(tables.has_like);
  EXPECT_TRUE(tables.not_like);
  EXPECT_TRUE(tables.ilike);
  EXPECT_EQ(tables.like, "%tmp%");
  EXPECT_EQ(tables.format, "CSV");
  auto plain = ParseAs<ShowTablesStatement>("SHOW TABLES");
  EXPECT_EQ(plain.database, "");
  EXPECT_FALSE(plain.has_like);
  auto databases = ParseAs<ShowStatement>("SHOW DATABASES LIKE 'a%'");
  EXPECT_EQ(databases.kind, ShowStatement::Kind::kDatabases);
  EXPECT_EQ(databases.like, "a%");
  auto create = ParseAs<ShowStatement>("SHOW CREATE TABLE shop.items");
  EXPECT_EQ(create.kind, ShowStatement::Kind::kCreateTable);
  EXPECT_EQ(create.table, "shop.items");
  EXPECT_EQ(ParseAs<ShowStatement>("SHOW CREATE t").table, "t");
  EXPECT_EQ(ParseAs<ShowStatement>("SHOW FULL PROCESSLIST").kind,
            ShowStatement::Kind::kProcesslist);
  EXPECT_NE(ErrorOf("SHOW NOTHING").find("Expected one of: TABLES, DATABASES"), std::string::npos);
}

TEST(CatalogStatementParserTest, ExistsTruncateRename) {
  auto exists = ParseAs<ShowStatement>("EXISTS TABLE shop.items FORMAT JSONEachRow");
  EXPECT_EQ(exists.kind, ShowStatement::Kind::kExists);
  EXPECT_EQ(exists.table, "shop.items");
  EXPECT_EQ(exists.format, "JSONEachRow");
  EXPECT_EQ(ParseAs<ShowStatement>("EXISTS t").table, "t");
  auto truncate = ParseAs<TruncateStatement>("TRUNCATE TABLE IF EXISTS default.t");
  EXPECT_TRUE(truncate.if_exists);
  EXPECT_EQ(truncate.table, "default.t");
  EXPECT_EQ(ParseAs<TruncateStatement>("TRUNCATE t").table, "t");
  auto rename = ParseAs<RenameStatement>("RENAME TABLE a TO b, shop.c TO d.e");
  ASSERT_EQ(rename.renames.size(), 2u);
  EXPECT_EQ(rename.renames[0], std::make_pair(std::string("a"), std::string("b")));
  EXPECT_EQ(rename.renames[1], std::make_pair(std::string("shop.c"), std::string("d.e")));
  EXPECT_NE(ErrorOf("RENAME TABLE a b"), "");
  EXPECT_NE(ErrorOf("RENAME TABLE a TO b,"), "");
}

TEST(CatalogStatementParserTest, QueryParameters) {
  auto select = ParseAs<SelectStatement>("SELECT {id:UInt64} + 1, {name: Nullable(String)}");
  ASSERT_EQ(select.select.size(), 2u);
  const Expr& id = *select.select[0]->args[0];
  EXPECT_EQ(id.name, kQueryParameterFunction);
  EXPECT_EQ(std::get<std::string>(id.args[0]->value), "id");
  EXPECT_EQ(std::get<std::string>(id.args[1]->value), "UInt64");
  EXPECT_EQ(std::get<std::string>(select.select[1]->args[1]->value), "Nullable(String)");
  EXPECT_NE(ErrorOf("SELECT {id}"), "");
  EXPECT_NE(ErrorOf("SELECT {:UInt8}"), "");
  EXPECT_NE(ErrorOf("SELECT {id:UInt8"), "");
}

}  // namespace
}  // namespace granite::coordinator::sql
