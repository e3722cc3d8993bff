// AccessRights: what a user may do to which tables, as ClickHouse's GRANT / REVOKE set it.
//
// Rights are an ordered list of rules, each granting or revoking a set of privileges on a scope:
// every table (`*.*`), one database (`db.*`) or one table (`db.t`). Applying the rules in order
// is ClickHouse's model, partial revokes included (`GRANT SELECT ON *.*` then `REVOKE SELECT ON
// db.secret`): a privilege holds on a scope when the last rule that covers the whole scope grants
// it and no later rule revokes it on part of the scope. Apply() keeps the list short: a new rule
// removes its privileges from earlier rules whose scope it contains.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace granite::coordinator::access {

// Privilege bits. ALL is every bit; SHOW PROCESSLIST (see every user's rows of system.processes
// and system.query_log) and KILL QUERY (of another user's query) only count on *.*.
enum Privilege : uint32_t {
  kSelect = 1u << 0,
  kInsert = 1u << 1,
  kAlter = 1u << 2,
  kCreate = 1u << 3,
  kDrop = 1u << 4,
  kTruncate = 1u << 5,
  kShowProcesslist = 1u << 6,
  kKillQuery = 1u << 7,
};
inline constexpr uint32_t kAllPrivileges = (1u << 8) - 1;

// Returns the bits of a privilege name as ClickHouse spells it, upper-case words separated by
// one space ("SELECT", "CREATE TABLE", "ALL PRIVILEGES", "KILL QUERY"); SYNTAX_ERROR naming it
// and the known ones otherwise.
absl::StatusOr<uint32_t> ParsePrivilege(std::string_view name);
// Returns "ALL" for every bit, else the names joined with ", " in a fixed order.
std::string PrivilegeNames(uint32_t privileges);

// One GRANT or REVOKE. `database` and `table` are names, or "*" for any (`*.*` or `db.*`).
struct AccessRule {
  bool grant = true;
  uint32_t privileges = 0;
  std::string database = "*";
  std::string table = "*";

  // Returns "db.t", "db.*" or "*.*" (names quoted with backticks when not plain identifiers).
  std::string ObjectText() const;
  // Returns "GRANT SELECT ON db.t TO user" or "REVOKE ... FROM user".
  std::string Text(std::string_view user) const;
};

// Holds a user's (or a role's) rules in order, and the rights of the roles granted to it: as in
// ClickHouse, a privilege holds if the user's own rules or any role's grant it (a REVOKE from
// the user does not take away what a role gives).
// Thread-safety: none; a value.
class AccessRights {
 public:
  AccessRights() = default;
  explicit AccessRights(std::vector<AccessRule> rules) : rules_(std::move(rules)) {}

  // Appends `rule` (after dropping its privileges from earlier rules it makes irrelevant).
  void Apply(const AccessRule& rule);
  // Appends every rule of `other`.
  void ApplyAll(const AccessRights& other);
  // Adds the rights of a granted role.
  void AddRole(AccessRights role) { roles_.push_back(std::move(role)); }
  // Returns whether every bit of `privileges` holds on every table of `database`.`table`
  // ("*" for any), each bit from the own rules or from one role.
  bool Allows(uint32_t privileges, std::string_view database, std::string_view table) const;
  // Returns whether some privilege holds on some part of `database`.`table` (SHOW, DESCRIBE).
  bool AllowsAny(std::string_view database, std::string_view table) const;

  // The own rules (not the roles').
  const std::vector<AccessRule>& rules() const { return rules_; }

 private:
  // Allows and AllowsAny on the own rules alone.
  bool OwnAllows(uint32_t privileges, std::string_view database, std::string_view table) const;
  bool OwnAllowsAny(std::string_view database, std::string_view table) const;

  std::vector<AccessRule> rules_;
  std::vector<AccessRights> roles_;
};

// Parses the users file's `grants` value: rules separated by ';', each "PRIV[, PRIV] ON object"
// (a REVOKE as "REVOKE PRIV ON object"); BAD_ARGUMENTS naming the part that is wrong.
absl::StatusOr<std::vector<AccessRule>> ParseGrantList(std::string_view text);

}  // namespace granite::coordinator::access
