// Tuple IN: `(a, b) IN ((1, 'x'), (2, 'y'))` and its NOT IN, before binding. granite has no tuple
// column type, so the membership test over a constant list of tuples is written as the
// comparisons it means: `(a = 1 AND b = 'x') OR (a = 2 AND b = 'y')` (NOT IN negates it). The
// list comes from the query text or from an uncorrelated `(a, b) IN (SELECT x, y ...)` whose rows
// the coordinator read first (exec/subqueries.h); a large subquery set in a single-table WHERE
// becomes a semi join instead (exec/in_joins.h), so the list stays small.
//
// As ClickHouse spells the right side: a list of tuples `((1, 2), (3, 4))`, one tuple `((1, 2))`,
// or, when its arity is the left's, the bare tuple `(1, 2)`.
#pragma once

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// True when `e` is a tuple of two or more expressions, `(a, b)`: the left side of a tuple IN.
bool IsTupleOfSeveral(const sql::Expr& e);

// True when `e` is in / notIn / globalIn / globalNotIn whose left side IsTupleOfSeveral.
bool IsTupleIn(const sql::Expr& e);

// Returns the comparisons `e` means (REQUIRES: IsTupleIn(e); its right side holds no subquery).
// ClickHouse compares tuples holding a NULL as unequal, never as NULL: `(1, NULL) IN ((1, NULL))`
// is 0 and its NOT IN 1. With `null_as_unequal` the disjunction is wrapped in ifNull(..., 0) to
// say so; the binder asks for it only when the comparisons' type is Nullable (the wrap would hide
// the comparisons from pruning). Errors: INCORRECT_ELEMENT_OF_SET when an element's arity
// differs from the left's or the list is empty, with the element's position.
absl::StatusOr<sql::ExprPtr> ExpandTupleIn(const sql::Expr& e, bool null_as_unequal);

}  // namespace granite::coordinator
