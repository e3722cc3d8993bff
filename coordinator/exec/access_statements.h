// Access control on the coordinator's side of a query: the privilege and quota checks every
// statement passes before it runs, GRANT / REVOKE / SHOW GRANTS / CREATE QUOTA / DROP QUOTA
// (ast.h AccessStatement), system.grants / quotas / quota_usage, and which rows of
// system.processes and system.query_log a user sees. The rules are in
// coordinator/access/privilege_check.h; the stored grants in access/grant_store.h, kept on the
// workers; quota counters in access/quota_book.h.
//
// Who may do what:
// - GRANT, REVOKE, CREATE / DROP QUOTA, SHOW GRANTS FOR another user and every row of
//   system.grants / system.quotas: a user with access_management = 1 (users file; `default`
//   without a users file). Others get ACCESS_DENIED.
// - Another user's rows of system.processes / system.query_log: SHOW PROCESSLIST ON *.*;
//   KILL QUERY of another user's query: KILL QUERY ON *.* (both part of ALL).
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "coordinator/access/access_rights.h"
#include "coordinator/cluster/worker_set.h"
#include "coordinator/exec/query_executor.h"
#include "coordinator/planner/binder.h"
#include "coordinator/server/query_context.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// Counts the query against the user's quotas (QUOTA_EXCEEDED), then checks the privileges
// `statement` needs (ACCESS_DENIED). Loads the stored grants from the workers first if needed.
// REQUIRES: query.user is set; `statement`'s table names are resolved (ResolveTableNames).
absl::Status CheckBeforeRun(const sql::Statement& statement, const QueryContext& query,
                            const WorkerSet& workers);

// Runs an access statement.
absl::StatusOr<QueryResult> ExecuteAccessStatement(const sql::AccessStatement& statement,
                                                   QueryContext* query, const WorkerSet& workers);

// Returns system.grants, system.quotas or system.quota_usage as `query`'s user sees them, or
// nullopt for another name.
absl::StatusOr<std::optional<LocalTable>> AccessSystemTable(const std::string& name,
                                                            const QueryContext& query,
                                                            const WorkerSet& workers);

// Drops the rows of other users from system.processes or system.query_log (`name`) unless the
// user may see them, and from system.databases, tables, columns, parts and replicas the rows of
// databases and tables the user has no grant on (as ClickHouse, so SHOW TABLES and SHOW
// DATABASES list only those); other tables pass unchanged.
absl::Status HideOtherUsersRows(const std::string& name, const QueryContext& query,
                                const WorkerSet& workers, LocalTable* table);

// Returns OK if `query`'s user may kill a query of `owner`, else ACCESS_DENIED.
absl::Status CheckMayKill(const std::string& owner, const QueryContext& query,
                          const WorkerSet& workers);

// While one lives on a thread, HideOtherUsersRows passes every row (KILL QUERY's own look at
// system.processes, which then refuses a match of another user's query unless CheckMayKill).
class ShowAllProcessRows {
 public:
  ShowAllProcessRows();
  ~ShowAllProcessRows();
  ShowAllProcessRows(const ShowAllProcessRows&) = delete;
  ShowAllProcessRows& operator=(const ShowAllProcessRows&) = delete;

 private:
  bool previous_;
};

}  // namespace granite::coordinator
