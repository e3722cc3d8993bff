// Shared by the tests of the binder's planning rules (distinct planner, shard-local aggregation and
// top-N, GROUP BY ... LIMIT hash filter, key elimination): small table schemas, and binding one
// SELECT against a catalog as the coordinator would. Test-only.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "coordinator/planner/binder.h"
#include "coordinator/cluster/catalog.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"
#include "core/plan/fragment.h"
#include "core/table_schema.h"
#include "core/types.h"

namespace granite::coordinator::test {

// A column of a test table.
struct TestColumn {
  std::string name;
  core::TypeId type = core::TypeId::kUInt32;
};

// Returns the schema of table `name` with `columns`, sharded by `sharding_key` across
// `shard_count` workers (no key and 0: unsharded).
inline core::TableSchema TestTable(const std::string& name,
                                         const std::vector<TestColumn>& columns,
                                         std::vector<std::string> sharding_key = {},
                                         uint32_t shard_count = 0) {
  core::TableSchema schema;
  schema.name = name;
  for (const TestColumn& column : columns) schema.columns.push_back({column.name, column.type});
  schema.sharding_key = std::move(sharding_key);
  schema.shard_count = shard_count;
  return schema;
}

// A system-table provider that knows no table.
// Returns `head` followed by `n` copies of `link`, then `tail` (deep or long expressions).
inline std::string Repeat(const std::string& head, const std::string& link, int n,
                          const std::string& tail = "") {
  std::string out = head;
  for (int i = 0; i < n; ++i) out += link;
  return out + tail;
}

inline absl::StatusOr<LocalTable> NoSystemTables(const std::string&) {
  return core::Error(core::ErrorCode::kUnknownTable, "no system tables here");
}

// Parses and binds the SELECT `sql` for a cluster of `workers`. A parse error fails the test and
// is returned; a binding error is returned as is (callers decide whether it is expected).
inline absl::StatusOr<QueryPlan> BindSelect(const Catalog& catalog, const std::string& sql,
                                            size_t workers,
                                            LocalTableProvider system_tables = NoSystemTables) {
  absl::StatusOr<sql::Statement> statement = sql::ParseStatement(sql);
  EXPECT_TRUE(statement.ok()) << sql << ": " << statement.status();
  if (!statement.ok()) return statement.status();
  Binder binder(&catalog, std::move(system_tables), workers);
  return binder.Bind(std::get<sql::SelectStatement>(*statement));
}

// Like BindSelect, but a binding error fails the test and gives an empty fragment.
inline core::plan::Fragment PlanFragment(const Catalog& catalog, const std::string& sql,
                                         size_t workers) {
  absl::StatusOr<QueryPlan> plan = BindSelect(catalog, sql, workers);
  EXPECT_TRUE(plan.ok()) << sql << ": " << plan.status();
  return plan.ok() ? plan->fragment : core::plan::Fragment();
}

}  // namespace granite::coordinator::test
