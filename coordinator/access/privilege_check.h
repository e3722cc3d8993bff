// The privileges a statement needs, read from its syntax tree before anything runs, and the
// check of a user's rights against them (ACCESS_DENIED, 497, in ClickHouse's words).
//
// What needs what: SELECT on every table a query reads — FROM, JOINs, subqueries in FROM and in
// expressions (IN (SELECT ...), scalar, EXISTS), WITH, UNION / INTERSECT / EXCEPT, INSERT ...
// SELECT, EXPLAIN, CHECK TABLE. A view is checked as the table it is (like ClickHouse's SQL
// SECURITY DEFINER): reading it needs SELECT on the view, and CREATE VIEW needs SELECT on what
// its query reads. system.* tables and table functions need nothing (system.processes and
// system.query_log show other users' rows only with SHOW PROCESSLIST). INSERT on the INSERT's
// table; CREATE on a created table or view, `db.*` for CREATE DATABASE; DROP likewise; ALTER
// for ALTER TABLE, OPTIMIZE and ATTACH / DROP DETACHED PART; TRUNCATE; RENAME needs DROP on the
// old name and CREATE and INSERT on the new one; DESCRIBE, SHOW CREATE and EXISTS need some
// grant on the table. Subqueries of INSERT ... VALUES and of KILL QUERY's WHERE count as reads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/access/access_rights.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator::access {

struct Requirement {
  uint32_t privileges = 0;  // every bit is needed; 0: some grant, any
  std::string database;
  std::string table;        // "*": the whole database
};

// Returns what `statement` needs when it runs in `current_database`. Names of statements other
// than SELECT are catalog names ("t" in `default`, "d.t"), as ResolveTableNames leaves them.
std::vector<Requirement> RequirementsOf(const sql::Statement& statement,
                                        std::string_view current_database);

// Returns OK if `rights` meet every requirement, else ACCESS_DENIED for the first one missing:
// "<user>: Not enough privileges. To execute this query, it's necessary to have the grant
// SELECT ON db.t".
absl::Status CheckRequirements(std::string_view user, const AccessRights& rights,
                               const std::vector<Requirement>& requirements);

// ACCESS_DENIED for `user` missing `privileges` on `database`.`table`.
absl::Status NotEnoughPrivileges(std::string_view user, uint32_t privileges,
                                 std::string_view database, std::string_view table);

}  // namespace granite::coordinator::access
