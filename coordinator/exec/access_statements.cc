#include "coordinator/exec/access_statements.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "coordinator/access/access_control.h"
#include "core/absl_compat.h"
#include "coordinator/access/grant_store.h"
#include "coordinator/access/privilege_check.h"
#include "coordinator/access/quota_book.h"
#include "coordinator/cluster/worker_client.h"
#include "coordinator/system/table_builder.h"
#include "core/access_error_codes.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "core/worker_api.h"

namespace granite::coordinator {
namespace {

using access::AccessRights;
using access::GrantStore;
using core::TypeId;

thread_local bool show_all_process_rows = false;

// Reads the stored access text of every worker that answers.
GrantStore::Loader LoaderFor(const WorkerSet& workers) {
  return [&workers]() -> absl::StatusOr<std::vector<std::string>> {
    std::vector<absl::StatusOr<core::worker_api::TableListing>> answers(
        workers.size(), absl::UnavailableError("not asked"));
    workers.CallAll([&](size_t i) {
      answers[i] = WorkerClient(workers).ListTables(i, std::chrono::seconds(5));
      return absl::OkStatus();
    }).IgnoreError();
    std::vector<std::string> texts;
    absl::Status first = core::Error(core::ErrorCode::kAllConnectionTriesFailed,
                                     "No worker to read the stored grants from");
    bool failed = false;
    for (auto& answer : answers) {
      if (answer.ok()) {
        texts.push_back(std::move(answer->access));
      } else if (!failed) {
        first = answer.status();
        failed = true;
      }
    }
    if (texts.empty()) return first;
    return texts;
  };
}

// Writes the access text to every worker.
GrantStore::Saver SaverFor(const WorkerSet& workers) {
  return [&workers](const std::string& text) {
    core::worker_api::CatalogOpRequest request;
    request.kind = core::worker_api::CatalogOpRequest::Kind::kSetAccess;
    request.new_name = text;
    return workers.CallAll([&](size_t i) {
      return WorkerClient(workers).CatalogOp(i, request, std::chrono::seconds(60));
    });
  };
}

// The rights of the query's user, the stored grants loaded.
absl::StatusOr<AccessRights> LoadedRights(const QueryContext& query, const WorkerSet& workers) {
  RETURN_IF_ERROR(GrantStore::Current().EnsureLoaded(LoaderFor(workers)));
  return GrantStore::Current().RightsOf(*query.user, query.roles());
}

absl::Status NeedsAccessManagement(const QueryContext& query) {
  if (query.user->access_management) return absl::OkStatus();
  return core::Error(core::ErrorCode::kAccessDenied,
                     absl::StrCat(query.user->name, ": Not enough privileges. To execute this "
                                  "query, it's necessary to have access_management = 1 (a "
                                  "user of the users file that manages access)"));
}

std::shared_ptr<const access::User> FindUser(const std::string& name) {
  for (auto& user : access::AccessControl::Current()->Users()) {
    if (user->name == name) return user;
  }
  return nullptr;
}

// Each name is a user, or (with `roles`, the stored grants loaded) a role.
absl::Status CheckGranteesExist(const std::vector<std::string>& names, bool roles) {
  const std::set<std::string> stored =
      roles ? GrantStore::Current().Snapshot().roles : std::set<std::string>();
  for (const std::string& name : names) {
    if (FindUser(name) == nullptr && !stored.count(name)) {
      return core::Error(core::ErrorCode::kUnknownUser,
                         absl::StrCat("There is no user", roles ? " or role" : "", " `", name,
                                      "` in user directories"));
    }
  }
  return absl::OkStatus();
}

QueryResult ResultOf(LocalTable table, std::string format = "") {
  QueryResult result;
  result.has_rows = true;
  result.names = std::move(table.names);
  result.types = std::move(table.types);
  result.block = std::move(table.block);
  result.format = std::move(format);
  return result;
}

absl::StatusOr<QueryResult> ShowGrants(const sql::AccessStatement& show, QueryContext* query,
                                       const WorkerSet& workers) {
  std::vector<std::string> names = show.users;
  if (names.empty()) names.push_back(query->user->name);
  for (const std::string& name : names) {
    if (name != query->user->name) RETURN_IF_ERROR(NeedsAccessManagement(*query));
  }
  RETURN_IF_ERROR(GrantStore::Current().EnsureLoaded(LoaderFor(workers)));
  RETURN_IF_ERROR(CheckGranteesExist(names, /*roles=*/true));
  TableBuilder table({absl::StrCat("GRANTS FOR ", absl::StrJoin(names, ", "))},
                     {TypeId::kString});
  const access::AccessEntities entities = GrantStore::Current().Snapshot();
  for (const std::string& name : names) {
    std::shared_ptr<const access::User> user = FindUser(name);
    auto role_rules = entities.rules.find(name);
    const AccessRights rights = user != nullptr ? GrantStore::Current().RightsOf(*user)
                                : role_rules != entities.rules.end()
                                    ? access::WithoutIdleRevokes(role_rules->second)
                                    : AccessRights();
    for (const access::AccessRule& rule : rights.rules()) table[0].AppendString(rule.Text(name));
    auto granted = entities.granted_roles.find(name);
    if (granted == entities.granted_roles.end()) continue;
    for (const std::string& role : granted->second) {
      table[0].AppendString(absl::StrCat("GRANT ", role, " TO ", name));
    }
  }
  return ResultOf(table.Build(), show.format);
}

LocalTable GrantsTable(const QueryContext& query) {
  TableBuilder table({"user_name", "access_type", "database", "table", "is_partial_revoke",
                      "grant_option"},
                     {TypeId::kString, TypeId::kString, core::MakeNullable(TypeId::kString),
                      core::MakeNullable(TypeId::kString), TypeId::kUInt8, TypeId::kUInt8});
  for (const auto& user : access::AccessControl::Current()->Users()) {
    if (!query.user->access_management && user->name != query.user->name) continue;
    // RightsOf returns the rights by value: held here, or the loop would walk a dead temporary.
    const access::AccessRights rights = GrantStore::Current().RightsOf(*user);
    for (const access::AccessRule& rule : rights.rules()) {
      std::vector<std::string> types;
      if ((rule.privileges & access::kAllPrivileges) == access::kAllPrivileges) {
        types.push_back("ALL");
      } else {
        for (uint32_t bit = 1; bit & access::kAllPrivileges; bit <<= 1) {
          if (rule.privileges & bit) types.push_back(access::PrivilegeNames(bit));
        }
      }
      for (const std::string& type : types) {
        table[0].AppendString(user->name);
        table[1].AppendString(type);
        for (auto [column, name] : {std::pair{2, &rule.database}, std::pair{3, &rule.table}}) {
          if (*name == "*") {
            table[column].AppendNull();
          } else {
            table[column].AppendString(*name);
          }
        }
        table[4].Append<uint8_t>(rule.grant ? 0 : 1);
        table[5].Append<uint8_t>(0);
      }
    }
  }
  return table.Build();
}

LocalTable QuotasTable(const QueryContext& query) {
  TableBuilder table({"name", "storage", "keys", "durations", "apply_to_list"},
                     {TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kString,
                      TypeId::kString});
  std::vector<access::QuotaSpec> quotas;
  for (const auto& user : access::AccessControl::Current()->Users()) {
    if (user->quota && (query.user->access_management || user->name == query.user->name)) {
      access::QuotaSpec quota = *user->quota;
      quota.users = {user->name};
      bool merged = false;
      for (access::QuotaSpec& seen : quotas) {
        if (seen.name == quota.name && seen.from_file) {
          seen.users.push_back(user->name);
          merged = true;
        }
      }
      if (!merged) quotas.push_back(std::move(quota));
    }
  }
  for (auto& [name, quota] : GrantStore::Current().Snapshot().quotas) {
    bool mine = false;
    for (const std::string& user : quota.users) mine = mine || user == query.user->name;
    if (query.user->access_management || mine) quotas.push_back(quota);
  }
  for (const access::QuotaSpec& quota : quotas) {
    std::vector<std::string> durations;
    for (const access::QuotaInterval& interval : quota.intervals) {
      durations.push_back(absl::StrCat(interval.seconds));
    }
    table[0].AppendString(quota.name);
    table[1].AppendString(quota.from_file ? "users_file" : "workers");
    table[2].AppendString("user_name");
    table[3].AppendString(absl::StrCat("[", absl::StrJoin(durations, ","), "]"));
    table[4].AppendString(absl::StrJoin(quota.users, ","));
  }
  return table.Build();
}

LocalTable QuotaUsageTable(const QueryContext& query) {
  static constexpr const char* kResources[] = {"queries", "query_selects", "query_inserts",
                                               "errors", "result_rows", "result_bytes",
                                               "read_rows", "read_bytes"};
  std::vector<std::string> names = {"quota_name", "quota_key", "start_time", "end_time",
                                    "duration"};
  std::vector<TypeId> types = {TypeId::kString, TypeId::kString, TypeId::kDateTime,
                               TypeId::kDateTime, TypeId::kUInt64};
  for (const char* resource : kResources) {
    names.push_back(resource);
    names.push_back(absl::StrCat("max_", resource));
    types.push_back(TypeId::kUInt64);
    types.push_back(core::MakeNullable(TypeId::kUInt64));
  }
  names.push_back("execution_time");
  names.push_back("max_execution_time");
  types.push_back(TypeId::kFloat64);
  types.push_back(core::MakeNullable(TypeId::kFloat64));
  TableBuilder table(names, types);
  const std::string& user = query.user->name;
  for (const access::QuotaUsage& usage : access::QuotaBook::Current().UsageOf(
           user, GrantStore::Current().QuotasOf(*query.user))) {
    table[0].AppendString(usage.quota);
    table[1].AppendString(user);
    table[2].Append<uint32_t>(static_cast<uint32_t>(usage.end - usage.seconds));
    table[3].Append<uint32_t>(static_cast<uint32_t>(usage.end));
    table[4].Append<uint64_t>(usage.seconds);
    size_t column = 5;
    auto used = [&](const std::string& resource) {
      auto found = usage.used.find(resource);
      return found == usage.used.end() ? 0 : found->second;
    };
    for (const char* resource : kResources) {
      table[column++].Append<uint64_t>(used(resource));
      auto max = usage.max.find(resource);
      if (max == usage.max.end()) {
        table[column++].AppendNull();
      } else {
        table[column++].Append<uint64_t>(max->second);
      }
    }
    table[column++].Append<double>(static_cast<double>(used("execution_time")) / 1e6);
    auto max = usage.max.find("execution_time");
    if (max == usage.max.end()) {
      table[column].AppendNull();
    } else {
      table[column].Append<double>(static_cast<double>(max->second));
    }
  }
  return table.Build();
}

// system.roles: name, storage.
LocalTable RolesTable() {
  TableBuilder table({"name", "storage"}, {TypeId::kString, TypeId::kString});
  for (const std::string& role : GrantStore::Current().Snapshot().roles) {
    table[0].AppendString(role);
    table[1].AppendString("workers");
  }
  return table.Build();
}

// system.role_grants as ClickHouse's: who (a user or a role) holds which role. Users who do not
// manage access see their own rows.
LocalTable RoleGrantsTable(const QueryContext& query) {
  TableBuilder table({"user_name", "role_name", "granted_role_name", "granted_role_is_default",
                      "with_admin_option"},
                     {core::MakeNullable(TypeId::kString), core::MakeNullable(TypeId::kString),
                      TypeId::kString, TypeId::kUInt8, TypeId::kUInt8});
  const access::AccessEntities entities = GrantStore::Current().Snapshot();
  for (const auto& [grantee, granted] : entities.granted_roles) {
    if (!query.user->access_management && grantee != query.user->name) continue;
    const bool role = entities.roles.count(grantee) > 0;
    for (const std::string& name : granted) {
      table[role ? 0 : 1].AppendNull();
      table[role ? 1 : 0].AppendString(grantee);
      table[2].AppendString(name);
      auto defaults = entities.default_roles.find(grantee);
      table[3].Append<uint8_t>(defaults == entities.default_roles.end() ||
                               defaults->second.Contains(name));
      table[4].Append<uint8_t>(0);
    }
  }
  return table.Build();
}

// Checks that every role `roles` names exists (ACCESS_ENTITY_NOT_FOUND) and is granted to
// `user` directly (SET_NON_GRANTED_ROLE: "... should be granted to set as <as>").
absl::Status CheckRolesGranted(const access::RoleSet& roles, const std::string& user,
                               std::string_view as) {
  const std::set<std::string> stored = GrantStore::Current().Snapshot().roles;
  const std::set<std::string> granted = GrantStore::Current().GrantedRoles(user);
  for (const std::vector<std::string>* list : {&roles.names, &roles.except}) {
    for (const std::string& role : *list) {
      if (!stored.count(role)) {
        return core::Error(core::ErrorCode::kAccessEntityNotFound,
                           absl::StrCat("There is no role `", role, "` in user directories"));
      }
      if (!granted.count(role)) {
        return core::Error(core::kSetNonGrantedRole,
                           absl::StrCat("Role `", role, "` should be granted to ", user,
                                        " to set as ", core::ToAbsl(as)));
      }
    }
  }
  return absl::OkStatus();
}

// SET ROLE: the roles in force for the rest of the session (any user, for itself).
absl::StatusOr<QueryResult> SetRole(const sql::AccessStatement& set, QueryContext* query) {
  if (set.role_default) {
    query->current_roles.reset();
  } else {
    const access::RoleSet roles = access::RoleSetOf(set);
    RETURN_IF_ERROR(CheckRolesGranted(roles, query->user->name, "current"));
    query->current_roles = roles;
  }
  query->roles_changed = true;
  return QueryResult{};
}

// SET DEFAULT ROLE ... TO users: for another user than oneself, access management.
absl::StatusOr<QueryResult> SetDefaultRole(const sql::AccessStatement& set, QueryContext* query,
                                           const WorkerSet& workers) {
  sql::AccessStatement change = set;
  for (std::string& user : change.users) {
    if (absl::EqualsIgnoreCase(user, "CURRENT_USER")) user = query->user->name;
    if (user != query->user->name) RETURN_IF_ERROR(NeedsAccessManagement(*query));
  }
  RETURN_IF_ERROR(CheckGranteesExist(change.users, /*roles=*/false));
  const access::RoleSet roles = access::RoleSetOf(change);
  for (const std::string& user : change.users) {
    RETURN_IF_ERROR(CheckRolesGranted(roles, user, "default"));
  }
  RETURN_IF_ERROR(GrantStore::Current().Change(change, SaverFor(workers)));
  return QueryResult{};
}

// system.current_roles (the roles SET ROLE or the defaults name, granted directly) and
// system.enabled_roles (those with the roles they hold), ClickHouse's columns.
LocalTable RolesInForceTable(const QueryContext& query, bool enabled) {
  std::vector<std::string> names = {"role_name", "with_admin_option"};
  if (enabled) names.push_back("is_current");
  names.push_back("is_default");
  std::vector<TypeId> types(names.size(), TypeId::kUInt8);
  types[0] = TypeId::kString;
  TableBuilder table(names, types);
  GrantStore& store = GrantStore::Current();
  const std::set<std::string> granted = store.GrantedRoles(query.user->name);
  const std::vector<std::string> current = store.EnabledRoles(query.user->name, query.roles());
  const std::vector<std::string> defaults = store.EnabledRoles(query.user->name, nullptr);
  for (const std::string& role : current) {
    const bool direct = granted.count(role) > 0;
    if (!enabled && !direct) continue;
    size_t c = 0;
    table[c++].AppendString(role);
    table[c++].Append<uint8_t>(0);
    if (enabled) table[c++].Append<uint8_t>(direct);
    table[c].Append<uint8_t>(direct && std::count(defaults.begin(), defaults.end(), role) > 0);
  }
  return table.Build();
}

// system.row_policies, ClickHouse's columns (no id): every policy for a user who manages
// access, none for others.
LocalTable RowPoliciesTable(const QueryContext& query) {
  TableBuilder table({"name", "short_name", "database", "table", "storage", "select_filter",
                      "is_restrictive", "apply_to_all", "apply_to_list", "apply_to_except"},
                     {TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kString,
                      TypeId::kString, core::MakeNullable(TypeId::kString), TypeId::kUInt8,
                      TypeId::kUInt8, core::MakeArray(TypeId::kString),
                      core::MakeArray(TypeId::kString)});
  if (!query.user->access_management) return table.Build();
  auto append_list = [](core::Column& column, const std::vector<std::string>& names) {
    for (const std::string& name : names) column.MutableNested().AppendString(name);
    column.AppendArrayEnd();
  };
  for (const auto& [name, policy] : GrantStore::Current().Snapshot().policies) {
    table[0].AppendString(name);
    table[1].AppendString(policy.name);
    table[2].AppendString(policy.database);
    table[3].AppendString(policy.table);
    table[4].AppendString("workers");
    table[5].AppendString(policy.condition);
    table[6].Append<uint8_t>(policy.restrictive);
    table[7].Append<uint8_t>(policy.to_all);
    append_list(table[8], policy.to_all ? std::vector<std::string>() : policy.to);
    append_list(table[9], policy.except);
  }
  return table.Build();
}

// SHOW [ROW] POLICIES [ON t]: the full names; SHOW CREATE [ROW] POLICY p ON t: its statement.
absl::StatusOr<QueryResult> ShowPolicies(const sql::AccessStatement& show,
                                         const QueryContext& query) {
  const access::AccessEntities entities = GrantStore::Current().Snapshot();
  if (show.kind == sql::AccessStatement::Kind::kShowCreatePolicy) {
    sql::AccessStatement named = show;
    if (named.database.empty()) named.database = query.database;
    const access::RowPolicy key = access::PolicyFrom(named);
    auto found = entities.policies.find(key.FullName());
    if (found == entities.policies.end()) {
      return core::Error(core::ErrorCode::kAccessEntityNotFound,
                         absl::StrCat("There is no row policy `", key.FullName(),
                                      "` in user directories"));
    }
    TableBuilder table({"CREATE ROW POLICY " + key.FullName()}, {TypeId::kString});
    table[0].AppendString(found->second.CreateText());
    return ResultOf(table.Build(), show.format);
  }
  const std::string database = show.database.empty() ? query.database : show.database;
  TableBuilder table({"name"}, {TypeId::kString});
  for (const auto& [name, policy] : entities.policies) {
    if (!show.table.empty() && (policy.database != database || policy.table != show.table)) {
      continue;
    }
    table[0].AppendString(name);
  }
  return ResultOf(table.Build(), show.format);
}

}  // namespace

absl::Status CheckBeforeRun(const sql::Statement& statement, const QueryContext& query,
                            const WorkerSet& workers) {
  const access::User& user = *query.user;
  GrantStore& store = GrantStore::Current();
  std::vector<access::Requirement> requirements =
      access::RequirementsOf(statement, query.database);
  // Loaded once (a no-op after the first success). A statement that needs no table runs even
  // when no worker answers: it then counts against the users file's quotas only.
  absl::Status loaded = store.EnsureLoaded(LoaderFor(workers));
  std::vector<access::QuotaSpec> quotas = store.QuotasOf(user);
  if (!quotas.empty()) {
    RETURN_IF_ERROR(access::QuotaBook::Current().Start(user.name, quotas,
                                                       QueryKindName(query.kind())));
  }
  if (requirements.empty()) return absl::OkStatus();
  RETURN_IF_ERROR(loaded);
  return access::CheckRequirements(user.name, store.RightsOf(user, query.roles()), requirements);
}

absl::StatusOr<QueryResult> ExecuteAccessStatement(const sql::AccessStatement& statement,
                                                   QueryContext* query, const WorkerSet& workers) {
  using Kind = sql::AccessStatement::Kind;
  if (statement.kind == Kind::kShowGrants) return ShowGrants(statement, query, workers);
  GrantStore& store = GrantStore::Current();
  if (statement.kind == Kind::kSetRole || statement.kind == Kind::kSetDefaultRole) {
    RETURN_IF_ERROR(store.EnsureLoaded(LoaderFor(workers)));
    if (statement.kind == Kind::kSetRole) return SetRole(statement, query);
    return SetDefaultRole(statement, query, workers);
  }
  RETURN_IF_ERROR(NeedsAccessManagement(*query));
  RETURN_IF_ERROR(store.EnsureLoaded(LoaderFor(workers)));
  if (statement.kind == Kind::kShowPolicies || statement.kind == Kind::kShowCreatePolicy) {
    return ShowPolicies(statement, *query);
  }
  const bool quota = statement.kind == Kind::kCreateQuota || statement.kind == Kind::kDropQuota;
  RETURN_IF_ERROR(CheckGranteesExist(statement.users, /*roles=*/!quota));
  RETURN_IF_ERROR(CheckGranteesExist(statement.except, /*roles=*/true));
  if (statement.kind == Kind::kCreateRole) {
    for (const std::string& name : statement.names) {
      if (FindUser(name) != nullptr) {
        return core::Error(core::ErrorCode::kAccessEntityAlreadyExists,
                           absl::StrCat("role `", name, "`: cannot insert because user `", name,
                                        "` already exists (a grantee's name names one of them)"));
      }
    }
  }
  sql::AccessStatement change = statement;
  if (change.database.empty()) change.database = query->database;
  RETURN_IF_ERROR(store.Change(change, SaverFor(workers)));
  return QueryResult{};
}

absl::StatusOr<std::optional<LocalTable>> AccessSystemTable(const std::string& name,
                                                            const QueryContext& query,
                                                            const WorkerSet& workers) {
  if (name != "grants" && name != "quotas" && name != "quota_usage" && name != "roles" &&
      name != "role_grants" && name != "row_policies" && name != "current_roles" &&
      name != "enabled_roles") {
    return std::nullopt;
  }
  RETURN_IF_ERROR(GrantStore::Current().EnsureLoaded(LoaderFor(workers)));
  if (name == "grants") return std::optional<LocalTable>(GrantsTable(query));
  if (name == "quotas") return std::optional<LocalTable>(QuotasTable(query));
  if (name == "roles") return std::optional<LocalTable>(RolesTable());
  if (name == "role_grants") return std::optional<LocalTable>(RoleGrantsTable(query));
  if (name == "row_policies") return std::optional<LocalTable>(RowPoliciesTable(query));
  if (name == "current_roles" || name == "enabled_roles") {
    return std::optional<LocalTable>(RolesInForceTable(query, name == "enabled_roles"));
  }
  return std::optional<LocalTable>(QuotaUsageTable(query));
}

namespace {

// The column of `table` named `name`, or null.
const core::Column* ColumnNamed(const LocalTable& table, std::string_view name) {
  for (size_t i = 0; i < table.names.size() && i < table.block.columns.size(); ++i) {
    if (table.names[i] == name) return table.block.columns[i].get();
  }
  return nullptr;
}

void KeepRows(const std::vector<uint8_t>& mask, LocalTable* table) {
  for (auto& column : table->block.columns) {
    column = std::make_shared<core::Column>(column->Filter(mask.data()));
  }
  if (table->block.columns.empty()) {
    table->block.rows_without_columns = std::count(mask.begin(), mask.end(), 1);
  }
}

// The catalog rows of `name` (file comment of HideOtherUsersRows) the user has a grant on.
absl::Status HideUngrantedObjects(const std::string& name, const QueryContext& query,
                                  const WorkerSet& workers, LocalTable* table) {
  const bool databases = name == "databases";
  if (!databases && name != "tables" && name != "columns" && name != "parts" &&
      name != "replicas") {
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(AccessRights rights, LoadedRights(query, workers));
  if (rights.Allows(access::kAllPrivileges, "*", "*")) return absl::OkStatus();
  const core::Column* database = ColumnNamed(*table, databases ? "name" : "database");
  const core::Column* object = databases ? nullptr
                               : ColumnNamed(*table, name == "tables" ? "name" : "table");
  if (database == nullptr || (!databases && object == nullptr)) return absl::OkStatus();
  std::vector<uint8_t> mask(database->size());
  for (size_t row = 0; row < mask.size(); ++row) {
    const std::string_view db = database->StringAt(row);
    // The system database stays visible: ClickHouse shows it to everyone.
    const std::string_view table_name =
        object == nullptr ? std::string_view("*") : object->StringAt(row);
    mask[row] = db == "system" || rights.AllowsAny(db, table_name);
  }
  KeepRows(mask, table);
  return absl::OkStatus();
}

}  // namespace

absl::Status HideOtherUsersRows(const std::string& name, const QueryContext& query,
                                const WorkerSet& workers, LocalTable* table) {
  if (query.user != nullptr) RETURN_IF_ERROR(HideUngrantedObjects(name, query, workers, table));
  if ((name != "processes" && name != "query_log") || show_all_process_rows) {
    return absl::OkStatus();
  }
  if (query.user == nullptr) return absl::OkStatus();
  absl::StatusOr<AccessRights> rights = LoadedRights(query, workers);
  // Without the stored grants (no worker answers), only the caller's rows.
  if (rights.ok() && rights->Allows(access::kShowProcesslist, "*", "*")) return absl::OkStatus();
  size_t user_column = table->names.size();
  for (size_t i = 0; i < table->names.size(); ++i) {
    if (table->names[i] == "user") user_column = i;
  }
  if (user_column == table->names.size() || table->block.columns.empty()) {
    return absl::OkStatus();
  }
  const core::Column& users = *table->block.columns[user_column];
  std::vector<uint8_t> mask(users.size());
  for (size_t row = 0; row < users.size(); ++row) {
    mask[row] = users.StringAt(row) == query.user->name;
  }
  KeepRows(mask, table);
  return absl::OkStatus();
}

absl::Status CheckMayKill(const std::string& owner, const QueryContext& query,
                          const WorkerSet& workers) {
  if (owner == query.user->name) return absl::OkStatus();
  absl::StatusOr<AccessRights> rights = LoadedRights(query, workers);
  if (rights.ok() && rights->Allows(access::kKillQuery, "*", "*")) return absl::OkStatus();
  return access::NotEnoughPrivileges(query.user->name, access::kKillQuery, "*", "*");
}

ShowAllProcessRows::ShowAllProcessRows() : previous_(show_all_process_rows) {
  show_all_process_rows = true;
}

ShowAllProcessRows::~ShowAllProcessRows() { show_all_process_rows = previous_; }

}  // namespace granite::coordinator
