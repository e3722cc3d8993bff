#include "coordinator/sql/parser.h"

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "gtest/gtest.h"

namespace granite::coordinator::sql {
namespace {

// The ClickBench workload, kept outside the repository (see /work/shared/clickbench/README.md).
constexpr char kClickBenchDir[] = "/work/shared/clickbench";

template <typename T>
T ParseAs(std::string_view sql) {
  auto parsed = ParseStatement(sql);
  EXPECT_TRUE(parsed.ok()) << sql << "\n" << parsed.status();
  if (!parsed.ok()) return T{};
  const T* statement = std::get_if<T>(&*parsed);
  EXPECT_NE(statement, nullptr) << sql;
  return statement != nullptr ? *statement : T{};
}

SelectStatement Select(std::string_view sql) { return ParseAs<SelectStatement>(sql); }

std::string ErrorOf(std::string_view sql) {
  auto parsed = ParseStatement(sql);
  EXPECT_FALSE(parsed.ok()) << sql;
  if (parsed.ok()) return "";
  EXPECT_EQ(core::CodeOf(parsed.status()), core::ErrorCode::kSyntaxError) << parsed.status();
  return std::string(parsed.status().message());
}

std::vector<std::string> Names(const std::vector<ExprPtr>& exprs) {
  std::vector<std::string> names;
  for (const ExprPtr& expr : exprs) names.push_back(ColumnName(*expr));
  return names;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ParserTest, SelectWithEveryClause) {
  SelectStatement s = Select(
      "select distinct a, b AS x, c y, * FROM db.t AS z WHERE a > 1 GROUP BY a, b "
      "HAVING count() > 2 ORDER BY a DESC NULLS FIRST, b ASC, c NULLS LAST, d "
      "LIMIT 10 OFFSET 5 SETTINGS max_threads = 4, name = 'v', neg = -1, flag = true "
      "FORMAT JSONEachRow;");
  EXPECT_TRUE(s.distinct);
  ASSERT_EQ(s.select.size(), 4u);
  EXPECT_EQ(s.select[0]->alias, "");
  EXPECT_EQ(s.select[1]->alias, "x");
  EXPECT_EQ(s.select[2]->alias, "y");
  EXPECT_EQ(s.select[3]->kind, ExprKind::kStar);
  ASSERT_TRUE(s.from.has_value());
  EXPECT_EQ(s.from->database, "db");
  EXPECT_EQ(s.from->name, "t");
  EXPECT_EQ(s.from->alias, "z");
  EXPECT_FALSE(s.from->is_function);
  EXPECT_EQ(ColumnName(*s.where), "greater(a, 1)");
  EXPECT_EQ(Names(s.group_by), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ColumnName(*s.having), "greater(count(), 2)");
  ASSERT_EQ(s.order_by.size(), 4u);
  EXPECT_TRUE(s.order_by[0].descending);
  EXPECT_EQ(s.order_by[0].nulls_first, true);
  EXPECT_FALSE(s.order_by[1].descending);
  EXPECT_FALSE(s.order_by[1].nulls_first.has_value());
  EXPECT_EQ(s.order_by[2].nulls_first, false);
  EXPECT_EQ(ColumnName(*s.order_by[3].expr), "d");
  EXPECT_EQ(s.limit, 10u);
  EXPECT_EQ(s.offset, 5u);
  EXPECT_EQ(s.settings, (std::map<std::string, std::string>{
                            {"max_threads", "4"}, {"name", "v"}, {"neg", "-1"}, {"flag", "1"}}));
  EXPECT_EQ(s.format, "JSONEachRow");
}

TEST(ParserTest, SelectVariants) {
  SelectStatement s = Select("SELECT 1");
  EXPECT_FALSE(s.from.has_value());
  EXPECT_FALSE(s.limit.has_value());
  EXPECT_EQ(std::get<uint64_t>(s.select[0]->value), 1u);

  s = Select("SELECT version()");
  EXPECT_EQ(ColumnName(*s.select[0]), "version()");

  s = Select("SELECT number FROM numbers(10) LIMIT 5, 3");
  EXPECT_TRUE(s.from->is_function);
  EXPECT_EQ(s.from->name, "numbers");
  EXPECT_EQ(Names(s.from->args), (std::vector<std::string>{"10"}));
  EXPECT_EQ(s.offset, 5u);
  EXPECT_EQ(s.limit, 3u);

  s = Select("SELECT count() FROM numbers_mt(1e8) h FORMAT TSV SETTINGS max_threads = 1");
  EXPECT_DOUBLE_EQ(std::get<double>(s.from->args[0]->value), 1e8);
  EXPECT_EQ(s.from->alias, "h");
  EXPECT_EQ(s.format, "TSV");
  EXPECT_EQ(s.settings.at("max_threads"), "1");

  s = Select("SELECT * FROM system.tables");
  EXPECT_EQ(s.from->database, "system");
  EXPECT_EQ(s.from->name, "tables");

  s = Select("SELECT x FROM t ORDER BY x OFFSET 3");
  EXPECT_FALSE(s.limit.has_value());
  EXPECT_EQ(s.offset, 3u);

  // A bare alias is any identifier that is not a keyword, as in ClickHouse.
  s = Select("SELECT 1 FORM");
  EXPECT_EQ(s.select[0]->alias, "FORM");
  s = Select("SELECT a `quoted alias`, b AS from FROM t");
  EXPECT_EQ(s.select[0]->alias, "quoted alias");
  EXPECT_EQ(s.select[1]->alias, "from");

  s = Select("/* lead */ SELECT 1 -- trailing\n; -- after the semicolon\n/* and a block */");
  EXPECT_EQ(s.select.size(), 1u);
  s = Select("SELECT COUNT(*) FROM `my table` WHERE \"Col\" = 1");
  EXPECT_EQ(s.from->name, "my table");
  EXPECT_EQ(s.where->args[0]->name, "Col");
}

TEST(ParserTest, CreateTable) {
  auto create = ParseAs<CreateTableStatement>(
      "CREATE TABLE IF NOT EXISTS default.t (\n"
      "  id UInt64 NOT NULL,\n"
      "  name Nullable(String),\n"
      "  note String NULL DEFAULT '' COMMENT 'free text',\n"
      "  price Decimal(10, 2) DEFAULT 0 CODEC(ZSTD(1)),\n"
      "  d Date\n"
      ") ENGINE = MergeTree() PARTITION BY toYYYYMM(d) ORDER BY (id, d) PRIMARY KEY id\n"
      "SETTINGS index_granularity = 8192");
  EXPECT_EQ(create.name, "default.t");  // kept as written; the executor resolves it
  EXPECT_TRUE(create.if_not_exists);
  EXPECT_FALSE(create.or_replace);
  ASSERT_EQ(create.columns.size(), 5u);
  EXPECT_EQ(create.columns[0].name, "id");
  EXPECT_EQ(create.columns[0].type, "UInt64");
  EXPECT_TRUE(create.columns[0].not_null);
  EXPECT_EQ(create.columns[1].type, "Nullable(String)");
  EXPECT_FALSE(create.columns[1].not_null);
  EXPECT_TRUE(create.columns[2].nullable);
  EXPECT_EQ(create.columns[3].type, "Decimal(10, 2)");
  EXPECT_EQ(create.columns[4].type, "Date");
  EXPECT_EQ(create.engine, "MergeTree");
  EXPECT_EQ(ColumnName(*create.partition_by), "toYYYYMM(d)");
  EXPECT_EQ(Names(create.order_by), (std::vector<std::string>{"id", "d"}));
  EXPECT_EQ(Names(create.primary_key), (std::vector<std::string>{"id"}));
  EXPECT_EQ(create.settings.at("index_granularity"), "8192");

  create = ParseAs<CreateTableStatement>(
      "create or replace table other.t (a BIGINT, b VARCHAR(255), c TEXT, PRIMARY KEY (a, b)) "
      "ENGINE MergeTree ORDER BY tuple()");
  EXPECT_EQ(create.name, "other.t");
  EXPECT_TRUE(create.or_replace);
  EXPECT_EQ(create.columns[1].type, "VARCHAR(255)");
  EXPECT_EQ(Names(create.primary_key), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(create.order_by.empty());

  create = ParseAs<CreateTableStatement>("CREATE TABLE t (x Int32) ORDER BY x;");
  EXPECT_EQ(create.engine, "");
  EXPECT_EQ(Names(create.order_by), (std::vector<std::string>{"x"}));
}

TEST(ParserTest, ClickBenchCreateTable) {
  const std::string path = std::string(kClickBenchDir) + "/create.sql";
  if (!std::ifstream(path).good()) GTEST_SKIP() << path << " is not present";
  auto create = ParseAs<CreateTableStatement>(ReadFile(path));
  EXPECT_EQ(create.name, "hits");
  EXPECT_TRUE(create.or_replace);
  ASSERT_EQ(create.columns.size(), 105u);
  EXPECT_EQ(create.columns[0].name, "WatchID");
  EXPECT_EQ(create.columns[0].type, "BIGINT");
  for (const ColumnDef& column : create.columns) EXPECT_TRUE(column.not_null) << column.name;
  EXPECT_EQ(Names(create.primary_key),
            (std::vector<std::string>{"CounterID", "EventDate", "UserID", "EventTime", "WatchID"}));
  EXPECT_EQ(create.engine, "MergeTree");
  EXPECT_EQ(create.settings.size(), 2u);
}

TEST(ParserTest, ClickBenchQueries) {
  const std::string path = std::string(kClickBenchDir) + "/queries.sql";
  if (!std::ifstream(path).good()) GTEST_SKIP() << path << " is not present";
  std::istringstream lines(ReadFile(path));
  int count = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    ++count;
    SelectStatement select = Select(line);
    ASSERT_TRUE(select.from.has_value()) << "Q" << count;
    EXPECT_EQ(select.from->name, "hits") << "Q" << count;
  }
  EXPECT_EQ(count, 43);
}

TEST(ParserTest, OtherStatements) {
  auto drop = ParseAs<DropTableStatement>("DROP TABLE IF EXISTS default.t SYNC");
  EXPECT_EQ(drop.name, "default.t");
  EXPECT_TRUE(drop.if_exists);
  EXPECT_FALSE(ParseAs<DropTableStatement>("drop table t;").if_exists);

  EXPECT_EQ(ParseAs<ShowTablesStatement>("SHOW TABLES").format, "");
  EXPECT_EQ(ParseAs<ShowTablesStatement>("show tables FORMAT JSON").format, "JSON");

  auto describe = ParseAs<DescribeStatement>("DESCRIBE TABLE hits FORMAT TSV");
  EXPECT_EQ(describe.table, "hits");
  EXPECT_EQ(describe.format, "TSV");
  EXPECT_EQ(ParseAs<DescribeStatement>("DESC t").table, "t");

  auto optimize = ParseAs<OptimizeStatement>("OPTIMIZE TABLE t FINAL");
  EXPECT_EQ(optimize.table, "t");
  EXPECT_TRUE(optimize.final);
  EXPECT_FALSE(ParseAs<OptimizeStatement>("OPTIMIZE TABLE t").final);

  auto kill = ParseAs<KillQueryStatement>("KILL QUERY WHERE query_id = 'abc' SYNC");
  EXPECT_EQ(ColumnName(*kill.where), "equals(query_id, 'abc')");
  EXPECT_NE(ParseAs<KillQueryStatement>("KILL QUERY WHERE user = 'x' ASYNC").where, nullptr);
}

TEST(ParserTest, AlterTableSettings) {
  auto modify = ParseAs<AlterSettingsStatement>(
      "ALTER TABLE default.hits MODIFY SETTING sharding_key = 'UserID', x = 3;");
  EXPECT_EQ(modify.table, "default.hits");
  EXPECT_EQ(modify.modify.at("sharding_key"), "UserID");
  EXPECT_EQ(modify.modify.at("x"), "3");
  EXPECT_TRUE(modify.reset.empty());
  auto reset = ParseAs<AlterSettingsStatement>("alter table t reset setting sharding_key, y");
  EXPECT_EQ(reset.table, "t");
  EXPECT_TRUE(reset.modify.empty());
  EXPECT_EQ(reset.reset, (std::vector<std::string>{"sharding_key", "y"}));
  EXPECT_NE(ErrorOf("ALTER TABLE t FREEZE").find("ADD COLUMN, DROP COLUMN"), std::string::npos);
  EXPECT_NE(ErrorOf("ALTER TABLE t MODIFY SETTING k").find("'='"), std::string::npos);
  ErrorOf("ALTER TABLE t RESET SETTING");
  ErrorOf("ALTER t MODIFY SETTING k = 1");
}

// Issue 22: column defaults in CREATE TABLE and the column commands of ALTER TABLE.
TEST(ParserTest, ColumnDefaultsAndAlterColumns) {
  auto create = ParseAs<CreateTableStatement>(
      "CREATE TABLE t (a UInt32, c DEFAULT a*2, m UInt64 MATERIALIZED a + 1 COMMENT 'it''s', "
      "al String ALIAS toString(a) CODEC(ZSTD)) ORDER BY a");
  ASSERT_EQ(create.columns.size(), 4u);
  EXPECT_EQ(create.columns[1].type, "");
  EXPECT_EQ(create.columns[1].default_kind, "DEFAULT");
  EXPECT_EQ(create.columns[1].default_text, "a*2");
  EXPECT_EQ(ColumnName(*create.columns[1].default_expr), "multiply(a, 2)");
  EXPECT_EQ(create.columns[2].default_kind, "MATERIALIZED");
  EXPECT_EQ(create.columns[2].comment, "it's");
  EXPECT_EQ(create.columns[3].default_kind, "ALIAS");
  EXPECT_EQ(create.columns[3].default_text, "toString(a)");
  EXPECT_EQ(create.columns[3].codec, "ZSTD");

  using Kind = AlterColumnCommand::Kind;
  auto alter = ParseAs<AlterSettingsStatement>(
      "ALTER TABLE db.t ADD COLUMN IF NOT EXISTS x UInt8 DEFAULT 1 AFTER a, ADD COLUMN y String "
      "FIRST, DROP COLUMN IF EXISTS z, RENAME COLUMN a TO b, MODIFY COLUMN c CODEC(LZ4), "
      "MODIFY COLUMN d Nullable(String) COMMENT 'x', COMMENT COLUMN e 'about e'");
  EXPECT_EQ(alter.table, "db.t");
  ASSERT_EQ(alter.columns.size(), 7u);
  EXPECT_EQ(alter.columns[0].kind, Kind::kAdd);
  EXPECT_TRUE(alter.columns[0].if_exists);
  EXPECT_EQ(alter.columns[0].column.type, "UInt8");
  EXPECT_EQ(alter.columns[0].after, "a");
  EXPECT_TRUE(alter.columns[1].first);
  EXPECT_EQ(alter.columns[2].kind, Kind::kDrop);
  EXPECT_TRUE(alter.columns[2].if_exists);
  EXPECT_EQ(alter.columns[3].kind, Kind::kRename);
  EXPECT_EQ(alter.columns[3].new_name, "b");
  EXPECT_EQ(alter.columns[4].kind, Kind::kModify);
  EXPECT_EQ(alter.columns[4].column.type, "");
  EXPECT_EQ(alter.columns[4].column.codec, "LZ4");
  EXPECT_EQ(alter.columns[5].column.type, "Nullable(String)");
  EXPECT_EQ(alter.columns[5].column.comment, "x");
  EXPECT_EQ(alter.columns[6].kind, Kind::kComment);
  EXPECT_EQ(alter.columns[6].column.comment, "about e");
  ErrorOf("ALTER TABLE t ADD COLUMN x");  // neither type nor default
  ErrorOf("ALTER TABLE t RENAME COLUMN a b");
}

TEST(ParserTest, AlterPartsAndCheckTable) {
  auto attach = ParseAs<AlterPartStatement>("ALTER TABLE default.t ATTACH PART 'broken_all_1_1_0'");
  EXPECT_EQ(attach.table, "default.t");
  EXPECT_FALSE(attach.drop_detached);
  EXPECT_EQ(attach.part, "broken_all_1_1_0");
  auto drop = ParseAs<AlterPartStatement>(
      "alter table t drop detached part 'all_1_1_0' settings allow_drop_detached = 1;");
  EXPECT_TRUE(drop.drop_detached);
  EXPECT_EQ(drop.part, "all_1_1_0");
  EXPECT_EQ(drop.settings.at("allow_drop_detached"), "1");
  auto check = ParseAs<CheckTableStatement>("CHECK TABLE t");
  EXPECT_EQ(check.table, "t");
  check = ParseAs<CheckTableStatement>(
      "CHECK TABLE t SETTINGS check_query_single_value_result = 0 FORMAT TSV");
  EXPECT_EQ(check.format, "TSV");
  EXPECT_EQ(check.settings.at("check_query_single_value_result"), "0");
  EXPECT_NE(ErrorOf("ALTER TABLE t ATTACH PART all_1_1_0").find("part name as a string literal"),
            std::string::npos);
  EXPECT_NE(ErrorOf("ALTER TABLE t DROP PART 'x'").find("DETACHED"), std::string::npos);
}

TEST(ParserTest, InsertValues) {
  auto insert = ParseAs<InsertStatement>(
      "INSERT INTO t (a, b, c) VALUES (1, 'x', -2.5), (-3, toDate('2020-01-01'), NULL) "
      "(4, '', 0);");
  EXPECT_EQ(insert.table, "t");
  EXPECT_EQ(insert.columns, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(insert.format, "Values");
  ASSERT_EQ(insert.values.size(), 3u);
  EXPECT_EQ(Names(insert.values[0]), (std::vector<std::string>{"1", "'x'", "-2.5"}));
  EXPECT_EQ(Names(insert.values[1]),
            (std::vector<std::string>{"-3", "toDate('2020-01-01')", "NULL"}));
  EXPECT_EQ(std::get<int64_t>(insert.values[1][0]->value), -3);
  EXPECT_EQ(insert.values[2].size(), 3u);

  insert = ParseAs<InsertStatement>("insert into table default.t values (1)");
  EXPECT_EQ(insert.table, "default.t");
  EXPECT_TRUE(insert.columns.empty());
  EXPECT_EQ(insert.values.size(), 1u);

  insert = ParseAs<InsertStatement>("INSERT INTO t FORMAT Values (1, 2), (3, 4)");
  EXPECT_EQ(insert.format, "Values");
  EXPECT_EQ(insert.values.size(), 2u);
}

TEST(ParserTest, InsertFormatKeepsInlineDataVerbatim) {
  auto insert =
      ParseAs<InsertStatement>("INSERT INTO t FORMAT TabSeparated\n1\t'unclosed\n2\tx;\n");
  EXPECT_EQ(insert.format, "TabSeparated");
  EXPECT_EQ(insert.inline_data, "1\t'unclosed\n2\tx;\n");

  insert = ParseAs<InsertStatement>("INSERT INTO t (a, b) FORMAT CSV  1,2");
  EXPECT_EQ(insert.columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(insert.inline_data, " 1,2");  // only one whitespace character is skipped

  insert = ParseAs<InsertStatement>("INSERT INTO t FORMAT JSONEachRow\r\n{\"a\": 1}");
  EXPECT_EQ(insert.inline_data, "{\"a\": 1}");

  insert = ParseAs<InsertStatement>("INSERT INTO t FORMAT JSONEachRow");
  EXPECT_EQ(insert.format, "JSONEachRow");
  EXPECT_EQ(insert.inline_data, "");
}

TEST(ParserTest, InsertSelect) {
  auto insert = ParseAs<InsertStatement>("INSERT INTO t SELECT number FROM numbers(3) LIMIT 2");
  ASSERT_NE(insert.select, nullptr);
  EXPECT_EQ(insert.select->limit, 2u);
  EXPECT_TRUE(insert.values.empty());
  EXPECT_EQ(insert.format, "");
}

TEST(ParserTest, LongValuesListParses) {
  std::string sql = "INSERT INTO t VALUES ";
  const int rows = 100000;
  for (int i = 0; i < rows; ++i) {
    sql += "(" + std::to_string(i) + ", 'name" + std::to_string(i) + "', -" + std::to_string(i) +
           ".5),";
  }
  sql.back() = ';';
  auto insert = ParseAs<InsertStatement>(sql);
  ASSERT_EQ(insert.values.size(), static_cast<size_t>(rows));
  EXPECT_EQ(std::get<std::string>(insert.values[rows - 1][1]->value), "name99999");
  EXPECT_DOUBLE_EQ(std::get<double>(insert.values[rows - 1][2]->value), -99999.5);
}

TEST(ParserTest, ErrorsNamePositionTokenAndExpectations) {
  std::string error = ErrorOf("SELECT * FORM numbers(10)");
  EXPECT_EQ(error.rfind("Syntax error: failed at position 10 (line 1, col 10) ('FORM'): "
                        "FORM numbers(10). Expected one of: FROM, WHERE",
                        0),
            0u)
      << error;
  // `FORM` is a bare alias of 1 here, so the error is at the next word.
  error = ErrorOf("SELECT 1 FORM numbers(10)");
  EXPECT_NE(error.find("position 15 (line 1, col 15) ('numbers')"), std::string::npos) << error;

  error = ErrorOf("SELECT 1 FROM t LIMIT 1 WHERE x");
  EXPECT_NE(error.find("('WHERE')"), std::string::npos) << error;
  EXPECT_NE(error.find("Expected one of: SETTINGS, FORMAT, ';', end of query"), std::string::npos)
      << error;

  error = ErrorOf("SELECT 1\nFROM t\nWHERE");
  EXPECT_NE(error.find("position 22 (line 3, col 6) (end of query). Expected expression"),
            std::string::npos)
      << error;

  error = ErrorOf("SELECT 'abc");
  EXPECT_NE(error.find("position 8 (line 1, col 8) (''abc'): 'abc. "
                       "Single quoted string is not closed"),
            std::string::npos)
      << error;
  EXPECT_NE(ErrorOf("SELECT 1 ^ 2").find("position 10"), std::string::npos);
  EXPECT_NE(ErrorOf("SELECT 1 ^ 2").find("Unrecognized token"), std::string::npos);
  EXPECT_NE(ErrorOf("SELECT 1 2").find("('2')"), std::string::npos);
  EXPECT_NE(ErrorOf("SELECT 1; SELECT 2").find("multi-statements"), std::string::npos);
  EXPECT_NE(ErrorOf("").find("Empty query"), std::string::npos);
  EXPECT_NE(ErrorOf("  -- nothing\n").find("Empty query"), std::string::npos);
  EXPECT_NE(ErrorOf("SELEC 1").find("Expected one of: SELECT, INSERT"), std::string::npos);
  EXPECT_NE(ErrorOf("SELECT FROM t").find("position 8"), std::string::npos);
  EXPECT_NE(ErrorOf("SELECT x FROM WHERE").find("Expected table name"), std::string::npos);
  EXPECT_NE(ErrorOf("SELECT x LIMIT -1").find("Expected unsigned integer"), std::string::npos);
  EXPECT_NE(ErrorOf("SELECT x LIMIT 1.5").find("Expected unsigned integer"), std::string::npos);
  EXPECT_NE(ErrorOf("CREATE TABLE t (a)").find("Expected data type"), std::string::npos);
  EXPECT_NE(ErrorOf("CREATE TABLE t (a Int32").find("Expected ')'"), std::string::npos);
  EXPECT_NE(ErrorOf("CREATE TABLE t (a Int32) ENGINE = Log extra").find("ENGINE, PARTITION BY"),
            std::string::npos);
  EXPECT_NE(ErrorOf("INSERT INTO t").find("VALUES, FORMAT, SELECT"), std::string::npos);
  EXPECT_NE(ErrorOf("INSERT INTO t VALUES (1, 'x)").find("not closed"), std::string::npos);
  EXPECT_NE(ErrorOf("INSERT INTO t VALUES").find("Expected '('"), std::string::npos);
  EXPECT_NE(ErrorOf("DROP TABLE").find("Expected table name"), std::string::npos);
  EXPECT_NE(ErrorOf("SHOW DATABASE").find("Expected one of: TABLES, DATABASES"), std::string::npos);
  EXPECT_NE(ErrorOf("KILL QUERY").find("Expected WHERE"), std::string::npos);
  // The excerpt is cut after 40 bytes.
  error = ErrorOf("SELECT 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20");
  EXPECT_NE(error.find("('2'): 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17. Expected"),
            std::string::npos)
      << error;
}

// Feeds random byte strings, token soups and every prefix of valid statements: the parser must
// return OK or SYNTAX_ERROR and never crash.
TEST(ParserTest, ArbitraryInputNeverCrashes) {
  const std::vector<std::string> valid = {
      "SELECT a, count(DISTINCT b) AS c FROM db.t x WHERE a IN (1, -2) AND b NOT LIKE '%\\.%' "
      "GROUP BY a HAVING c > 1 ORDER BY c DESC NULLS LAST LIMIT 5, 10 SETTINGS s = 1 FORMAT TSV;",
      "SELECT CASE WHEN x BETWEEN 1 AND 2 THEN CAST(x AS Nullable(String)) ELSE 'e' END, "
      "extract(MINUTE FROM t), DATE '2020-01-01', -1::UInt8, (1, 2), `q`.\"r\" /* c */",
      "CREATE OR REPLACE TABLE IF NOT EXISTS t (a BIGINT NOT NULL, b VARCHAR(255) DEFAULT 'x', "
      "PRIMARY KEY (a)) ENGINE = MergeTree() PARTITION BY a ORDER BY (a, b) SETTINGS x = 'y'",
      "INSERT INTO t (a, b) VALUES (1, 'a'), (-2, toDate('2020-01-01'))",
      "INSERT INTO t FORMAT CSV\n1,2\n",
      "KILL QUERY WHERE query_id = 'x' SYNC",
      "DESCRIBE TABLE t FORMAT JSON",
  };
  auto check = [](const std::string& sql) {
    auto parsed = ParseStatement(sql);
    if (!parsed.ok()) {
      ASSERT_EQ(core::CodeOf(parsed.status()), core::ErrorCode::kSyntaxError)
          << sql << "\n" << parsed.status();
    }
  };
  for (const std::string& sql : valid) {
    ASSERT_TRUE(ParseStatement(sql).ok()) << sql << "\n" << ParseStatement(sql).status();
    for (size_t length = 0; length <= sql.size(); ++length) check(sql.substr(0, length));
  }
  std::mt19937 random(42);
  const std::vector<std::string> pieces = {
      "SELECT", "FROM", "WHERE", "(", ")", ",", "'", "\"", "`", "1", "-", "+", "*", "::", "NOT",
      "AND", "OR", "IN", "CASE", "WHEN", "THEN", "END", "CAST", "AS", "x", ".", ";", "/*", "*/",
      "--", "\n", "1e", "0x", "\\", "INSERT", "INTO", "VALUES", "FORMAT", "LIMIT", "BETWEEN",
      "extract", "FROM", "DATE", "'s'", "NULL", "IS", "ORDER", "BY", "GROUP", "CREATE", "TABLE"};
  for (int i = 0; i < 3000; ++i) {
    std::string sql;
    const int length = static_cast<int>(random() % 20);
    for (int j = 0; j < length; ++j) {
      if (random() % 4 == 0) {
        sql.push_back(static_cast<char>(random() % 256));
      } else {
        sql += pieces[random() % pieces.size()];
        sql.push_back(' ');
      }
    }
    check(sql);
    check("SELECT " + sql);
  }
}

}  // namespace
}  // namespace granite::coordinator::sql
