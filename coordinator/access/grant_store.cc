#include "coordinator/access/grant_store.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <utility>
#include <variant>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "coordinator/sql/parser.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator::access {
namespace {

constexpr char kVersionPrefix[] = "-- granite access entities, version ";

std::string QuotaText(const QuotaSpec& quota) {
  std::vector<std::string> intervals;
  for (const QuotaInterval& interval : quota.intervals) {
    std::string text = absl::StrCat("FOR INTERVAL ", interval.seconds, " SECOND ");
    if (interval.max.empty()) {
      absl::StrAppend(&text, "TRACKING ONLY");
    } else {
      std::vector<std::string> limits;
      for (const auto& [resource, max] : interval.max) {
        limits.push_back(absl::StrCat(resource, " = ", max));
      }
      absl::StrAppend(&text, "MAX ", absl::StrJoin(limits, ", "));
    }
    intervals.push_back(std::move(text));
  }
  std::string text = absl::StrCat("CREATE QUOTA ", Backquoted(quota.name), " KEYED BY user_name ",
                                  absl::StrJoin(intervals, ", "));
  if (!quota.users.empty()) {
    std::vector<std::string> users;
    for (const std::string& user : quota.users) users.push_back(Backquoted(user));
    absl::StrAppend(&text, " TO ", absl::StrJoin(users, ", "));
  }
  return text;
}

absl::Status NoRole(const std::string& name) {
  return core::Error(core::ErrorCode::kAccessEntityNotFound,
                     absl::StrCat("There is no role `", name, "` in user directories"));
}

// Removes role `name`, its rules, every grant of it and every default-role list's mention.
void DropRole(const std::string& name, AccessEntities* entities) {
  for (auto& [user, roles] : entities->default_roles) {
    for (auto* list : {&roles.names, &roles.except}) {
      list->erase(std::remove(list->begin(), list->end(), name), list->end());
    }
  }
  entities->roles.erase(name);
  entities->rules.erase(name);
  entities->granted_roles.erase(name);
  for (auto it = entities->granted_roles.begin(); it != entities->granted_roles.end();) {
    it->second.erase(name);
    it = it->second.empty() ? entities->granted_roles.erase(it) : std::next(it);
  }
}

// Whether `from` is `to` or has it among the roles granted to it, directly or through roles.
bool RoleReaches(const AccessEntities& entities, const std::string& from, const std::string& to) {
  std::set<std::string> seen = {from};
  std::vector<std::string> pending = {from};
  while (!pending.empty()) {
    const std::string name = pending.back();
    pending.pop_back();
    if (name == to) return true;
    auto found = entities.granted_roles.find(name);
    if (found == entities.granted_roles.end()) continue;
    for (const std::string& role : found->second) {
      if (seen.insert(role).second) pending.push_back(role);
    }
  }
  return false;
}

}  // namespace

std::string Backquoted(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`' || c == '\\') out += '\\';
    out += c;
  }
  return out + "`";
}

RoleSet RoleSetOf(const sql::AccessStatement& statement) {
  RoleSet roles;
  roles.all = statement.to_all;
  roles.names = statement.names;
  roles.except = statement.except;
  return roles;
}

std::string BackquotedList(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  for (const std::string& name : names) quoted.push_back(Backquoted(name));
  return absl::StrJoin(quoted, ", ");
}

std::string AccessEntities::Serialize() const {
  std::string text = absl::StrCat(kVersionPrefix, version, "\n");
  for (const std::string& role : roles) {
    absl::StrAppend(&text, "CREATE ROLE ", Backquoted(role), "\n");
  }
  for (const auto& [grantee, granted] : granted_roles) {
    for (const std::string& role : granted) {
      absl::StrAppend(&text, "GRANT ", Backquoted(role), " TO ", Backquoted(grantee), "\n");
    }
  }
  for (const auto& [user, rights] : rules) {
    for (const AccessRule& rule : rights.rules()) {
      // Names are always quoted here, so any user or table name reads back.
      absl::StrAppend(&text, rule.grant ? "GRANT " : "REVOKE ", PrivilegeNames(rule.privileges),
                      " ON ", rule.database == "*" ? "*" : Backquoted(rule.database), ".",
                      rule.table == "*" ? "*" : Backquoted(rule.table),
                      rule.grant ? " TO " : " FROM ", Backquoted(user), "\n");
    }
  }
  for (const auto& [name, quota] : quotas) absl::StrAppend(&text, QuotaText(quota), "\n");
  for (const auto& [name, policy] : policies) absl::StrAppend(&text, policy.CreateText(), "\n");
  for (const auto& [user, roles] : default_roles) {
    absl::StrAppend(&text, "SET DEFAULT ROLE ", roles.Text(), " TO ", Backquoted(user), "\n");
  }
  return text;
}

