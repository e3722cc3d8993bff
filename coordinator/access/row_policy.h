// Row policies (CREATE ROW POLICY, as ClickHouse spells it): a condition on a table's rows that
// the SELECTs of some users see the table through. Kept with the grants (grant_store.h).
//
// Which rows a user reads of a table, as ClickHouse with its current defaults
// (users_without_row_policies_can_read_rows = true): the rows where at least one of the
// PERMISSIVE policies that apply to the user is true (every row when none applies), and every
// RESTRICTIVE policy that applies to the user is true. A policy applies to the users and roles of
// its TO (roles: granted directly or through other roles), or to everyone (TO ALL) but those of
// EXCEPT; without TO, to nobody. A condition that is NULL for a row hides the row.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator::access {

struct RowPolicy {
  std::string name;
  std::string database;
  std::string table;
  std::string condition;  // SQL text, one line
  bool restrictive = false;
  bool to_all = false;
  std::vector<std::string> to;      // users or roles (without to_all)
  std::vector<std::string> except;  // with to_all

  // "name ON db.table", ClickHouse's full name of a policy (system.row_policies.name).
  std::string FullName() const;
  // The CREATE ROW POLICY statement that makes this policy again (one line).
  std::string CreateText() const;
  // Whether the policy applies to `user`, who holds `roles` (directly or through roles).
  bool AppliesTo(const std::string& user, const std::set<std::string>& roles) const;

  friend bool operator==(const RowPolicy&, const RowPolicy&) = default;
};

// Returns the policy a CREATE ROW POLICY statement describes (of DROP / SHOW CREATE ROW POLICY:
// its name and table, enough for FullName). REQUIRES: database resolved.
RowPolicy PolicyFrom(const sql::AccessStatement& create);

// Returns the filter the `policies` (those on one table) put on what `user` (holding `roles`)
// reads: null when none applies. The condition texts are parsed again here (they were checked
// when the policies were created). Errors: a condition that no longer parses, as
// CORRUPTED_DATA naming the policy.
absl::StatusOr<sql::ExprPtr> RowFilterFor(const std::vector<RowPolicy>& policies,
                                          const std::string& user,
                                          const std::set<std::string>& roles);

}  // namespace granite::coordinator::access
