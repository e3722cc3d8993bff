// Semi-join reduction of an IN subquery by the rows that ask it. In
// `SELECT ... FROM t WHERE p(t) AND t.k IN (SELECT s.c FROM s WHERE q(s))` only the values of k
// in rows passing p can match, so when p keeps a small part of t the subquery runs as
// `SELECT s.c FROM s WHERE q(s) AND s.c IN (SELECT t.k FROM t WHERE p(t))`: the same answer
// for those rows, and a set no larger than t's passing rows instead of every value of s.c.
// Decorrelated EXISTS (an order with some late item) has this shape; the set is then gathered
// and sent to the workers at the size of the filtered outer rows, not of the subquery's table.
//
// Applies to IN, and to NOT IN (a decorrelated NOT EXISTS) when the subquery's column is a table
// column that cannot be NULL (a NULL in the set decides NOT IN for every value), over a plain
// column, when the subquery returns a plain column and has no LIMIT, OFFSET, window
// functions, set operators or WITH, and a GROUP BY only with that column among its keys (a
// filter on a group key keeps the other groups whole). Worth it when p keeps at most a quarter
// of t and at most kMaxReducingRows rows: the passing rows' keys are read first, up to one
// past that limit, and when under it the reduced set's subquery is that read (SubqueryMemo).
// The subqueries a reduction makes are marked (SelectStatement::in_reduced) and not reduced
// again, so reductions cannot chain.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/exec/from_clause.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

inline constexpr uint64_t kMaxReducingRows = 1'000'000;

// Returns `sub` reduced by the rows of `table` passing `filters` (conjuncts on `table` alone,
// without subqueries) on `column`, or nullopt when the reduction does not apply or is not worth
// it. `negated`: the subquery is NOT IN's. Errors: those of counting the rows.
absl::StatusOr<std::optional<sql::SelectStatement>> ReducedInSubquery(
    const sql::SelectStatement& sub, const sql::TableRef& table, const std::string& column,
    const std::vector<sql::ExprPtr>& filters, const FromContext& context, bool negated);

}  // namespace granite::coordinator
