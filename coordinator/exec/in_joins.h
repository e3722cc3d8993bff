// IN subqueries as broadcast semi joins: in a SELECT over one table, a WHERE conjunct
// `column [NOT] IN (SELECT ...)` whose subquery returns many rows becomes a broadcast SEMI (ANTI)
// join (plan::BroadcastJoin): the subquery runs once on the coordinator and its column travels to
// every worker as one block that each worker hashes once, instead of one plan constant per value
// (exec/subqueries.h). Sets of at most kInSetJoinThreshold rows stay constants, which pruning
// reads.
//
// Co-located sets: when the subquery is a plain read of one column of a table (`SELECT c FROM t
// [WHERE f]`) and both tables are sharded for this cluster by the compared columns alone (or the
// cluster has one shard), each worker reads the set from its own shard
// (plan::BroadcastJoin::local_build) and nothing is gathered or sent; the subquery then runs only
// with a LIMIT, to learn whether it is small enough to stay constants.
//
// Applies when the left side is a plain column of the table (or a tuple of them, `(a, b) IN
// (SELECT x, y ...)`: a join on every pair; never co-located), the subquery returns as many
// columns, whose values compare with them as join keys (core/join/row_keys.h: both integer-like, both
// strings, or one type). NOT IN over a NULL is NULL, so a Nullable column's anti join also keeps
// only its non-NULL rows. ClickHouse ignores NULLs inside the set (transform_null_in = 0); so does
// the join.
#pragma once

#include <optional>

#include "absl/status/statusor.h"
#include "coordinator/exec/from_clause.h"
#include "coordinator/exec/subqueries.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

inline constexpr size_t kInSetJoinThreshold = 1000;

// Returns the semi joins and the SELECT without their conjuncts (MaterializedFrom::broadcast and
// ::rest), or nullopt when no conjunct applies. Subqueries that stay constants are not run. An IN
// subquery may first be reduced by the table's other conjuncts (exec/in_reduction.h); when its
// reduced set stays constants, ::rest is the SELECT with that subquery and no broadcast.
// Errors: those of running the subqueries.
absl::StatusOr<std::optional<MaterializedFrom>> InSubqueriesAsJoins(
    const sql::SelectStatement& select, const FromContext& context);

// Adds the conjuncts without subqueries to `broadcast`'s probe filter (they filter the table's
// rows before the joins, and prune) and returns the others, which stay in WHERE for
// ReplaceSubqueries; once it made them constants the caller passes them here again.
std::vector<sql::ExprPtr> MoveToProbeFilter(std::vector<sql::ExprPtr> conjuncts,
                                            BroadcastSource* broadcast);

}  // namespace granite::coordinator
