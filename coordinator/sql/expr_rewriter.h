// Rewrites the expressions of a parsed statement before it runs: the coordinator replaces calls
// that only it can answer (currentUser(), currentDatabase(), query parameters) by constants, so
// the binder and the workers see literals.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator::sql {

// Returns the replacement of `node`, or null to keep it (and visit its arguments). For a select
// item without alias, `*column_name` (preset to ColumnName(node)) is the name the replaced
// item's column keeps; the replacer may change it. A failure stops the rewrite.
using ExprReplacer =
    std::function<absl::StatusOr<ExprPtr>(const Expr& node, std::string* column_name)>;

// Returns a copy of `statement` with the nodes `replace` replaces (copy on write: unchanged
// subtrees are shared), or nullopt when it replaced none. Visits SELECT (items, WHERE, GROUP BY,
// HAVING, ORDER BY, table-function arguments, JOIN ... ON, WITH, subqueries in FROM, JOIN and
// expressions, UNION / INTERSECT / EXCEPT operands), INSERT's VALUES and SELECT, EXPLAIN's SELECT
// and KILL QUERY's WHERE.
absl::StatusOr<std::optional<Statement>> RewriteExprs(const Statement& statement,
                                                     const ExprReplacer& replace);

}  // namespace granite::coordinator::sql
