#include "coordinator/exec/catalog_statements.h"

#include <gtest/gtest.h>

#include "coordinator/cluster/table_name.h"
#include "coordinator/exec/query_parameters.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

TEST(CatalogStatementsTest, TableNames) {
  EXPECT_EQ(ResolveTableName("t", "default"), "t");
  EXPECT_EQ(ResolveTableName("t", "shop"), "shop.t");
  EXPECT_EQ(ResolveTableName("default.t", "shop"), "t");
  EXPECT_EQ(ResolveTableName("other.t", "shop"), "other.t");
  EXPECT_EQ(SplitTableName("t").database, "default");
  EXPECT_EQ(SplitTableName("shop.t").table, "t");
  EXPECT_EQ(DisplayTableName("t"), "default.t");
  EXPECT_EQ(DisplayTableName("shop.t"), "shop.t");
}

// SHOW CREATE TABLE prints a statement CREATE TABLE accepts back with the same schema.
TEST(CatalogStatementsTest, ShowCreateTableRoundTrips) {
  core::TableSchema schema;
  schema.name = "shop.my table";
  schema.columns = {{"id", TypeId::kUInt64}, {"day", TypeId::kDate}, {"s`x", TypeId::kString}};
  schema.order_by = {"id", "day"};
  schema.primary_key = {"id"};
  schema.partition_by = "toYYYYMM(day)";
  schema.engine = "MergeTree";
  schema.settings = {{"index_granularity", "1024"}};
  schema.sharding_key = {"id"};
  std::string text = ShowCreateTableText(schema);
  EXPECT_EQ(text,
            "CREATE TABLE shop.`my table`\n(\n    `id` UInt64,\n    `day` Date,\n"
            "    `s\\`x` String\n)\nENGINE = MergeTree\nPARTITION BY toYYYYMM(day)\n"
            "PRIMARY KEY id\nORDER BY (id, day)\nSETTINGS index_granularity = 1024, "
            "sharding_key = 'id'");
  auto parsed = sql::ParseStatement(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const auto& create = std::get<sql::CreateTableStatement>(*parsed);
  EXPECT_EQ(create.name, "shop.my table");
  ASSERT_EQ(create.columns.size(), 3u);
  EXPECT_EQ(create.columns[2].name, "s`x");
  EXPECT_EQ(create.columns[1].type, "Date");
  EXPECT_EQ(sql::ColumnName(*create.partition_by), "toYYYYMM(day)");
  ASSERT_EQ(create.order_by.size(), 2u);
  ASSERT_EQ(create.primary_key.size(), 1u);
  EXPECT_EQ(create.settings.at("sharding_key"), "id");
  EXPECT_EQ(create.settings.at("index_granularity"), "1024");

  core::TableSchema bare;
  bare.name = "t";
  bare.columns = {{"x", TypeId::kUInt8}};
  bare.engine = "MergeTree";
  EXPECT_EQ(ShowCreateTableText(bare),
            "CREATE TABLE default.t\n(\n    `x` UInt8\n)\nENGINE = MergeTree\nORDER BY tuple()");
}

TEST(CatalogStatementsTest, QueryParametersAndCurrentDatabase) {
  auto parsed = sql::ParseStatement("SELECT {a:UInt8} + 1, currentDatabase(), {s:String} AS s");
  ASSERT_TRUE(parsed.ok());
  auto bound = BindQueryConstants(*parsed, "shop", {{"a", "7"}, {"s", "x"}});
  ASSERT_TRUE(bound.ok()) << bound.status();
  ASSERT_TRUE(bound->has_value());
  const auto& select = std::get<sql::SelectStatement>(**bound);
  EXPECT_EQ(sql::ColumnName(*select.select[0]), "plus(CAST('7', 'UInt8'), 1)");
  EXPECT_EQ(std::get<std::string>(select.select[1]->value), "shop");
  EXPECT_EQ(select.select[1]->alias, "currentDatabase()");
  EXPECT_EQ(select.select[2]->alias, "s");

  auto missing = BindQueryConstants(*parsed, "default", {{"a", "7"}});
  EXPECT_EQ(core::CodeOf(missing.status()), core::ErrorCode::kUnknownQueryParameter);
  auto bad = BindQueryConstants(*parsed, "default", {{"a", "x7"}, {"s", ""}});
  EXPECT_EQ(core::CodeOf(bad.status()), core::ErrorCode::kBadQueryParameter);
  EXPECT_NE(bad.status().message().find("x7"), std::string::npos);

  auto plain = sql::ParseStatement("SELECT 1");
  auto none = BindQueryConstants(*plain, "default", {});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());

  std::map<std::string, std::string> settings = {{"param_a", "1"}, {"max_threads", "2"}};
  EXPECT_EQ(QueryParametersOf(settings), (std::map<std::string, std::string>{{"a", "1"}}));
  EXPECT_EQ(WithoutQueryParameters(settings),
            (std::map<std::string, std::string>{{"max_threads", "2"}}));
}

}  // namespace
}  // namespace granite::coordinator
