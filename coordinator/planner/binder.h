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
};

// Builds system tables by name ("tables", "parts", "workers"); NOT_FOUND-like error if unknown.
using LocalTableProvider = std::function<absl::StatusOr<LocalTable>(const std::string& name)>;

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

  // Errors include UNKNOWN_SETTING / BAD_ARGUMENTS for the SELECT's SETTINGS clause.
  // `materialized`, when set, replaces the SELECT's FROM clause (joins, subquery): the query then
  // runs on the coordinator over it. REQUIRES: `select` has no set operands and no subqueries
  // left in its expressions (exec/subqueries.h replaces them first).
  absl::StatusOr<QueryPlan> Bind(const sql::SelectStatement& select,
                                 std::optional<LocalTable> materialized = std::nullopt);

 private:
  // The columns a SELECT's source offers, and the table's schema when it reads a table.
  struct Source {
    std::vector<std::string> names;
    std::vector<core::TypeId> types;
    std::optional<core::TableSchema> table;
    std::vector<std::string> qualifiers;
    std::vector<bool> hidden;
  };

  // Resolves FROM into plan->source / plan->fragment.scan (or local_input).
  absl::StatusOr<Source> BindSource(const sql::SelectStatement& select,
                                    std::optional<LocalTable> materialized, QueryPlan* plan);
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
};

// Returns the ClickHouse literal type of an integer/float/string value: the smallest UInt for
// non-negative integers, the smallest Int for negative ones, Float64, String.
core::TypeId LiteralType(const core::Value& value);

}  // namespace granite::coordinator
