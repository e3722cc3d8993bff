// ARRAY JOIN and arrayJoin(): a row per array element.
//
// `SELECT ... FROM t [LEFT] ARRAY JOIN arr [AS a], ... WHERE p ...` runs as a FROM subquery
// that reads t (only the columns the query names, with the conjuncts of p that name no element,
// so they filter before the rows multiply) and computes the arrays; the coordinator then expands
// its rows (ExpandArrayJoin) and runs the rest of the SELECT over them, as over any FROM
// subquery. An unaliased column `arr` is replaced by its elements under its own name; an alias
// names the elements and leaves `arr` the array; alias columns are not part of SELECT *.
// Several ARRAY JOIN clauses nest (each multiplies the rows of the one before it). Each
// distinct `arrayJoin(e)` call becomes a clause of its own (`ARRAY JOIN e AS <hidden>`), so two
// calls give every pair, as in ClickHouse.
//
// The rows are expanded on the coordinator: workers read and filter, but aggregation over the
// elements runs there too (an operator in the workers' fragment is the next step).
#pragma once

#include <functional>

#include "absl/status/statusor.h"
#include "coordinator/exec/from_clause.h"
#include "coordinator/planner/binder.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// True when `select` has ARRAY JOIN clauses or arrayJoin(...) calls at its own level.
bool HasArrayJoin(const sql::SelectStatement& select);

// Returns `select` with its first ARRAY JOIN clause (or, with none left, its first arrayJoin
// call) folded into a FROM subquery carrying an ArrayJoinExpansion; call until HasArrayJoin is
// false. `columns_of` gives a table's columns (a subquery's are read as `*`). Errors:
// NOT_IMPLEMENTED for arrayJoin(...) in a SELECT with JOIN.
absl::StatusOr<sql::SelectStatement> FoldArrayJoin(
    const sql::SelectStatement& select,
    const std::function<absl::StatusOr<RelationColumns>(const sql::TableRef&)>& columns_of);

// Expands the rows of `table` (a folded subquery's result) as `expansion` says; `qualifier`
// (the subquery's alias) qualifies every column when not empty. Errors: TYPE_MISMATCH for a
// column that is not an array, SIZES_OF_ARRAYS_DONT_MATCH for zipped arrays of different
// sizes in one row, TOO_MANY_ROWS past `max_rows` (0 = no cap).
absl::StatusOr<LocalTable> ExpandArrayJoin(LocalTable table,
                                           const sql::ArrayJoinExpansion& expansion,
                                           const std::string& qualifier, uint64_t max_rows);

}  // namespace granite::coordinator
