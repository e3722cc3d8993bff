// Parser tests for the relational syntax: joins, subqueries, WITH and set operators.
#include <string>

#include "coordinator/sql/parser.h"
#include "core/error.h"
#include "gtest/gtest.h"

namespace granite::coordinator::sql {
namespace {

SelectStatement Select(std::string_view sql) {
  auto parsed = ParseStatement(sql);
  EXPECT_TRUE(parsed.ok()) << sql << "\n" << parsed.status();
  if (!parsed.ok()) return {};
  const auto* select = std::get_if<SelectStatement>(&*parsed);
  EXPECT_NE(select, nullptr);
  return select ? *select : SelectStatement{};
}

core::ErrorCode CodeOf(std::string_view sql) {
  auto parsed = ParseStatement(sql);
  EXPECT_FALSE(parsed.ok()) << sql;
  return parsed.ok() ? core::ErrorCode::kOk : core::CodeOf(parsed.status());
}

TEST(ParserJoins, KindsStrictnessAndConditions) {
  SelectStatement s = Select(
      "SELECT * FROM a AS x LEFT OUTER JOIN b ON x.k = b.k AND b.v > 1 "
      "ANY INNER JOIN c USING (k, m) CROSS JOIN d, e RIGHT ANTI JOIN f ON f.k = x.k "
      "GLOBAL FULL JOIN g USING k");
  ASSERT_EQ(s.joins.size(), 6u);
  EXPECT_EQ(s.from->alias, "x");
  EXPECT_EQ(s.joins[0].kind, JoinKind::kLeft);
  EXPECT_EQ(ColumnName(*s.joins[0].on), "and(equals(k, k), greater(v, 1))");
  EXPECT_EQ(s.joins[1].strictness, JoinStrictness::kAny);
  EXPECT_EQ(s.joins[1].using_columns, (std::vector<std::string>{"k", "m"}));
  EXPECT_EQ(s.joins[2].kind, JoinKind::kCross);
  EXPECT_TRUE(s.joins[3].comma);
  EXPECT_EQ(s.joins[3].table.name, "e");
  EXPECT_EQ(s.joins[4].kind, JoinKind::kRight);
  EXPECT_EQ(s.joins[4].strictness, JoinStrictness::kAnti);
  EXPECT_EQ(s.joins[5].kind, JoinKind::kFull);
  EXPECT_EQ(s.joins[5].using_columns, (std::vector<std::string>{"k"}));
}

TEST(ParserJoins, QualifiedStar) {
  SelectStatement s = Select("SELECT t.*, u.v FROM t JOIN u ON t.k = u.k");
  ASSERT_EQ(s.select.size(), 2u);
  EXPECT_EQ(s.select[0]->kind, ExprKind::kStar);
  EXPECT_EQ(s.select[0]->qualifier, "t");
  EXPECT_EQ(s.select[1]->qualifier, "u");
}

TEST(ParserJoins, Subqueries) {
  SelectStatement s = Select(
      "SELECT (SELECT max(x) FROM t) AS m FROM (SELECT 1 AS x) AS sub "
      "WHERE x IN (SELECT y FROM u) AND NOT EXISTS (SELECT 1) AND x GLOBAL NOT IN ((SELECT 2))");
  EXPECT_EQ(s.select[0]->kind, ExprKind::kSubquery);
  EXPECT_EQ(s.select[0]->alias, "m");
  ASSERT_TRUE(s.from->subquery);
  EXPECT_EQ(s.from->alias, "sub");
  const Expr& where = *s.where;
  ASSERT_EQ(where.args.size(), 3u);
  EXPECT_EQ(where.args[0]->name, "in");
  EXPECT_EQ(where.args[0]->args[1]->kind, ExprKind::kSubquery);
  EXPECT_EQ(where.args[1]->name, "not");
  EXPECT_EQ(where.args[1]->args[0]->name, "exists");
  EXPECT_EQ(where.args[2]->name, "notIn");
  EXPECT_EQ(where.args[2]->args[1]->kind, ExprKind::kSubquery);
  // A parenthesized list is still a tuple.
  EXPECT_EQ(ColumnName(*Select("SELECT 1 WHERE x IN (1, 2)").where), "in(x, (1, 2))");
}

TEST(ParserJoins, WithClause) {
  SelectStatement s = Select("WITH a AS (SELECT 1 AS x), 5 AS five, b AS (SELECT x FROM a) "
                             "SELECT x + five FROM b");
  ASSERT_EQ(s.with.size(), 3u);
  EXPECT_EQ(s.with[0].name, "a");
  ASSERT_TRUE(s.with[0].subquery);
  EXPECT_EQ(s.with[1].name, "five");
  ASSERT_TRUE(s.with[1].expr);
  EXPECT_EQ(s.with[1].expr->alias, "five");
  EXPECT_TRUE(s.with[2].subquery);
}

TEST(ParserJoins, SetOperators) {
  SelectStatement s = Select(
      "SELECT 1 UNION ALL (SELECT 2) UNION DISTINCT SELECT 3 INTERSECT SELECT 4 EXCEPT DISTINCT "
      "SELECT 5 FORMAT JSON SETTINGS max_threads = 1");
  ASSERT_EQ(s.set_operands.size(), 4u);
  EXPECT_EQ(s.set_operands[0].first, SetOperator::kUnionAll);
  EXPECT_EQ(s.set_operands[1].first, SetOperator::kUnionDistinct);
  EXPECT_EQ(s.set_operands[2].first, SetOperator::kIntersect);
  EXPECT_EQ(s.set_operands[3].first, SetOperator::kExceptDistinct);
  EXPECT_EQ(s.format, "JSON");  // moved from the last operand to the query
  EXPECT_EQ(s.settings.at("max_threads"), "1");
  EXPECT_TRUE(s.set_operands[3].second->format.empty());
}

TEST(ParserJoins, Interval) {
  EXPECT_EQ(ColumnName(*Select("SELECT DATE '1998-12-01' - INTERVAL '90' DAY").select[0]),
            "subtractDays(toDate('1998-12-01'), 90)");
  EXPECT_EQ(ColumnName(*Select("SELECT d + INTERVAL 3 months").select[0]), "addMonths(d, 3)");
  EXPECT_EQ(ColumnName(*Select("SELECT d + interval '1 year'").select[0]), "addYears(d, 1)");
  EXPECT_EQ(ColumnName(*Select("SELECT INTERVAL 2 HOUR").select[0]), "toIntervalHour(2)");
  EXPECT_EQ(CodeOf("SELECT INTERVAL 2 FORTNIGHT"), core::ErrorCode::kSyntaxError);
  EXPECT_EQ(CodeOf("SELECT INTERVAL 'x' DAY"), core::ErrorCode::kSyntaxError);
}

TEST(ParserJoins, Errors) {
  EXPECT_EQ(CodeOf("SELECT 1 UNION SELECT 2"), core::ErrorCode::kExpectedAllOrDistinct);
  EXPECT_EQ(CodeOf("SELECT * FROM a JOIN b"), core::ErrorCode::kSyntaxError);
  EXPECT_EQ(CodeOf("SELECT * FROM a INNER SEMI JOIN b ON a.k = b.k"), core::ErrorCode::kSyntaxError);
  EXPECT_EQ(CodeOf("SELECT * FROM a ASOF JOIN b ON a.k = b.k"), core::ErrorCode::kSyntaxError);
  EXPECT_EQ(CodeOf("SELECT * FROM (SELECT 1"), core::ErrorCode::kSyntaxError);
  EXPECT_EQ(CodeOf("WITH a AS (SELECT 1) INSERT"), core::ErrorCode::kSyntaxError);
}

}  // namespace
}  // namespace granite::coordinator::sql
