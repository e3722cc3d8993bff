// GrantStore: the access entities made with SQL — the GRANT / REVOKE rules of each user and the
// quotas of CREATE QUOTA — held by the coordinator and kept durably on every worker.
//
// Persistence: the whole state is one text of SQL statements headed by a version number
// (Serialize / Parse). Every change writes the new text to every worker (CatalogOp SET_ACCESS,
// storage/access_file.h) before it takes effect on the coordinator; a coordinator that starts
// (or whose last write reached only some workers) loads the text with the highest version from
// the workers that answer (ListTables). With etcd (coordinator/coord/etcd_catalog.h) the text is
// also kept there and other coordinators install it when it changes; without, a second
// coordinator sees the changes after its next restart.
//
// A user's rights are those of the users file (User::grants: ALL ON *.* unless the file says
// otherwise), then the rules stored here, in order, together with the rights of the roles granted
// to it (CREATE ROLE, GRANT role TO user; roles may be granted to roles).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/access/access_rights.h"
#include "coordinator/access/quota_spec.h"
#include "coordinator/access/role_set.h"
#include "coordinator/access/row_policy.h"
#include "coordinator/access/users_file.h"
#include "coordinator/sql/ast.h"
#include "core/mutex.h"

namespace granite::coordinator::access {

// What SQL has made, as one value.
struct AccessEntities {
  uint64_t version = 0;
  std::map<std::string, AccessRights> rules;  // by user or role name
  std::map<std::string, QuotaSpec> quotas;    // by quota name
  std::set<std::string> roles;
  std::map<std::string, std::set<std::string>> granted_roles;  // user or role -> its roles
  std::map<std::string, RowPolicy> policies;  // by full name ("p ON db.t")
  std::map<std::string, RoleSet> default_roles;  // by user (SET DEFAULT ROLE); else ALL

  // Returns the state as SQL text (a version line, then one statement per line).
  std::string Serialize() const;
  // Reads Serialize()'s output ("" is the empty state); CORRUPTED_DATA naming the line.
  static absl::StatusOr<AccessEntities> Parse(std::string_view text);
};

// Thread-safety: every method may be called concurrently; changes are serialized.
class GrantStore {
 public:
  // Returns the texts held by the workers that answered; fails if none answered.
  using Loader = std::function<absl::StatusOr<std::vector<std::string>>()>;
  // Writes `text` to every worker; fails if any write failed.
  using Saver = std::function<absl::Status(const std::string& text)>;

  // The process's store.
  static GrantStore& Current();

  // Loads the state with `load` unless it is loaded (the highest version of the texts wins).
  absl::Status EnsureLoaded(const Loader& load) EXCLUDES(mu_);
  bool loaded() const EXCLUDES(mu_);

  // Returns `user`'s rights: the file's, then the rules stored for it, with those of its enabled
  // roles (role_set.h): `current` (SET ROLE), or null for the user's default roles.
  AccessRights RightsOf(const User& user, const RoleSet* current = nullptr) const EXCLUDES(mu_);
  // Returns the roles enabled for `user` (as RightsOf), each once.
  std::vector<std::string> EnabledRoles(const std::string& user,
                                        const RoleSet* current = nullptr) const EXCLUDES(mu_);
  // Returns the roles granted to `user` directly.
  std::set<std::string> GrantedRoles(const std::string& user) const EXCLUDES(mu_);
  // Returns the quotas that apply to `user`: the file's, then those created TO it.
  std::vector<QuotaSpec> QuotasOf(const User& user) const EXCLUDES(mu_);
  AccessEntities Snapshot() const EXCLUDES(mu_);
  // Returns the filter the row policies on `database`.`table` put on what `user` reads (null:
  // none; row_policy.h says which rows pass).
  absl::StatusOr<sql::ExprPtr> RowFilter(const std::string& user, const std::string& database,
                                         const std::string& table,
                                         const RoleSet* current = nullptr) const EXCLUDES(mu_);

  // Applies a GRANT, REVOKE, CREATE / DROP QUOTA or ROLE (user names already checked by the caller)
  // to a copy of the state, saves it with `save` and installs it. On a failed save nothing
  // changes here, but the state is reloaded before its next use (some workers may hold it).
  // Errors: ACCESS_ENTITY_ALREADY_EXISTS / ACCESS_ENTITY_NOT_FOUND for quotas and roles,
  // SYNTAX_ERROR
  // for an unknown privilege, the save's error.
  // REQUIRES: loaded(); `statement` names its object with a database ("*" or a name).
  absl::Status Change(const sql::AccessStatement& statement, const Saver& save) EXCLUDES(mu_);

  // Installs the state serialized in `text` (written by another coordinator, seen through etcd)
  // if it is newer than the loaded one; nothing while nothing is loaded (the next EnsureLoaded
  // reads the workers, which have it). Errors: Parse's.
  absl::Status InstallIfNewer(std::string_view text) EXCLUDES(mu_);

  // Drops the state (tests).
  void ResetForTest() EXCLUDES(mu_);

 private:
  // The roles granted to `grantee`, directly or through roles (each once).
  std::vector<std::string> RolesOf(const std::string& grantee) const REQUIRES(mu_);
  // EnabledRoles under the lock.
  std::vector<std::string> EnabledRolesLocked(const std::string& user,
                                              const RoleSet* current) const REQUIRES(mu_);

  mutable core::Mutex mu_{"grant_store"};
  AccessEntities entities_ GUARDED_BY(mu_);
  bool loaded_ GUARDED_BY(mu_) = false;
  core::Mutex change_mu_{"grant_store_change"};  // one change at a time, held across the save
};

// Returns `rights` without the privileges of revokes that no earlier grant gives on their scope
// (they change nothing once every rule is in the list: SHOW GRANTS need not print them).
AccessRights WithoutIdleRevokes(const AccessRights& rights);

// `name` in backquotes, with ` and \ escaped: reads back as that name in any statement.
std::string Backquoted(std::string_view name);
// The RoleSet a SET ROLE / SET DEFAULT ROLE statement names (not its DEFAULT).
RoleSet RoleSetOf(const sql::AccessStatement& statement);

// The names backquoted, joined by ", ".
std::string BackquotedList(const std::vector<std::string>& names);

// Applies `statement` (GRANT, REVOKE, CREATE or DROP QUOTA, ROLE or ROW POLICY) to `entities`. Roles must
// exist; a role granted to itself, directly or through other roles, is BAD_ARGUMENTS.
absl::Status ApplyAccessStatement(const sql::AccessStatement& statement,
                                  AccessEntities* entities);

}  // namespace granite::coordinator::access
