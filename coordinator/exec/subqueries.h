// Uncorrelated subqueries inside expressions, evaluated once on the coordinator before the
// outer SELECT is bound (as ClickHouse's GLOBAL IN: the set travels to the workers inside the
// plan, so every worker filters with the same set and none runs the subquery itself):
//   x IN (SELECT ...) / NOT IN   -> in(x, tuple(v1, ..., vn)) with the values in the column's type;
//                                   past plan::kMaxLiteralSetValues values in(x, <set>), one
//                                   kSet node holding a column of them (core/plan/expr.h),
//                                   which binds, ships and compiles in time linear in its bytes
//   (x, y) IN (SELECT a, b ...)  -> in(tuple(x, y), tuple(tuple(a1, b1), ...)), at most
//                                   kTupleInConstantRows distinct rows (planner/tuple_in.h)
//   (SELECT ...) as a value      -> the single value (default value of its type on no rows)
//   EXISTS (SELECT ...)          -> 1 or 0
// A subquery that names a column of the outer query fails to bind on its own: such correlated
// subqueries are reported as NOT_IMPLEMENTED.
#pragma once

#include <functional>

#include "absl/status/statusor.h"
#include "coordinator/planner/binder.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// The most rows a tuple IN subquery's set may have as constants: each row becomes a conjunction
// of comparisons evaluated per row of the outer query.
inline constexpr size_t kTupleInConstantRows = 10000;

// Runs a whole SELECT (set operators included) and returns its result.
using SubqueryRunner = std::function<absl::StatusOr<LocalTable>(const sql::SelectStatement&)>;

// Returns a copy of `select` whose expressions (select list, WHERE, GROUP BY, HAVING, ORDER BY,
// JOIN ON, WITH aliases) hold no subquery; FROM subqueries are left to the caller. Shared nodes
// of `select` are never modified. Errors: INCORRECT_RESULT_OF_SCALAR_SUBQUERY (a scalar
// subquery with several rows or columns), NUMBER_OF_COLUMNS_DOESNT_MATCH (the subquery of an
// IN returns another number of columns than the left side has), NOT_IMPLEMENTED (a tuple IN set
// over kTupleInConstantRows), the subquery's own errors.
absl::StatusOr<sql::SelectStatement> ReplaceSubqueries(const sql::SelectStatement& select,
                                                       const SubqueryRunner& run);

// Returns `e` with its scalar subqueries replaced by their values when every subquery in it is a
// scalar one (no IN or EXISTS set), else `e` itself. `e` is never modified. Errors: those of
// ReplaceSubqueries for a scalar subquery.
absl::StatusOr<sql::ExprPtr> ReplaceScalarSubqueries(const sql::ExprPtr& e,
                                                     const SubqueryRunner& run);

// True when some conjunct of `where` holds subqueries and all of them are scalar ones.
bool HasScalarSubqueryConjunct(const sql::ExprPtr& where);

// True when any expression of `select` (not of its FROM subqueries) holds a subquery.
bool HasExpressionSubqueries(const sql::SelectStatement& select);

}  // namespace granite::coordinator
