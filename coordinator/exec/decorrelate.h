// Decorrelation: rewrites the correlated subqueries of a SELECT's WHERE into joins and
// uncorrelated subqueries, so that exec/subqueries.h and exec/from_clause.h can run them. A
// subquery is correlated when its WHERE names columns of the outer query; the shapes handled
// (each as a top-level conjunct of the outer WHERE, the subquery's FROM being tables and its
// correlation conjuncts of its WHERE top level):
//   x OP (SELECT agg FROM ... WHERE inner AND k1 = outer1 [AND k2 = outer2 ...])
//       -> a comma-joined (SELECT k1, k2, agg FROM ... WHERE inner GROUP BY k1, k2) AS __sqN,
//          with outer1 = __sqN.k1 ... and x OP __sqN.v  (no inner row: the outer row goes, as
//          the comparison with ClickHouse's NULL would drop it)
//   [NOT] EXISTS (SELECT ... WHERE inner AND k = outer)          -> outer [NOT] IN (SELECT k ...)
//   [NOT] EXISTS (SELECT ... WHERE inner AND k = outer AND c <> outer_c)
//       -> LEFT JOIN (SELECT k, min(c), max(c), count() ... GROUP BY k) AS __sqN ON outer = k,
//          with EXISTS as count > 0 AND (min <> outer_c OR max <> outer_c), NOT EXISTS as its
//          negation
// Any other correlated subquery is left as it is (and fails later as NOT_IMPLEMENTED).
#pragma once

#include "absl/status/statusor.h"
#include "coordinator/exec/from_clause.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// Returns `select` with the correlated subqueries of its WHERE rewritten as above; shared nodes
// of `select` are never modified. `columns_of` gives the columns of the subqueries' tables.
absl::StatusOr<sql::SelectStatement> Decorrelate(
    const sql::SelectStatement& select,
    const std::function<absl::StatusOr<RelationColumns>(const sql::TableRef&)>& columns_of);

}  // namespace granite::coordinator
