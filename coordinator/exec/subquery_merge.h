// Merging a FROM subquery into the SELECT around it. `SELECT f(x) FROM (SELECT g(a) AS x FROM t
// WHERE c) WHERE p(x)` reads as `SELECT f(g(a)) AS "f(x)" FROM t WHERE c AND p(g(a))`: the query
// runs where its table lives (filters, joins and aggregation on the workers) instead of gathering
// the subquery's rows on the coordinator first. Views and WITH name AS (SELECT ...) references
// are FROM subqueries by then, so they merge too.
//
// Only a subquery that projects and filters merges: no aggregation, DISTINCT, GROUP BY, ORDER
// BY, LIMIT, window functions, SETTINGS or set operators in it, and its select items may not
// refer to each other's aliases. The outer SELECT must read the subquery alone (no joins, no
// WITH expr AS name, no expression subqueries, no window functions, no `*` item) and name only
// its columns or its own aliases, none of which may shadow a subquery column. Anything else
// keeps the subquery as it is. The result's column names and order are the outer SELECT's.
#pragma once

#include <optional>

#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// Returns `outer` with its FROM subquery merged in (repeatedly, for nested ones), or nullopt
// when no merge applies.
std::optional<sql::SelectStatement> MergeFromSubquery(const sql::SelectStatement& outer);

}  // namespace granite::coordinator
