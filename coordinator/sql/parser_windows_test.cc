// Parser tests for window functions, QUALIFY, LIMIT BY, grouping sets, WITH TOTALS and CREATE
// VIEW.
#include <string>

#include "coordinator/sql/parser.h"
#include "core/error.h"
#include "gtest/gtest.h"

namespace granite::coordinator::sql {
namespace {

Statement Parse(std::string_view sql) {
  auto parsed = ParseStatement(sql);
  EXPECT_TRUE(parsed.ok()) << sql << "\n" << parsed.status();
  return parsed.ok() ? *parsed : Statement{};
}

SelectStatement Select(std::string_view sql) {
  Statement statement = Parse(sql);
  const auto* select = std::get_if<SelectStatement>(&statement);
  EXPECT_NE(select, nullptr);
  return select ? *select : SelectStatement{};
}

TEST(ParserWindows, OverClausesAndTheirClickHouseNames) {
  SelectStatement s = Select(
      "SELECT sum(x) OVER (PARTITION BY a, b ORDER BY c DESC, d ROWS BETWEEN 2 PRECEDING AND "
      "CURRENT ROW), row_number() OVER (), count() OVER w, max(x) OVER (w ORDER BY e "
      "RANGE 3 PRECEDING), quantile(0.5)(x) OVER () FROM t "
      "WINDOW w AS (PARTITION BY a) QUALIFY row_number() OVER () = 1");
  ASSERT_EQ(s.select.size(), 5u);
  ASSERT_NE(s.select[0]->over, nullptr);
  EXPECT_EQ(s.select[0]->over->partition_by.size(), 2u);
  EXPECT_TRUE(s.select[0]->over->order_by[0].descending);
  ASSERT_TRUE(s.select[0]->over->frame.has_value());
  EXPECT_TRUE(s.select[0]->over->frame->rows);
  EXPECT_EQ(s.select[0]->over->frame->begin.kind, FrameBound::Kind::kPreceding);
  EXPECT_EQ(ColumnName(*s.select[0]),
            "sum(x) OVER (PARTITION BY a, b ORDER BY c DESC, d ASC ROWS BETWEEN 2 PRECEDING AND "
            "CURRENT ROW)");
  EXPECT_EQ(ColumnName(*s.select[1]), "row_number() OVER ()");
  EXPECT_EQ(ColumnName(*s.select[2]), "count() OVER w");
  EXPECT_EQ(s.select[3]->over->base, "w");
  EXPECT_FALSE(s.select[3]->over->frame->rows);
  EXPECT_EQ(s.select[3]->over->frame->end.kind, FrameBound::Kind::kCurrentRow);
  EXPECT_EQ(s.select[4]->name, "quantile(0.5)");
  ASSERT_NE(s.select[4]->over, nullptr);
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.windows[0].first, "w");
  EXPECT_NE(s.qualify, nullptr);
}

TEST(ParserWindows, BadFramesAreSyntaxErrors) {
  for (const char* sql : {"SELECT sum(x) OVER (ROWS BETWEEN x PRECEDING AND CURRENT ROW) FROM t",
                          "SELECT sum(x) OVER (ROWS BETWEEN 1 AND 2) FROM t",
                          "SELECT sum(x) OVER (ORDER BY a FROM t",
                          "SELECT sum(x) OVER 1 FROM t"}) {
    auto parsed = ParseStatement(sql);
    ASSERT_FALSE(parsed.ok()) << sql;
    EXPECT_EQ(core::CodeOf(parsed.status()), core::ErrorCode::kSyntaxError) << sql;
  }
}

TEST(ParserWindows, LimitBy) {
  SelectStatement s = Select("SELECT a FROM t ORDER BY a LIMIT 2 OFFSET 1 BY a, b LIMIT 5");
  EXPECT_EQ(s.limit_by.size(), 2u);
  EXPECT_EQ(s.limit_by_limit, 2u);
  EXPECT_EQ(s.limit_by_offset, 1u);
  EXPECT_EQ(s.limit, 5u);
  SelectStatement comma = Select("SELECT a FROM t LIMIT 1, 3 BY a");
  EXPECT_EQ(comma.limit_by_limit, 3u);
  EXPECT_EQ(comma.limit_by_offset, 1u);
  EXPECT_FALSE(comma.limit.has_value());
  SelectStatement plain = Select("SELECT a FROM t LIMIT 4 OFFSET 2");
  EXPECT_TRUE(plain.limit_by.empty());
  EXPECT_EQ(plain.limit, 4u);
  EXPECT_EQ(plain.offset, 2u);
}

TEST(ParserWindows, GroupingSets) {
  SelectStatement rollup = Select("SELECT a, b, count() FROM t GROUP BY ROLLUP(a, b)");
  ASSERT_EQ(rollup.grouping_sets.size(), 3u);
  EXPECT_EQ(rollup.grouping_sets[0].size(), 2u);
  EXPECT_TRUE(rollup.grouping_sets[2].empty());
  EXPECT_EQ(rollup.group_by.size(), 2u);
  SelectStatement cube = Select("SELECT a, b, count() FROM t GROUP BY a, b WITH CUBE WITH TOTALS");
  ASSERT_EQ(cube.grouping_sets.size(), 4u);
  EXPECT_EQ(ColumnName(*cube.grouping_sets[1][0]), "a");
  EXPECT_EQ(ColumnName(*cube.grouping_sets[2][0]), "b");
  EXPECT_TRUE(cube.with_totals);
  SelectStatement sets = Select("SELECT a, b, count() FROM t GROUP BY GROUPING SETS ((a, b), b, ())");
  ASSERT_EQ(sets.grouping_sets.size(), 3u);
  EXPECT_EQ(sets.grouping_sets[1].size(), 1u);
  EXPECT_TRUE(sets.grouping_sets[2].empty());
  EXPECT_EQ(sets.group_by.size(), 2u);  // a, b once each
}

TEST(ParserWindows, CreateAndDropView) {
  Statement statement = Parse("CREATE OR REPLACE VIEW v (x, y) AS SELECT a, b FROM t WHERE a > 1 ;");
  const auto* create = std::get_if<CreateTableStatement>(&statement);
  ASSERT_NE(create, nullptr);
  EXPECT_TRUE(create->or_replace);
  ASSERT_NE(create->view, nullptr);
  EXPECT_EQ(create->view_query, "SELECT a, b FROM t WHERE a > 1");
  EXPECT_EQ(create->view_columns, (std::vector<std::string>{"x", "y"}));
  Statement drop = Parse("DROP VIEW IF EXISTS v");
  ASSERT_NE(std::get_if<DropTableStatement>(&drop), nullptr);
  EXPECT_TRUE(std::get<DropTableStatement>(drop).view);
  EXPECT_FALSE(ParseStatement("CREATE VIEW v AS INSERT INTO t VALUES (1)").ok());
}

}  // namespace
}  // namespace granite::coordinator::sql
