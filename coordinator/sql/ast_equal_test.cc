#include "coordinator/sql/ast_equal.h"

#include <string_view>

#include "coordinator/exec/subquery_memo.h"
#include "coordinator/sql/parser.h"
#include "gtest/gtest.h"

namespace granite::coordinator::sql {
namespace {

SelectStatement Select(std::string_view sql) {
  absl::StatusOr<Statement> parsed = ParseStatement(sql);
  EXPECT_TRUE(parsed.ok()) << sql << ": " << parsed.status();
  if (!parsed.ok() || !std::holds_alternative<SelectStatement>(*parsed)) return {};
  return std::get<SelectStatement>(*parsed);
}

bool Same(std::string_view a, std::string_view b) { return SameSelect(Select(a), Select(b)); }

// Spacing, comments and positions do not matter; every clause does.
TEST(AstEqualTest, SameTreeWhateverTheSpacing) {
  EXPECT_TRUE(Same("SELECT k, sum(v) FROM t WHERE d >= '2024-01-01' GROUP BY k",
                   "SELECT  k,sum(v)\nFROM t /* c */ WHERE d >= '2024-01-01'   GROUP BY k"));
  EXPECT_TRUE(Same("SELECT a.x FROM (SELECT x FROM t) AS a JOIN u ON a.x = u.x ORDER BY 1 LIMIT 3",
                   "SELECT a.x FROM (SELECT x FROM t) AS a JOIN u ON a.x = u.x ORDER BY 1 LIMIT 3"));
  EXPECT_TRUE(Same("SELECT sum(x) OVER (PARTITION BY g ORDER BY y ROWS 2 PRECEDING) FROM t",
                   "SELECT sum(x) OVER (PARTITION BY g ORDER BY y ROWS 2 PRECEDING) FROM t"));
}

TEST(AstEqualTest, AnyDifferenceMakesTwoTrees) {
  const std::string_view base = "SELECT k, sum(v) FROM t WHERE d > 1 GROUP BY k";
  for (std::string_view other : {
           "SELECT k, sum(v) FROM t WHERE d > 2 GROUP BY k",        // a literal
           "SELECT k, sum(w) FROM t WHERE d > 1 GROUP BY k",        // a column
           "SELECT k, sum(v) FROM u WHERE d > 1 GROUP BY k",        // a table
           "SELECT k, sum(v) AS s FROM t WHERE d > 1 GROUP BY k",   // an alias
           "SELECT k, sum(v) FROM t WHERE d > 1 GROUP BY k LIMIT 1",
           "SELECT k, sum(v) FROM t WHERE d > 1 GROUP BY k ORDER BY k",
           "SELECT k, sum(v) FROM t WHERE d > 1 GROUP BY k SETTINGS max_threads = 1",
           "SELECT k, sum(v) FROM t WHERE d > 1 GROUP BY k WITH TOTALS",
           "SELECT DISTINCT k, sum(v) FROM t WHERE d > 1 GROUP BY k",
           "SELECT k, sum(v) FROM t WHERE d > 1 GROUP BY k UNION ALL SELECT 1, 2",
           "SELECT k, sum(DISTINCT v) FROM t WHERE d > 1 GROUP BY k",
           "SELECT k, sum(v) FROM t WHERE d > 1 GROUP BY k HAVING sum(v) > 0",
       }) {
    EXPECT_FALSE(Same(base, other)) << other;
  }
  EXPECT_FALSE(Same("SELECT x FROM t AS a LEFT JOIN u ON a.x = u.x",
                    "SELECT x FROM t AS a INNER JOIN u ON a.x = u.x"));
  EXPECT_FALSE(Same("SELECT (SELECT max(x) FROM t)", "SELECT (SELECT min(x) FROM t)"));
  EXPECT_FALSE(Same("SELECT sum(x) OVER (ORDER BY y ROWS 2 PRECEDING) FROM t",
                    "SELECT sum(x) OVER (ORDER BY y ROWS 3 PRECEDING) FROM t"));
  EXPECT_FALSE(Same("SELECT x FROM t ORDER BY x NULLS FIRST", "SELECT x FROM t ORDER BY x"));
}

// Shared results: never for calls that vary from call to call, table functions or system tables.
TEST(AstEqualTest, OnlyRepeatableSubqueriesAreShared) {
  EXPECT_TRUE(SubqueryMemo::Shareable(Select("SELECT k, sum(v) FROM t GROUP BY k")));
  EXPECT_TRUE(SubqueryMemo::Shareable(Select("SELECT now(), max(x) FROM (SELECT x FROM t)")));
  for (std::string_view sql : {
           "SELECT rand() FROM t",
           "SELECT x FROM t WHERE x > (SELECT randConstant())",
           "SELECT generateUUIDv4()",
           "SELECT x FROM (SELECT x, rowNumberInAllBlocks() AS r FROM t)",
           "SELECT number FROM numbers(10)",
           "SELECT name FROM system.tables",
           "SELECT x FROM t JOIN (SELECT rand64() AS r) AS u ON 1",
           "SELECT x FROM t UNION ALL SELECT rand()",
       }) {
    EXPECT_FALSE(SubqueryMemo::Shareable(Select(sql))) << sql;
  }
}

}  // namespace
}  // namespace granite::coordinator::sql