absl::StatusOr<AccessEntities> AccessEntities::Parse(std::string_view text) {
  AccessEntities entities;
  int line_number = 0;
  for (absl::string_view raw : absl::StrSplit(core::ToAbsl(text), '\n')) {
    ++line_number;
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty()) continue;
    if (absl::ConsumePrefix(&line, kVersionPrefix)) {
      if (!absl::SimpleAtoi(line, &entities.version)) {
        return core::Error(core::ErrorCode::kCorruptedData,
                           absl::StrCat("access entities, line ", line_number, ": bad version"));
      }
      continue;
    }
    absl::StatusOr<sql::Statement> parsed = sql::ParseStatement(std::string(line));
    const auto* access = parsed.ok() ? std::get_if<sql::AccessStatement>(&*parsed) : nullptr;
    absl::Status applied =
        access == nullptr ? parsed.status() : ApplyAccessStatement(*access, &entities);
    if (access == nullptr && applied.ok()) applied = absl::InvalidArgumentError("not an access statement");
    if (!applied.ok()) {
      return core::Error(core::ErrorCode::kCorruptedData,
                         absl::StrCat("access entities, line ", line_number, ": ",
                                      applied.message()));
    }
  }
  return entities;
}

AccessRights WithoutIdleRevokes(const AccessRights& rights) {
  std::vector<AccessRule> kept;
  for (AccessRule rule : rights.rules()) {
    if (!rule.grant) {
      uint32_t granted = 0;
      for (const AccessRule& earlier : kept) {
        const bool intersect =
            (earlier.database == "*" || rule.database == "*" || earlier.database == rule.database) &&
            (earlier.table == "*" || rule.table == "*" || earlier.table == rule.table);
        if (earlier.grant && intersect) granted |= earlier.privileges;
      }
      rule.privileges &= granted;
    }
    if (rule.privileges != 0) kept.push_back(std::move(rule));
  }
  return AccessRights(std::move(kept));
}

