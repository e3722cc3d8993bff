// Eager aggregation: a GROUP BY over a dimension's columns whose aggregates read only other
// tables pre-aggregates those tables by the columns that join them to the dimension, so the
// dimension's descriptive columns (names, addresses, comments) are joined to one row per key
// instead of being sent with, and hashed for, every fact row:
//
//   SELECT c.key, c.name, c.address, sum(l.price) FROM customer c, orders o, lineitem l
//   WHERE c.key = o.ckey AND o.okey = l.okey AND o.date >= d GROUP BY c.key, c.name, c.address
// ->
//   SELECT c.key, c.name, c.address, sum(__eg.__eg_a0) AS `sum(l.price)` FROM customer c,
//     (SELECT o.ckey AS __eg_k0, sum(l.price) AS __eg_a0 FROM orders o, lineitem l
//      WHERE o.okey = l.okey AND o.date >= d GROUP BY o.ckey) AS __eg
//   WHERE c.key = __eg.__eg_k0 GROUP BY c.key, c.name, c.address
//
// Exact for any duplicates on either side: the outer GROUP BY still sums the partial states of
// every dimension row of a group (sum and count as sums, min / max as themselves).
//
// The child-count shape, a LEFT JOIN whose right table is the only one aggregated, under
// join_use_nulls = 1 (an unmatched row's partials are NULL, as its fact columns were):
//
//   SELECT c.key, count(o.key) FROM customer c LEFT JOIN orders o ON c.key = o.ckey AND o.x > 0
//   GROUP BY c.key
// ->
//   SELECT c.key, sum(ifNull(__eg.__eg_a0, 0)) FROM customer c LEFT JOIN
//     (SELECT o.ckey AS __eg_k0, count(o.key) AS __eg_a0 FROM orders o WHERE o.x > 0
//      GROUP BY o.ckey) AS __eg ON c.key = __eg.__eg_k0 GROUP BY c.key
//
// (count() takes ifNull(.., 1): an unmatched row is one row). The join then builds one row per
// key instead of every order. Its ON holds the key equalities and conditions on the right table
// only; WHERE may not read the right table.
//
// Otherwise applies only to inner joins of plain tables (comma joins or INNER JOIN ... ON), with sum / count / min / max
// aggregates (no DISTINCT, no window), no subquery anywhere, every condition that names both
// sides an equality of two columns, and at least one such equality whose dimension column is a
// GROUP BY key, with more GROUP BY keys than join columns (the descriptive columns it spares).
#pragma once

#include <functional>
#include <optional>

#include "absl/status/statusor.h"
#include "coordinator/exec/from_clause.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// Returns `select` rewritten as above, or nullopt when it does not apply; `columns_of` gives the
// columns of a FROM table. Shared nodes of `select` are never modified. With `join_use_nulls`,
// the last join may also be a LEFT JOIN whose right table alone is aggregated (see above).
absl::StatusOr<std::optional<sql::SelectStatement>> AggregateBelowJoins(
    const sql::SelectStatement& select,
    const std::function<absl::StatusOr<RelationColumns>(const sql::TableRef&)>& columns_of,
    bool join_use_nulls);

}  // namespace granite::coordinator
