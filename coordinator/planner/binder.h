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
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/cluster/catalog.h"
#include "coordinator/planner/query_plan.h"
#include "coordinator/sql/ast.h"
#include "core/settings/settings.h"

namespace granite::coordinator {

// An in-memory table (system.*) the coordinator builds on demand.
struct LocalTable {
  std::vector<std::string> names;
  std::vector<core::TypeId> types;
  core::Block block;
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

  // Errors include UNKNOWN_SETTING / BAD_ARGUMENTS for the SELECT's SETTINGS clause.
  absl::StatusOr<QueryPlan> Bind(const sql::SelectStatement& select);

 private:
  const Catalog* catalog_;
  LocalTableProvider system_tables_;
  size_t worker_count_;
  core::Settings settings_;
};

// Returns the ClickHouse literal type of an integer/float/string value: the smallest UInt for
// non-negative integers, the smallest Int for negative ones, Float64, String.
core::TypeId LiteralType(const core::Value& value);

}  // namespace granite::coordinator
