// Small constructors and walkers of the syntax tree (ast.h) for the code that rewrites queries
// after parsing: decorrelation, subquery replacement, FROM materialization.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "coordinator/sql/ast.h"

namespace granite::coordinator::sql {

// A call node; its position is the first argument's (0 without arguments).
ExprPtr MakeCall(std::string name, std::vector<ExprPtr> args);
// A literal of `value` (a number or a string).
ExprPtr MakeLiteral(core::Value value);
// The UInt8 constant 1 or 0 at `position` (a condition decided before binding).
ExprPtr MakeFlag(bool value, size_t position);
// Returns row `row` of `column` as a literal node of the column's type (literal_type set).
ExprPtr LiteralOf(const core::Column& column, size_t row, size_t position);
// A column reference `qualifier.name` (qualifier may be empty).
ExprPtr MakeColumn(const std::string& qualifier, const std::string& name, size_t position = 0);
// Appends the conjuncts of `e` (the arguments of nested and(...), or `e` itself; none if null).
void SplitAnd(const ExprPtr& e, std::vector<ExprPtr>* out);
// Returns and(conjuncts...), the one conjunct, or null for none.
ExprPtr JoinAnd(std::vector<ExprPtr> conjuncts);
// True when `e` or a node under it is a subquery.
bool ContainsSubquery(const Expr& e);
// Returns subquery `inner` with the SETTINGS of the statement `outer` it runs for: a statement's
// SETTINGS apply to its subqueries too, their own winning, as in ClickHouse.
SelectStatement WithOuterSettings(const SelectStatement& inner, const SelectStatement& outer);
// `SELECT count() FROM table [WHERE where]`; with `limit` (and a `where`), `SELECT count() FROM
// (SELECT 1 FROM table WHERE where LIMIT limit)`: at most `limit`, and the workers stop reading
// once that many rows passed (a planning decision that asks "more than n?").
SelectStatement CountStatement(const TableRef& table, ExprPtr where,
                               std::optional<uint64_t> limit = std::nullopt);

}  // namespace granite::coordinator::sql
