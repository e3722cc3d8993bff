// FROM with joins or a subquery, materialized on the coordinator before the rest of the SELECT
// runs over it (Binder::Bind with a materialized source).
//
// Each relation (a table, a table function, a system table or a subquery) becomes a LocalTable:
// a table or table function is read by its own distributed SELECT of just the columns the query
// names, with the WHERE conjuncts that concern it alone pushed into that SELECT (never into the
// side of an outer join that gets default values); subqueries and system tables run as written.
// Relations are then joined on the coordinator by hash joins (exec/hash_join.h) on the equal
// keys of ON / USING and, for comma and inner joins, of WHERE:
//   - only inner / comma / cross joins: a greedy order — start from the largest relation, then
//     repeatedly join the relation connected to the joined ones by equalities whose result is
//     estimated smallest (|L| * |R| / the larger distinct count of the keys, counted on the
//     materialized data; a relation connected to none comes last, as a cross join), building
//     on the smaller side;
//   - with an outer, semi or anti join: the inner joins at the front (when no RIGHT or FULL join
//     follows) in the greedy order above, then the written order, left-deep.
// The SELECT that remains has no FROM and keeps the conjuncts not used as keys or pushed down.
//
// A subquery grouped by the column it is joined on (a decorrelated EXISTS or scalar subquery) runs
// after the FROM's filters are known, with the keys its partner's rows can hold as an IN set in
// its WHERE (from_deferred.cc); key reduction (from_key_reduction.cc) also runs over the inner
// joins in front of written-order joins.
//
// Broadcast joins: with only inner / comma joins, the largest table (by its row count) may stay
// where it is instead: the other relations are read and joined on the coordinator into connected
// components (by the equalities among them), each of which must be linked to the largest table by
// equalities; the components go to every worker inside the plan (Binder's BroadcastSource,
// plan::BroadcastJoin), and the rest of the SELECT runs on the workers over the joined rows.
// Co-located builds come first: a table whose rows share a shard with their partners in the
// largest table (or in an earlier co-located one) is not read on the coordinator at all; each
// worker reads it from its own shard (plan::BroadcastJoin::local_build). Rows share a shard when
// the cluster has one shard, or when both tables were sharded for this shard count by keys of one
// length and types that the join equates column by column. Groups may then key on those tables.
// distributed_join_mode chooses: 'broadcast' whenever possible (nothing co-located),
// 'coordinator' never, 'auto' co-located where possible and the groups sent when their rows times
// max(1, workers - 1) (the copies sent beyond the one gathered anyway) are at most the largest
// table's rows that pass its own filter. Written-order joins (LEFT, SEMI, ANTI, INNER) run on
// the workers too: the inner joins at the front planned as above (or the first table alone),
// then one build per later join, keyed on any relation before it, co-located when the table is
// co-sharded with a relation whose rows the workers hold locally.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/exec/subqueries.h"
#include "coordinator/planner/binder.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// Column names and types of a table or a table function.
struct RelationColumns {
  std::vector<std::string> names;
  std::vector<core::TypeId> types;
  // A table's sharding key and the shard count it was routed for (core::TableSchema); empty / 0
  // for table functions and tables split evenly.
  std::vector<std::string> sharding_key;
  uint32_t shard_count = 0;
};

struct FromContext {
  SubqueryRunner run;  // runs a SELECT (the relations' reads, subqueries)
  // Columns of a table or table-function reference; errors as binding the reference would give.
  std::function<absl::StatusOr<RelationColumns>(const sql::TableRef&)> columns_of;
  // Rewrites a SELECT's references to Tuple / Map / Array(Tuple) columns into subcolumns (for a
  // read the workers bind themselves, not through `run`); unset: returns it unchanged.
  std::function<absl::StatusOr<sql::SelectStatement>(const sql::SelectStatement&)>
      expand_compounds;
  uint64_t max_rows_in_join = 0;  // 0: the server's cap
  bool join_use_nulls = false;
  std::string join_mode = "auto";  // distributed_join_mode
  size_t worker_count = 1;
};

struct MaterializedFrom {
  LocalTable table;
  std::optional<BroadcastSource> broadcast;  // set: the joins run on the workers (table is empty)
  sql::SelectStatement rest;  // `select` without FROM and without the conjuncts used
  // For EXPLAIN: how subqueries of FROM were narrowed before they ran (from_deferred.cc).
  std::vector<std::string> notes;
};

// True when `select`'s FROM has joins or is a subquery.
bool NeedsMaterializedFrom(const sql::SelectStatement& select);

// True for a join that keeps only matching pairs: a comma, CROSS JOIN, or [INNER] [ALL] JOIN.
bool IsInnerJoin(const sql::JoinClause& join);

// Materializes FROM. Errors: AMBIGUOUS_IDENTIFIER, NO_COMMON_TYPE (a string key equal to a
// number), INVALID_JOIN_ON_EXPRESSION (an outer join's ON with no equality between its two
// sides, or with a condition on the other side only), TOO_MANY_ROWS (max_rows_in_join), and
// those of the relations' reads.
absl::StatusOr<MaterializedFrom> MaterializeFrom(const sql::SelectStatement& select,
                                                 const FromContext& context);

}  // namespace granite::coordinator
