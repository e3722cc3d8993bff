// Binder: turns a parsed SELECT into a QueryPlan — resolves names against the table schema (or a
// table function / system table), types every expression through the function registries, splits
// the work into the worker fragment (filter, projections or group keys + aggregates, partial
// top-N) and the coordinator's final stage (HAVING, output expressions, ORDER BY, LIMIT).
//
// Name resolution follows ClickHouse: select-list aliases may be used in every clause (and take
// precedence over columns of the same name, except inside their own definition); GROUP BY and
// ORDER BY accept 1-based positions of select items; in aggregating queries every column outside
// an aggregate must be (part of) a GROUP BY key.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/cluster/catalog.h"
#include "coordinator/planner/query_plan.h"
#include "coordinator/planner/select_binder.h"
#include "coordinator/sql/ast.h"
#include "core/settings/settings.h"

namespace granite::coordinator {

// An in-memory table the coordinator builds on demand: a system.* table, or a materialized
// FROM clause (a subquery's result, or joined relations).
struct LocalTable {
  std::vector<std::string> names;
  std::vector<core::TypeId> types;
  core::Block block;
  // For joined relations, per column: the alias (or table name) of its relation, and whether
  // only a qualified name finds it (the right copy of a USING column). Empty otherwise.
  std::vector<std::string> qualifiers;
  std::vector<bool> hidden;
  // Per column, whether SELECT * leaves it out (an ARRAY JOIN alias); empty: none.
  std::vector<bool> star_hidden;
};

// A FROM clause whose joins run on the workers (exec/from_clause.h chooses it): the probe table,
// read by every worker, then joined in turn with build tables the coordinator materialized and
// sends to every worker inside the plan, or that each worker reads from its own shard
// (co-located; plan::BroadcastJoin).
struct BroadcastSource {
  struct Build {
    LocalTable table;                 // with qualifiers
    std::vector<size_t> relations;    // per column: its relation's position in FROM
    core::plan::BroadcastJoin::Kind kind = core::plan::BroadcastJoin::Kind::kInner;
    // Equal keys: an expression over the probe (and earlier builds), and a column of this build.
    std::vector<std::pair<sql::ExprPtr, sql::ExprPtr>> keys;
    // Co-located (plan::BroadcastJoin::local_build): each worker reads the build from its own
    // shard with this SELECT of `table`'s columns (FROM one table, WHERE, no aggregation), and
    // `table` has names and types but no rows. Unset: `table` holds the rows to send.
    std::optional<sql::SelectStatement> local_read;
    // With local_read, the first build only: a shuffle join (plan::BroadcastJoin::shuffle).
    bool shuffle = false;
    // join_use_nulls = 1 on a LEFT join (plan::BroadcastJoin::use_nulls): the build's columns
    // bind as Nullable.
    bool use_nulls = false;
  };
  sql::TableRef probe;      // a table
  std::string probe_qualifier;
  size_t probe_relation = 0;  // the probe's position in FROM (column order follows FROM)
  std::vector<std::string> probe_hidden;  // its columns only a qualified name finds (USING)
  sql::ExprPtr probe_filter;  // conjuncts on the probe alone; null = none
  std::vector<Build> builds;
};

// Builds system tables by name ("tables", "parts", "workers"); NOT_FOUND-like error if unknown.
using LocalTableProvider = std::function<absl::StatusOr<LocalTable>(const std::string& name)>;

// The filter the row policies of the query's user put on a table (database, table name), or
// null for none (coordinator/access/row_policy.h).
using RowPolicyProvider = std::function<absl::StatusOr<sql::ExprPtr>(const std::string& database,
                                                                     const std::string& table)>;

// Binds one SELECT. Thread-safety: one Binder per query.
class Binder {
 public:
  // `settings` are the query's settings before the statement's own SETTINGS clause.
  Binder(const Catalog* catalog, LocalTableProvider system_tables, size_t worker_count,
         core::Settings settings = core::Settings())
      : catalog_(catalog), system_tables_(std::move(system_tables)), worker_count_(worker_count),
        settings_(std::move(settings)) {}

  // Tables without a database (FROM t) are looked up in `database` (USE; default "default").
  void set_current_database(std::string database) { current_database_ = std::move(database); }
  // Every table this binder reads is filtered by `provider`'s condition for it: bound over the
  // table's columns alone (no SELECT alias can stand for one of them) and ANDed to the filter
  // of the rows read (the WHERE, or a join's probe filter).
  void set_row_policies(RowPolicyProvider provider) { row_policies_ = std::move(provider); }

