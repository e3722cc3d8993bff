// Expressions through the public API: ParseStatement("SELECT <expr>") and ColumnName.
#include "coordinator/sql/expression_parser.h"

#include <cstdint>
#include <limits>
#include <string>

#include "core/error.h"
#include "coordinator/sql/parser.h"
#include "gtest/gtest.h"

namespace granite::coordinator::sql {
namespace {

// Parses "SELECT <expr>" and returns the first select item (a null literal on failure).
ExprPtr ParseExpr(const std::string& expr) {
  auto parsed = ParseStatement("SELECT " + expr);
  EXPECT_TRUE(parsed.ok()) << expr << ": " << parsed.status();
  if (!parsed.ok()) return std::make_shared<Expr>();
  const auto& select = std::get<SelectStatement>(*parsed);
  EXPECT_EQ(select.select.size(), 1u) << expr;
  return select.select.front();
}

// Returns the ClickHouse column name of `expr`, which spells out the parsed tree.
std::string Tree(const std::string& expr) { return ColumnName(*ParseExpr(expr)); }

// Returns the message of the error parsing `expr` gives; expects SYNTAX_ERROR, or the depth
// limits' codes for messages about them.
std::string ErrorOf(const std::string& expr) {
  auto parsed = ParseStatement("SELECT " + expr);
  EXPECT_FALSE(parsed.ok()) << expr;
  if (parsed.ok()) return "";
  std::string message(parsed.status().message());
  core::ErrorCode expected = core::ErrorCode::kSyntaxError;
  if (message.find("Maximum parse depth") != std::string::npos) {
    expected = core::ErrorCode::kTooDeepRecursion;
  } else if (message.find("Maximum expression depth") != std::string::npos) {
    expected = core::ErrorCode::kTooDeepAst;
  }
  EXPECT_EQ(core::CodeOf(parsed.status()), expected) << message;
  return message;
}

TEST(ExpressionParserTest, ArithmeticPrecedence) {
  EXPECT_EQ(Tree("1 + 2 * 3"), "plus(1, multiply(2, 3))");
  EXPECT_EQ(Tree("(1 + 2) * 3"), "multiply(plus(1, 2), 3)");
  EXPECT_EQ(Tree("a - b - c"), "minus(minus(a, b), c)");
  EXPECT_EQ(Tree("a / b % c"), "modulo(divide(a, b), c)");
  EXPECT_EQ(Tree("a DIV 2 + b MOD 3"), "plus(intDiv(a, 2), modulo(b, 3))");
  EXPECT_EQ(Tree("-a * b"), "multiply(negate(a), b)");
  EXPECT_EQ(Tree("- -a"), "negate(negate(a))");
  EXPECT_EQ(Tree("a || 'x' || b"), "concat(concat(a, 'x'), b)");
  EXPECT_EQ(Tree("number % 10000"), "modulo(number, 10000)");
}

TEST(ExpressionParserTest, Lambdas) {
  // ClickHouse's tree and column name: lambda(tuple(params), body); the body binds loosest.
  EXPECT_EQ(Tree("arrayMap(x -> x + 1, a)"), "arrayMap(lambda(tuple(x), plus(x, 1)), a)");
  EXPECT_EQ(Tree("arrayFilter(x -> x > 1 AND x < 5, a)"),
            "arrayFilter(lambda(tuple(x), and(greater(x, 1), less(x, 5))), a)");
  EXPECT_EQ(Tree("arrayMap((x, y) -> x * y, a, b)"),
            "arrayMap(lambda(tuple(x, y), multiply(x, y)), a, b)");
  EXPECT_EQ(Tree("arrayMap((x) -> x, a)"), "arrayMap(lambda(tuple(x), x), a)");
  EXPECT_EQ(Tree("arrayMap(x -> arrayMap(y -> x + y, b), a)"),
            "arrayMap(lambda(tuple(x), arrayMap(lambda(tuple(y), plus(x, y)), b)), a)");
  // Only names may stand before the arrow.
  EXPECT_NE(ErrorOf("1 -> 2").find("Expected a lambda parameter name"), std::string::npos);
  EXPECT_NE(ErrorOf("f((x, 1) -> x, a)").find("Expected a lambda parameter name"),
            std::string::npos);
  EXPECT_NE(ErrorOf("f(t.x -> x, a)").find("Expected a lambda parameter name"), std::string::npos);
  // The written-out form is the same tree; any other shape is refused where it is written
  // (`lambda(s != 'x')` reached the binder with one argument and read past it: fuzz/sql_bind).
  EXPECT_EQ(Tree("arrayMap(lambda(tuple(x), x + 1), a)"), "arrayMap(lambda(tuple(x), plus(x, 1)), a)");
  EXPECT_EQ(Tree("arrayMap(lambda(x, x + 1), a)"), "arrayMap(lambda(tuple(x), plus(x, 1)), a)");
  for (const char* bad : {"lambda(s != 'x')", "lambda()", "lambda(tuple(x), x, x)",
                          "lambda(tuple(), 1)", "lambda(tuple(x + 1), 1)", "lambda(1, 1)",
                          "arrayMap(lambda(tuple(t.x), 1), a)"}) {
    EXPECT_NE(ErrorOf(bad).find("lambda"), std::string::npos) << bad;
  }
}

TEST(ExpressionParserTest, LogicalPrecedence) {
  EXPECT_EQ(Tree("a OR b AND c"), "or(a, and(b, c))");
  EXPECT_EQ(Tree("a AND b OR c"), "or(and(a, b), c)");
  EXPECT_EQ(Tree("a AND b AND c"), "and(a, b, c)");
  EXPECT_EQ(Tree("a OR b OR c"), "or(a, b, c)");
  EXPECT_EQ(Tree("NOT a = b"), "not(equals(a, b))");
  EXPECT_EQ(Tree("NOT a AND b"), "and(not(a), b)");
  EXPECT_EQ(Tree("NOT NOT a"), "not(not(a))");
  EXPECT_EQ(Tree("a = 1 + 2"), "equals(a, plus(1, 2))");
  EXPECT_EQ(Tree("a + 1 > b * 2 AND c"), "and(greater(plus(a, 1), multiply(b, 2)), c)");
}

TEST(ExpressionParserTest, Comparisons) {
  EXPECT_EQ(Tree("a = 1"), "equals(a, 1)");
  EXPECT_EQ(Tree("a == 1"), "equals(a, 1)");
  EXPECT_EQ(Tree("a != 1"), "notEquals(a, 1)");
  EXPECT_EQ(Tree("a <> 1"), "notEquals(a, 1)");
  EXPECT_EQ(Tree("a < 1"), "less(a, 1)");
  EXPECT_EQ(Tree("a > 1"), "greater(a, 1)");
  EXPECT_EQ(Tree("a <= 1"), "lessOrEquals(a, 1)");
  EXPECT_EQ(Tree("a >= 1"), "greaterOrEquals(a, 1)");
}

TEST(ExpressionParserTest, LikeInBetweenIsNull) {
  EXPECT_EQ(Tree("a LIKE '%x%'"), "like(a, '%x%')");
  EXPECT_EQ(Tree("a NOT LIKE 'x'"), "notLike(a, 'x')");
  EXPECT_EQ(Tree("a ilike 'x'"), "ilike(a, 'x')");
  EXPECT_EQ(Tree("a NOT ILIKE 'x'"), "notILike(a, 'x')");
  EXPECT_EQ(Tree("x IN (1, 2)"), "in(x, (1, 2))");
  EXPECT_EQ(Tree("x IN (1)"), "in(x, (1))");
  EXPECT_EQ(Tree("x NOT IN ('a', 'b')"), "notIn(x, ('a', 'b'))");
  EXPECT_EQ(Tree("x IN (-1, 6)"), "in(x, (-1, 6))");
  EXPECT_EQ(Tree("a BETWEEN 1 AND 2"), "and(greaterOrEquals(a, 1), lessOrEquals(a, 2))");
  EXPECT_EQ(Tree("a NOT BETWEEN 1 AND 2"), "or(less(a, 1), greater(a, 2))");
  EXPECT_EQ(Tree("a BETWEEN 1 AND 2 AND b"),
            "and(and(greaterOrEquals(a, 1), lessOrEquals(a, 2)), b)");
  EXPECT_EQ(Tree("a IS NULL"), "isNull(a)");
  EXPECT_EQ(Tree("a IS NOT NULL"), "isNotNull(a)");
  EXPECT_EQ(Tree("NOT a IS NULL"), "not(isNull(a))");
}

TEST(ExpressionParserTest, CaseCastExtractAndTypedLiterals) {
  EXPECT_EQ(Tree("CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END"), "multiIf(a, 1, b, 2, 3)");
  EXPECT_EQ(Tree("CASE WHEN (a = 0 AND b = 0) THEN r ELSE '' END"),
            "multiIf(and(equals(a, 0), equals(b, 0)), r, '')");
  EXPECT_EQ(Tree("case when a then 1 end"), "multiIf(a, 1, NULL)");
  EXPECT_EQ(Tree("CASE x WHEN 1 THEN 'a' ELSE 'b' END"), "caseWithExpression(x, 1, 'a', 'b')");
  EXPECT_EQ(Tree("CAST(x AS VARCHAR(255))"), "CAST(x, 'VARCHAR(255)')");
  EXPECT_EQ(Tree("cast(x AS Nullable(String))"), "CAST(x, 'Nullable(String)')");
  EXPECT_EQ(Tree("CAST(x AS DOUBLE PRECISION)"), "CAST(x, 'DOUBLE PRECISION')");
  EXPECT_EQ(Tree("CAST(x, 'UInt8')"), "CAST(x, 'UInt8')");
  EXPECT_EQ(Tree("x::UInt8 + 1"), "plus(CAST(x, 'UInt8'), 1)");
  EXPECT_EQ(Tree("x::DateTime64(3, 'UTC')"), "CAST(x, 'DateTime64(3, \\'UTC\\')')");
  EXPECT_EQ(Tree("-1::UInt8"), "CAST(-1, 'UInt8')");
  EXPECT_EQ(Tree("-x::UInt8"), "negate(CAST(x, 'UInt8'))");
  EXPECT_EQ(Tree("extract(MINUTE FROM EventTime)"), "toMinute(EventTime)");
  EXPECT_EQ(Tree("EXTRACT(second from t)"), "toSecond(t)");
  EXPECT_EQ(Tree("extract(HOUR FROM t)"), "toHour(t)");
  EXPECT_EQ(Tree("extract(DAY FROM t)"), "toDayOfMonth(t)");
  EXPECT_EQ(Tree("extract(MONTH FROM t)"), "toMonth(t)");
  EXPECT_EQ(Tree("extract(YEAR FROM t)"), "toYear(t)");
  EXPECT_EQ(Tree("extract(s, '[0-9]+')"), "extract(s, '[0-9]+')");  // the string function
  EXPECT_EQ(Tree("DATE '2020-01-01'"), "toDate('2020-01-01')");
  EXPECT_EQ(Tree("TIMESTAMP '2020-01-01 10:00:00'"), "toDateTime('2020-01-01 10:00:00')");
  EXPECT_EQ(Tree("date"), "date");  // still a column name on its own
}

TEST(ExpressionParserTest, FunctionsTuplesAndIdentifiers) {
  EXPECT_EQ(Tree("count()"), "count()");
  EXPECT_EQ(Tree("count(*)"), "count()");
  EXPECT_EQ(Tree("plus(number, 1)"), "plus(number, 1)");
  EXPECT_EQ(Tree("if(a, b, c)"), "if(a, b, c)");
  EXPECT_EQ(Tree("left(s, 2)"), "left(s, 2)");
  EXPECT_EQ(Tree("right(s, 2)"), "right(s, 2)");
  EXPECT_EQ(Tree("replace(s, 'a', 'b')"), "replace(s, 'a', 'b')");
  EXPECT_EQ(Tree("not(a)"), "not(a)");
  EXPECT_EQ(Tree("REGEXP_REPLACE(r, '^(x)\\.$', '\\1')"),
            "REGEXP_REPLACE(r, '^(x)\\\\.$', '\\\\1')");
  EXPECT_EQ(Tree("(1, 'a')"), "(1, 'a')");
  EXPECT_EQ(Tree("((a))"), "a");
  EXPECT_EQ(Tree("()"), "()");
  EXPECT_EQ(Tree("f(g(h(x)), y)"), "f(g(h(x)), y)");

  ExprPtr distinct = ParseExpr("COUNT(DISTINCT UserID)");
  EXPECT_TRUE(distinct->distinct);
  EXPECT_EQ(distinct->name, "COUNT");
  EXPECT_EQ(ColumnName(*ParseExpr("count(DISTINCT x)")), "countDistinct(x)");

  ExprPtr star = ParseExpr("count(*)");
  ASSERT_EQ(star->args.size(), 1u);
  EXPECT_EQ(star->args[0]->kind, ExprKind::kStar);

  ExprPtr qualified = ParseExpr("t.col");
  EXPECT_EQ(qualified->kind, ExprKind::kIdentifier);
  EXPECT_EQ(qualified->qualifier, "t");
  EXPECT_EQ(qualified->name, "col");
  EXPECT_EQ(ColumnName(*qualified), "col");

  ExprPtr quoted = ParseExpr("\"my col\"");
  EXPECT_EQ(quoted->name, "my col");
  EXPECT_EQ(ParseExpr("`db`.`t x`.c")->qualifier, "db.t x");
  EXPECT_EQ(ParseExpr("Number")->name, "Number");  // identifiers keep their case
}

TEST(ExpressionParserTest, IntegerLiterals) {
  EXPECT_EQ(std::get<uint64_t>(ParseExpr("0")->value), 0u);
  EXPECT_EQ(std::get<uint64_t>(ParseExpr("18446744073709551615")->value),
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(std::get<uint64_t>(ParseExpr("0x1F")->value), 31u);
  EXPECT_EQ(std::get<int64_t>(ParseExpr("-1")->value), -1);
  EXPECT_EQ(std::get<int64_t>(ParseExpr("- 7")->value), -7);
  EXPECT_EQ(std::get<int64_t>(ParseExpr("-9223372036854775808")->value),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(std::get<uint64_t>(ParseExpr("TRUE")->value), 1u);
  EXPECT_EQ(std::get<uint64_t>(ParseExpr("false")->value), 0u);
  EXPECT_TRUE(ParseExpr("NULL")->is_null);
  EXPECT_EQ(Tree("2 - -1"), "minus(2, -1)");
  EXPECT_EQ(Tree("-(1)"), "negate(1)");

  EXPECT_NE(ErrorOf("18446744073709551616").find("18446744073709551616"), std::string::npos);
  EXPECT_NE(ErrorOf("-9223372036854775809").find("-9223372036854775809"), std::string::npos);
  EXPECT_NE(ErrorOf("1 + 99999999999999999999999").find("position 12"), std::string::npos);
}

TEST(ExpressionParserTest, FloatAndStringLiterals) {
  EXPECT_DOUBLE_EQ(std::get<double>(ParseExpr("1.5")->value), 1.5);
  EXPECT_DOUBLE_EQ(std::get<double>(ParseExpr("1e10")->value), 1e10);
  EXPECT_DOUBLE_EQ(std::get<double>(ParseExpr(".5")->value), 0.5);
  EXPECT_DOUBLE_EQ(std::get<double>(ParseExpr("-2.5E-3")->value), -2.5e-3);
  EXPECT_TRUE(std::isinf(std::get<double>(ParseExpr("inf")->value)));
  EXPECT_NE(ErrorOf("1e999").find("1e999"), std::string::npos);

  EXPECT_EQ(std::get<std::string>(ParseExpr("'a\\nb'")->value), "a\nb");
  EXPECT_EQ(std::get<std::string>(ParseExpr("'it''s'")->value), "it's");
  EXPECT_EQ(std::get<std::string>(ParseExpr("'\\.'")->value), "\\.");
  EXPECT_EQ(std::get<std::string>(ParseExpr("'\\1'")->value), "\\1");
  EXPECT_EQ(std::get<std::string>(ParseExpr("'\\0'")->value), std::string(1, '\0'));
  EXPECT_EQ(std::get<std::string>(ParseExpr("'\\\\'")->value), "\\");
  EXPECT_EQ(std::get<std::string>(ParseExpr("'\\''")->value), "'");
  EXPECT_EQ(std::get<std::string>(ParseExpr("'\\\"'")->value), "\"");
}

TEST(ExpressionParserTest, ColumnNamesOfLiterals) {
  EXPECT_EQ(Tree("1"), "1");
  EXPECT_EQ(Tree("-1"), "-1");
  EXPECT_EQ(Tree("1.5"), "1.5");
  EXPECT_EQ(Tree("-1.5"), "-1.5");
  EXPECT_EQ(Tree("1.0"), "1.");
  EXPECT_EQ(Tree("1e10"), "10000000000.");
  EXPECT_EQ(Tree("1e30"), "1e30");
  EXPECT_EQ(Tree("0.001"), "0.001");
  EXPECT_EQ(Tree("1e-7"), "1e-7");
  EXPECT_EQ(Tree("1.25e-8"), "1.25e-8");
  EXPECT_EQ(Tree("123.456"), "123.456");
  EXPECT_EQ(Tree("'abc'"), "'abc'");
  EXPECT_EQ(Tree("'it''s'"), "'it\\'s'");
  EXPECT_EQ(Tree("'a\\nb'"), "'a\\nb'");
  EXPECT_EQ(Tree("NULL"), "NULL");
  EXPECT_EQ(Tree("in(x, (1, 2))"), "in(x, (1, 2))");
  // The alias names the select item in the binder; ColumnName ignores it.
  EXPECT_EQ(Tree("number + 1 AS n"), "plus(number, 1)");
}

TEST(ExpressionParserTest, PositionsAreByteOffsets) {
  ExprPtr expr = ParseExpr("a + f(b)");
  EXPECT_EQ(expr->position, 7u);
  EXPECT_EQ(expr->args[1]->position, 11u);
  EXPECT_EQ(expr->args[1]->args[0]->position, 13u);
  EXPECT_EQ(ParseExpr("-5")->position, 7u);
}

TEST(ExpressionParserTest, RejectsMalformedExpressions) {
  EXPECT_NE(ErrorOf("1 +").find("(end of query). Expected expression"), std::string::npos);
  EXPECT_NE(ErrorOf("f(1,").find("Expected expression"), std::string::npos);
  EXPECT_NE(ErrorOf("f(1").find("Expected ')'"), std::string::npos);
  EXPECT_NE(ErrorOf("CASE x END").find("Expected WHEN"), std::string::npos);
  EXPECT_NE(ErrorOf("CASE WHEN a THEN 1 ELSE 2").find("Expected END"), std::string::npos);
  EXPECT_NE(ErrorOf("CASE WHEN a THEN 1").find("WHEN, ELSE, END"), std::string::npos);
  EXPECT_NE(ErrorOf("CAST(x AS)").find("Expected data type"), std::string::npos);
  EXPECT_NE(ErrorOf("a IS 1").find("Expected NULL"), std::string::npos);
  EXPECT_NE(ErrorOf("a BETWEEN 1 OR 2").find("Expected AND"), std::string::npos);
  EXPECT_NE(ErrorOf("a IN 1").find("Expected '('"), std::string::npos);
  EXPECT_NE(ErrorOf("t.").find("Expected identifier"), std::string::npos);
  EXPECT_NE(ErrorOf("FROM t").find("position 8"), std::string::npos);
}

TEST(ExpressionParserTest, DeepNestingFailsInsteadOfCrashing) {
  const int n = 100000;
  EXPECT_NE(ErrorOf(std::string(n, '(') + "1" + std::string(n, ')')).find("Maximum parse depth"),
            std::string::npos);
  std::string calls;
  for (int i = 0; i < n; ++i) calls += "f(";
  EXPECT_NE(ErrorOf(calls).find("Maximum parse depth"), std::string::npos);
  std::string nots;
  for (int i = 0; i < n; ++i) nots += "NOT ";
  EXPECT_NE(ErrorOf(nots + "1").find("Maximum parse depth"), std::string::npos);
  std::string negations;
  for (int i = 0; i < n; ++i) negations += "- ";
  EXPECT_NE(ErrorOf(negations + "x").find("Maximum parse depth"), std::string::npos);
  std::string minus(n, '-');
  EXPECT_FALSE(ParseStatement("SELECT " + minus + "1").ok());  // "--" starts a comment

  // Operator chains build deep trees without recursing in the parser.
  std::string chain;
  for (int i = 0; i < n; ++i) chain += "1+";
  EXPECT_NE(ErrorOf(chain + "1").find("Maximum expression depth"), std::string::npos);
  std::string casts = "x";
  for (int i = 0; i < n; ++i) casts += "::UInt8";
  EXPECT_NE(ErrorOf(casts).find("Maximum expression depth"), std::string::npos);
  std::string nested_chains;
  for (int i = 0; i < 200; ++i) nested_chains += "1+1+1+1+1+1+(";
  EXPECT_NE(ErrorOf(nested_chains + "1" + std::string(200, ')')).find("Maximum expression depth"),
            std::string::npos);

  // Under the limits everything parses.
  EXPECT_EQ(Tree(std::string(250, '(') + "1" + std::string(250, ')')), "1");
  std::string long_chain = "a";
  for (int i = 0; i < 900; ++i) long_chain += " AND b = 1 + 2";
  EXPECT_EQ(ParseExpr(long_chain)->args.size(), 901u);
  std::string sum = "0";
  for (int i = 0; i < 900; ++i) sum += " + 1";
  EXPECT_EQ(ParseExpr(sum)->name, "plus");
}

}  // namespace
}  // namespace granite::coordinator::sql