absl::Status ApplyAccessStatement(const sql::AccessStatement& statement,
                                  AccessEntities* entities) {
  using Kind = sql::AccessStatement::Kind;
  switch (statement.kind) {
    case Kind::kGrant:
    case Kind::kRevoke: {
      AccessRule rule;
      rule.grant = statement.kind == Kind::kGrant;
      for (const std::string& name : statement.privileges) {
        ASSIGN_OR_RETURN(uint32_t bits, ParsePrivilege(name));
        rule.privileges |= bits;
      }
      rule.database = statement.database;
      rule.table = statement.table;
      for (const std::string& user : statement.users) {
        AccessRights& rights = entities->rules[user];
        rights.Apply(rule);
        if (rights.rules().empty()) entities->rules.erase(user);
      }
      return absl::OkStatus();
    }
    case Kind::kCreateQuota: {
      const std::string& name = statement.names.front();
      if (entities->quotas.count(name) && !statement.or_replace) {
        if (statement.if_not_exists) return absl::OkStatus();
        return core::Error(core::ErrorCode::kAccessEntityAlreadyExists,
                           absl::StrCat("quota `", name, "`: cannot insert because quota `", name,
                                        "` already exists"));
      }
      QuotaSpec quota;
      quota.name = name;
      quota.users = statement.users;
      for (const auto& interval : statement.intervals) {
        quota.intervals.push_back(QuotaInterval{interval.seconds, interval.max});
      }
      entities->quotas[name] = std::move(quota);
      return absl::OkStatus();
    }
    case Kind::kDropQuota: {
      for (const std::string& name : statement.names) {
        if (!entities->quotas.count(name) && !statement.if_exists) {
          return core::Error(core::ErrorCode::kAccessEntityNotFound,
                             absl::StrCat("There is no quota `", name, "`"));
        }
      }
      for (const std::string& name : statement.names) entities->quotas.erase(name);
      return absl::OkStatus();
    }
    case Kind::kCreateRole: {
      for (const std::string& name : statement.names) {
        if (entities->roles.count(name) && !statement.or_replace && !statement.if_not_exists) {
          return core::Error(core::ErrorCode::kAccessEntityAlreadyExists,
                             absl::StrCat("role `", name, "`: cannot insert because role `", name,
                                          "` already exists"));
        }
      }
      for (const std::string& name : statement.names) {
        if (statement.or_replace) DropRole(name, entities);  // a new role: no grants
        entities->roles.insert(name);
      }
      return absl::OkStatus();
    }
    case Kind::kDropRole: {
      for (const std::string& name : statement.names) {
        if (!entities->roles.count(name) && !statement.if_exists) return NoRole(name);
      }
      for (const std::string& name : statement.names) DropRole(name, entities);
      return absl::OkStatus();
    }
    case Kind::kGrantRole:
    case Kind::kRevokeRole: {
      for (const std::string& role : statement.names) {
        if (!entities->roles.count(role)) return NoRole(role);
      }
      for (const std::string& grantee : statement.users) {
        std::set<std::string>& granted = entities->granted_roles[grantee];
        for (const std::string& role : statement.names) {
          if (statement.kind == Kind::kRevokeRole) {
            granted.erase(role);
          } else if (role == grantee || RoleReaches(*entities, role, grantee)) {
            return core::Error(core::ErrorCode::kBadArguments,
                               absl::StrCat("Role `", role, "` cannot be granted to `", grantee,
                                            "`: roles would be granted to themselves"));
          } else {
            granted.insert(role);
          }
        }
        if (granted.empty()) entities->granted_roles.erase(grantee);
      }
      return absl::OkStatus();
    }
    case Kind::kCreatePolicy: {
      RowPolicy policy = PolicyFrom(statement);
      const std::string name = policy.FullName();
      if (entities->policies.count(name) && !statement.or_replace) {
        if (statement.if_not_exists) return absl::OkStatus();
        return core::Error(core::ErrorCode::kAccessEntityAlreadyExists,
                           absl::StrCat("row policy `", name,
                                        "`: cannot insert because row policy `", name,
                                        "` already exists"));
      }
      entities->policies[name] = std::move(policy);
      return absl::OkStatus();
    }
    case Kind::kDropPolicy: {
      const std::string name = PolicyFrom(statement).FullName();
      if (!entities->policies.erase(name) && !statement.if_exists) {
        return core::Error(core::ErrorCode::kAccessEntityNotFound,
                           absl::StrCat("There is no row policy `", name, "` in user directories"));
      }
      return absl::OkStatus();
    }
    case Kind::kSetDefaultRole: {
      // Whether the roles are granted is the executor's check: a stored list that names a role
      // revoked since still loads (it enables nothing the user lacks).
      for (const std::string& user : statement.users) {
        entities->default_roles[user] = RoleSetOf(statement);
      }
      return absl::OkStatus();
    }
    case Kind::kShowGrants:
    case Kind::kShowPolicies:
    case Kind::kShowCreatePolicy:
    case Kind::kSetRole:
      break;
  }
  return core::Error(core::ErrorCode::kLogicalError, "A SHOW statement changes nothing");
}

GrantStore& GrantStore::Current() {
  static GrantStore* store = new GrantStore();
  return *store;
}

absl::Status GrantStore::EnsureLoaded(const Loader& load) {
  if (loaded()) return absl::OkStatus();
  core::MutexLock change(change_mu_);
  if (loaded()) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::vector<std::string> texts, load());
  AccessEntities newest;
  for (const std::string& text : texts) {
    ASSIGN_OR_RETURN(AccessEntities entities, AccessEntities::Parse(text));
    if (entities.version >= newest.version) newest = std::move(entities);
  }
  core::MutexLock lock(mu_);
  entities_ = std::move(newest);
  loaded_ = true;
  return absl::OkStatus();
}

absl::Status GrantStore::InstallIfNewer(std::string_view text) {
  ASSIGN_OR_RETURN(AccessEntities entities, AccessEntities::Parse(text));
  core::MutexLock lock(mu_);
  if (loaded_ && entities.version > entities_.version) entities_ = std::move(entities);
  return absl::OkStatus();
}

bool GrantStore::loaded() const {
  core::MutexLock lock(mu_);
  return loaded_;
}

