// Statements about databases and whole tables (sql/catalog_statement_parser.h): CREATE / DROP
// DATABASE, USE, SHOW TABLES / DATABASES / CREATE TABLE / PROCESSLIST, EXISTS, TRUNCATE, RENAME,
// DESCRIBE; and the resolution of every statement's table names against the current database.
//
// CREATE / DROP DATABASE, TRUNCATE and RENAME go to every worker (CatalogOp) under the DDL lock
// and change nothing unless every worker answers their listing first; a worker failing midway
// leaves the catalog invalidated (reloaded by the next query) and the statement can be repeated.
// SHOW TABLES / DATABASES / PROCESSLIST run as SELECTs over system.tables / databases / processes,
// as in ClickHouse. `system` is read-only: writes to it fail with DATABASE_ACCESS_DENIED.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "coordinator/cluster/catalog.h"
#include "coordinator/cluster/worker_set.h"
#include "coordinator/exec/query_executor.h"
#include "coordinator/planner/binder.h"
#include "coordinator/server/query_context.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// What the catalog statements need from the executor.
struct CatalogStatementContext {
  const WorkerSet* workers = nullptr;
  Catalog* catalog = nullptr;
  LocalTableProvider system_tables;  // system.<name>
  std::function<absl::StatusOr<QueryResult>(const sql::SelectStatement&)> run_select;
};

// Returns `statement` with every table name of DDL, INSERT and the statements above resolved to
// its catalog name (cluster/table_name.h) against `query->database`, or nullopt when nothing
// changes. SELECTs resolve theirs in the binder. Loads the catalog when a non-default database is
// involved. Errors: UNKNOWN_DATABASE for the current database or a named one that does not
// exist; DATABASE_ACCESS_DENIED for a write to `system`.
absl::StatusOr<std::optional<sql::Statement>> ResolveTableNames(const sql::Statement& statement,
                                                                const QueryContext& query,
                                                                const WorkerSet& workers,
                                                                Catalog* catalog);

// Returns whether ExecuteCatalogStatement runs `statement`.
bool IsCatalogStatement(const sql::Statement& statement);

// Runs one of the statements above (names already resolved). USE sets query->database and
// query->session_database.
absl::StatusOr<QueryResult> ExecuteCatalogStatement(const sql::Statement& statement,
                                                    QueryContext* query,
                                                    const CatalogStatementContext& context);

// Returns the CREATE TABLE statement of `schema` as SHOW CREATE TABLE prints it (and CREATE
// TABLE accepts back).
std::string ShowCreateTableText(const core::TableSchema& schema);

// `name` as a back-quoted identifier (` and \ escaped), as SHOW CREATE prints names.
std::string BackQuoted(const std::string& name);

}  // namespace granite::coordinator
