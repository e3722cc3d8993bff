// The users file: who may query the coordinator, with which password, from which networks and
// with which settings. Format (docs/users.md): INI-like sections
//
//   [profile analysts]             settings: `name = value`; constraints on what a user may
//   max_execution_time = 60        change with SETTINGS / SET / QueryInfo.settings:
//   max_execution_time.max = 600   `name.min = v`, `name.max = v` (UInt64 settings) and
//   use_pruning.readonly = 1       `name.readonly = 1` (may not change at all)
//
//   [user alice]
//   password_sha256_hex = 5e8848…  or password_bcrypt_hash = $2b$10$…, or no_password = 1
//   networks = 10.0.0.0/8, ::1     default: loopback (ip_network.h)
//   profile = analysts             default: the profile named `default`, if any
//   readonly = 1                   0, 1 or 2 as in ClickHouse; overrides the profile's
//   access_management = 1          may GRANT / REVOKE and CREATE / DROP QUOTA (default 0)
//   grants = SELECT ON db.*; INSERT ON db.t   the user's rights (default: ALL ON *.*)
//   quota = hourly                 a [quota NAME] section
//
//   [quota hourly]                 ClickHouse's <quotas>: each `duration` (seconds) starts an
//   duration = 3600                interval, followed by its limits: queries, errors,
//   queries = 100                  result_rows, read_rows, execution_time (seconds), ...
//
// Lines starting with '#' are comments. Loaded once at start-up; errors name the line.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/access/access_rights.h"
#include "coordinator/access/ip_network.h"
#include "coordinator/access/password.h"
#include "coordinator/access/quota_spec.h"
#include "core/settings/settings.h"

namespace granite::coordinator::access {

// What a profile allows a user to do with one setting.
struct SettingConstraint {
  std::optional<uint64_t> min;
  std::optional<uint64_t> max;
  bool is_const = false;  // `name.readonly = 1`: the profile's value is final
};

// One user, its profile resolved.
struct User {
  std::string name;
  PasswordKind password_kind = PasswordKind::kNone;
  std::string password_hash;  // hex SHA-256 or the bcrypt string; empty for kNone
  std::vector<IpNetwork> networks;
  std::string profile;        // the profile's name; empty if none
  core::Settings settings;    // the defaults, then the profile's values and the user's readonly
  std::map<std::string, SettingConstraint> constraints;  // by setting name
  bool access_management = false;  // may GRANT / REVOKE and manage quotas
  // The file's rights (ALL ON *.* unless the entry lists `grants`); GRANT / REVOKE apply after
  // them (grant_store.h).
  AccessRights grants{{AccessRule{true, kAllPrivileges, "*", "*"}}};
  std::optional<QuotaSpec> quota;  // the [quota NAME] the entry names
};

// Returns the users of the file's `text`; BAD_ARGUMENTS naming the line for a malformed line, an
// unknown key or setting, a bad value, a user without exactly one password line, or a profile
// that is not defined.
absl::StatusOr<std::map<std::string, User>> ParseUsersFile(std::string_view text);

// Reads and parses the file at `path` (CANNOT_READ_FROM_FILE_DESCRIPTOR if it cannot be read).
absl::StatusOr<std::map<std::string, User>> LoadUsersFile(const std::string& path);

}  // namespace granite::coordinator::access