AccessRights GrantStore::RightsOf(const User& user, const RoleSet* current) const {
  AccessRights rights = user.grants;
  core::MutexLock lock(mu_);
  auto found = entities_.rules.find(user.name);
  if (found != entities_.rules.end()) rights.ApplyAll(found->second);
  rights = WithoutIdleRevokes(rights);
  for (const std::string& role : EnabledRolesLocked(user.name, current)) {
    auto role_rules = entities_.rules.find(role);
    if (role_rules != entities_.rules.end()) rights.AddRole(WithoutIdleRevokes(role_rules->second));
  }
  return rights;
}

std::vector<std::string> GrantStore::EnabledRoles(const std::string& user,
                                                  const RoleSet* current) const {
  core::MutexLock lock(mu_);
  return EnabledRolesLocked(user, current);
}

std::set<std::string> GrantStore::GrantedRoles(const std::string& user) const {
  core::MutexLock lock(mu_);
  auto found = entities_.granted_roles.find(user);
  return found == entities_.granted_roles.end() ? std::set<std::string>() : found->second;
}

std::vector<std::string> GrantStore::EnabledRolesLocked(const std::string& user,
                                                        const RoleSet* current) const {
  auto direct = entities_.granted_roles.find(user);
  if (direct == entities_.granted_roles.end()) return {};
  const RoleSet all;
  const RoleSet* active = current;
  if (active == nullptr) {
    auto defaults = entities_.default_roles.find(user);
    active = defaults != entities_.default_roles.end() ? &defaults->second : &all;
  }
  std::vector<std::string> enabled;
  std::set<std::string> seen;
  for (const std::string& role : direct->second) {
    if (!active->Contains(role) || !seen.insert(role).second) continue;
    enabled.push_back(role);
    for (std::string& inherited : RolesOf(role)) {
      if (seen.insert(inherited).second) enabled.push_back(std::move(inherited));
    }
  }
  return enabled;
}

std::vector<std::string> GrantStore::RolesOf(const std::string& grantee) const {
  std::vector<std::string> roles;
  std::set<std::string> seen;
  std::vector<std::string> pending = {grantee};
  while (!pending.empty()) {
    const std::string name = pending.back();
    pending.pop_back();
    auto found = entities_.granted_roles.find(name);
    if (found == entities_.granted_roles.end()) continue;
    for (const std::string& role : found->second) {
      if (seen.insert(role).second) {
        roles.push_back(role);
        pending.push_back(role);
      }
    }
  }
  return roles;
}

std::vector<QuotaSpec> GrantStore::QuotasOf(const User& user) const {
  std::vector<QuotaSpec> quotas;
  if (user.quota) quotas.push_back(*user.quota);
  core::MutexLock lock(mu_);
  for (const auto& [name, quota] : entities_.quotas) {
    for (const std::string& to : quota.users) {
      if (to == user.name) {
        quotas.push_back(quota);
        break;
      }
    }
  }
  return quotas;
}

absl::StatusOr<sql::ExprPtr> GrantStore::RowFilter(const std::string& user,
                                                   const std::string& database,
                                                   const std::string& table,
                                                   const RoleSet* current) const {
  std::vector<RowPolicy> policies;
  std::set<std::string> roles;
  {
    core::MutexLock lock(mu_);
    if (!loaded_) {
      // Fail closed: without the stored policies no table is read unfiltered.
      return core::Error(core::ErrorCode::kAllConnectionTriesFailed,
                         "The row policies could not be read from the workers");
    }
    for (const auto& [name, policy] : entities_.policies) {
      if (policy.database == database && policy.table == table) policies.push_back(policy);
    }
    if (policies.empty()) return nullptr;
    for (std::string& role : EnabledRolesLocked(user, current)) roles.insert(std::move(role));
  }
  return RowFilterFor(policies, user, roles);
}

AccessEntities GrantStore::Snapshot() const {
  core::MutexLock lock(mu_);
  return entities_;
}

absl::Status GrantStore::Change(const sql::AccessStatement& statement, const Saver& save) {
  core::MutexLock change(change_mu_);
  AccessEntities next = Snapshot();
  RETURN_IF_ERROR(ApplyAccessStatement(statement, &next));
  ++next.version;
  absl::Status saved = save(next.Serialize());
  core::MutexLock lock(mu_);
  if (!saved.ok()) {
    loaded_ = false;  // some workers may hold the new text: read them again
    return saved;
  }
  entities_ = std::move(next);
  return absl::OkStatus();
}

void GrantStore::ResetForTest() {
  core::MutexLock lock(mu_);
  entities_ = AccessEntities();
  loaded_ = false;
}

}  // namespace granite::coordinator::access