  // Errors include UNKNOWN_SETTING / BAD_ARGUMENTS for the SELECT's SETTINGS clause.
  // `materialized`, when set, replaces the SELECT's FROM clause (joins, subquery): the query then
  // runs on the coordinator over it. REQUIRES: `select` has no set operands and no subqueries
  // left in its expressions (exec/subqueries.h replaces them first).
  // `broadcast`, when set, replaces FROM the same way, but the query runs on the workers: its
  // WHERE filters the joined rows (Fragment::join_filter).
  absl::StatusOr<QueryPlan> Bind(const sql::SelectStatement& select,
                                 std::optional<LocalTable> materialized = std::nullopt,
                                 const BroadcastSource* broadcast = nullptr);

 private:
  // The columns a SELECT's source offers, and the table's schema when it reads a table.
  struct Source {
    std::vector<std::string> names;
    std::vector<core::TypeId> types;
    std::optional<core::TableSchema> table;
    std::vector<std::string> qualifiers;
    std::vector<bool> hidden;
    // With a BroadcastSource, per column: 0 for the probe table, b + 1 for build b; and the
    // column's position in that table.
    std::vector<std::pair<uint32_t, uint32_t>> slots;
    // A table's ALIAS columns (SelectBinder::SetComputedColumns; empty without any), and per
    // column whether SELECT * leaves it out (MATERIALIZED and ALIAS; empty: none).
    std::vector<sql::ExprPtr> computed;
    std::vector<bool> star_hidden;
    // The row policies' condition on the table read (set_row_policies); null: none.
    sql::ExprPtr row_policy;
  };

  // Resolves FROM into plan->source / plan->fragment.scan (or local_input).
  absl::StatusOr<Source> BindSource(const sql::SelectStatement& select,
                                    std::optional<LocalTable> materialized, QueryPlan* plan);
  // Resolves a table reference into plan->fragment.scan and `source`'s columns.
  absl::Status BindTable(const sql::TableRef& from, QueryPlan* plan, Source* source);
  // The source of a BroadcastSource: the probe table's and the builds' columns in FROM order
  // (broadcast_binder.cc).
  absl::StatusOr<Source> BindBroadcastSource(const BroadcastSource& broadcast, QueryPlan* plan);
  // Moves the bound WHERE to Fragment::join_filter, binds the probe filter and the join keys,
  // then lays out the joined block (LayOutJoinedBlock). Runs once everything else is bound.
  absl::Status BindJoins(const BroadcastSource& broadcast, const Source& source,
                         SelectBinder& binder, QueryPlan* plan);
  // Lays the input columns out as the worker's joined block — the probe's columns read, then each
  // build's columns used — renumbering the fragment's expressions and cutting the builds.
  absl::Status LayOutJoinedBlock(const BroadcastSource& broadcast, const Source& source,
                                 const std::vector<size_t>& positions, QueryPlan* plan);
  // Binds WHERE as the fragment's filter (a number compared with 0 when not UInt8).
  absl::Status BindWhere(const sql::Expr& where, SelectBinder& binder, QueryPlan* plan);
  // Binds an aggregating SELECT: keys, aggregate calls, final expressions, HAVING, ORDER BY.
  absl::Status BindAggregation(const sql::SelectStatement& select,
                               const std::vector<sql::ExprPtr>& items,
                               const std::vector<const sql::Expr*>& order_exprs,
                               SelectBinder& binder, QueryPlan* plan);
  // Binds a projecting SELECT: projections, the partial top-N, final expressions.
  absl::Status BindProjection(const sql::SelectStatement& select,
                              const std::vector<sql::ExprPtr>& items,
                              const std::vector<const sql::Expr*>& order_exprs,
                              SelectBinder& binder, QueryPlan* plan);

  const Catalog* catalog_;
  LocalTableProvider system_tables_;
  size_t worker_count_;
  core::Settings settings_;
  std::string current_database_ = "default";
  RowPolicyProvider row_policies_;
};

// Returns the ClickHouse literal type of an integer/float/string value: the smallest UInt for
// non-negative integers, the smallest Int for negative ones, Float64, String.
core::TypeId LiteralType(const core::Value& value);

}  // namespace granite::coordinator
