// What an authenticated user may do with a statement: readonly (0/1/2, as in ClickHouse) and the
// setting constraints of the user's profile. The coordinator checks every setting change a query
// carries — its session's SETs, QueryInfo.settings, a SET statement, a statement's SETTINGS —
// against the user before the query runs.
#pragma once

#include <map>
#include <string>

#include "absl/status/status.h"
#include "coordinator/access/users_file.h"
#include "coordinator/sql/ast.h"
#include "core/settings/settings.h"

namespace granite::coordinator::access {

// Checks that `user` may change setting `name` to `value`: READONLY (164) when the user's profile
// says readonly = 1, or when a lower readonly is asked for; SETTING_CONSTRAINT_VIOLATION (452)
// when the value is outside the profile's min/max or the setting is fixed (`name.readonly = 1`).
// A value that does not parse is left to core::Settings to report.
absl::Status CheckSettingChange(const User& user, const std::string& name,
                                const std::string& value);

// Checks every pair of `changes` (a map of name → value text) with CheckSettingChange.
template <class Map>
absl::Status CheckSettingChanges(const User& user, const Map& changes) {
  for (const auto& [name, value] : changes) {
    absl::Status status = CheckSettingChange(user, std::string(name), std::string(value));
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// Returns the query-setting changes `statement` itself makes: SET, or the SETTINGS clause of a
// SELECT (also an INSERT's), CHECK TABLE or ALTER ... PART.
std::map<std::string, std::string> StatementSettingChanges(const sql::Statement& statement);

// Checks that `user`, whose query runs with `settings`, may run `statement`: with readonly 1 or 2
// only reads (SELECT, SHOW, DESCRIBE, CHECK TABLE) and, with 2, SET — else READONLY naming the
// user; then the statement's own setting changes (CheckSettingChange).
absl::Status CheckStatementAccess(const User& user, const core::Settings& settings,
                                  const sql::Statement& statement);

}  // namespace granite::coordinator::access
