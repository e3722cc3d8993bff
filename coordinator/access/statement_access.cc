#include "coordinator/access/statement_access.h"

#include <variant>

#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"

namespace granite::coordinator::access {

namespace {

// True for statements that only read.
bool OnlyReads(const sql::Statement& statement) {
  return std::holds_alternative<sql::SelectStatement>(statement) ||
         std::holds_alternative<sql::ShowTablesStatement>(statement) ||
         std::holds_alternative<sql::DescribeStatement>(statement) ||
         std::holds_alternative<sql::CheckTableStatement>(statement) ||
         std::holds_alternative<sql::ShowStatement>(statement) ||
         std::holds_alternative<sql::UseStatement>(statement) ||
         (std::holds_alternative<sql::AccessStatement>(statement) &&
          (std::get<sql::AccessStatement>(statement).kind ==
               sql::AccessStatement::Kind::kShowGrants ||
           std::get<sql::AccessStatement>(statement).kind ==
               sql::AccessStatement::Kind::kSetRole));  // the session's own roles
}

}  // namespace

absl::Status CheckSettingChange(const User& user, const std::string& name,
                                const std::string& value) {
  const uint64_t readonly = user.settings.readonly;
  if (readonly == 1) {
    return core::Error(core::ErrorCode::kReadonly,
                       absl::StrCat(user.name, ": Cannot modify '", name,
                                    "' setting in readonly mode"));
  }
  uint64_t number = 0;
  bool numeric = absl::SimpleAtoi(value, &number);
  // readonly 1 restricts more than 2, which restricts more than 0: a user may only tighten it.
  auto restriction = [](uint64_t level) { return level == 0 ? 0 : level == 2 ? 1 : 2; };
  if (name == "readonly" && readonly != 0 &&
      (!numeric || restriction(number) < restriction(readonly))) {
    return core::Error(core::ErrorCode::kReadonly,
                       absl::StrCat(user.name, ": Cannot modify 'readonly' setting in readonly "
                                               "mode (it is ", readonly, ")"));
  }
  auto found = user.constraints.find(name);
  if (found == user.constraints.end()) return absl::OkStatus();
  const SettingConstraint& constraint = found->second;
  if (constraint.is_const) {
    core::Settings changed = user.settings;
    bool same = changed.Set(name, value).ok();
    const std::vector<core::SettingInfo>& infos = core::Settings::Infos();
    for (size_t i = 0; same && i < infos.size(); ++i) {
      if (infos[i].name == name) same = changed.ValueText(i) == user.settings.ValueText(i);
    }
    if (!same) {
      return core::Error(core::ErrorCode::kSettingConstraintViolation,
                         absl::StrCat("Setting ", name, " should not be changed"));
    }
  }
  if (!numeric) return absl::OkStatus();
  if (constraint.min && number < *constraint.min) {
    return core::Error(core::ErrorCode::kSettingConstraintViolation,
                       absl::StrCat("Setting ", name, " shouldn't be less than ", *constraint.min,
                                    " (asked for ", value, ")"));
  }
  // A limit's 0 means none (max_memory_usage, max_execution_time, ...): above any maximum, so a
  // bounded user cannot lift the limit by asking for 0.
  const bool unlimited = number == 0 && absl::StartsWith(name, "max_");
  if (constraint.max && (number > *constraint.max || unlimited)) {
    return core::Error(core::ErrorCode::kSettingConstraintViolation,
                       absl::StrCat("Setting ", name, " shouldn't be greater than ",
                                    *constraint.max, " (asked for ", value, ")"));
  }
  return absl::OkStatus();
}

std::map<std::string, std::string> StatementSettingChanges(const sql::Statement& statement) {
  if (const auto* set = std::get_if<sql::SetStatement>(&statement)) return set->changes;
  if (const auto* select = std::get_if<sql::SelectStatement>(&statement)) return select->settings;
  if (const auto* check = std::get_if<sql::CheckTableStatement>(&statement)) return check->settings;
  if (const auto* part = std::get_if<sql::AlterPartStatement>(&statement)) return part->settings;
  if (const auto* insert = std::get_if<sql::InsertStatement>(&statement)) {
    if (insert->select) return insert->select->settings;
  }
  return {};
}

absl::Status CheckStatementAccess(const User& user, const core::Settings& settings,
                                  const sql::Statement& statement) {
  const bool is_set = std::holds_alternative<sql::SetStatement>(statement);
  if (settings.readonly != 0 && !OnlyReads(statement) && !(is_set && settings.readonly == 2)) {
    if (is_set) {
      return core::Error(core::ErrorCode::kReadonly,
                         absl::StrCat(user.name, ": Cannot modify settings in readonly mode"));
    }
    return core::Error(core::ErrorCode::kReadonly,
                       absl::StrCat(user.name, ": Cannot execute query in readonly mode"));
  }
  return CheckSettingChanges(user, StatementSettingChanges(statement));
}

}  // namespace granite::coordinator::access
