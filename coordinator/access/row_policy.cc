#include "coordinator/access/row_policy.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "coordinator/access/current_user.h"
#include "coordinator/access/grant_store.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"

namespace granite::coordinator::access {
namespace {

// Parses a stored condition (SELECT's parser reads it as the one item of a SELECT), with
// currentUser() bound to `user` (the binder sees the policy after the statement's own calls
// were replaced).
absl::StatusOr<sql::ExprPtr> ParseCondition(const RowPolicy& policy, const std::string& user) {
  const std::string text = "SELECT " + policy.condition;
  absl::StatusOr<sql::Statement> parsed = sql::ParseStatement(text);
  if (parsed.ok()) {
    if (std::optional<sql::Statement> bound = BindCurrentUser(*parsed, text, user)) {
      parsed = *std::move(bound);
    }
  }
  const auto* select = parsed.ok() ? std::get_if<sql::SelectStatement>(&*parsed) : nullptr;
  if (select == nullptr || select->select.size() != 1 || select->from) {
    return core::Error(core::ErrorCode::kCorruptedData,
                       absl::StrCat("The condition of row policy ", policy.FullName(),
                                    " does not parse: ", policy.condition));
  }
  sql::ExprPtr condition = std::make_shared<sql::Expr>(*select->select[0]);
  condition->alias.clear();
  return condition;
}

// The conditions of `conditions` joined by `function` ("or", "and"); the one when alone.
sql::ExprPtr Join(std::vector<sql::ExprPtr> conditions, const std::string& function) {
  if (conditions.size() == 1) return conditions[0];
  return sql::MakeCall(function, std::move(conditions));
}

}  // namespace

std::string RowPolicy::FullName() const {
  return absl::StrCat(name, " ON ", database, ".", table);
}

std::string RowPolicy::CreateText() const {
  std::string text = absl::StrCat("CREATE ROW POLICY ", Backquoted(name), " ON ",
                                  Backquoted(database), ".", Backquoted(table), " AS ",
                                  restrictive ? "restrictive" : "permissive",
                                  " FOR SELECT USING ", condition);
  if (to_all) {
    absl::StrAppend(&text, " TO ALL");
    if (!except.empty()) absl::StrAppend(&text, " EXCEPT ", BackquotedList(except));
  } else if (!to.empty()) {
    absl::StrAppend(&text, " TO ", BackquotedList(to));
  }
  return text;
}

bool RowPolicy::AppliesTo(const std::string& user, const std::set<std::string>& roles) const {
  auto names = [&](const std::vector<std::string>& list) {
    return std::any_of(list.begin(), list.end(), [&](const std::string& name) {
      return name == user || roles.count(name) > 0;
    });
  };
  return to_all ? !names(except) : names(to);
}

RowPolicy PolicyFrom(const sql::AccessStatement& create) {
  RowPolicy policy;
  policy.name = create.names.front();
  policy.database = create.database;
  policy.table = create.table;
  policy.condition = create.condition;
  policy.restrictive = create.restrictive;
  policy.to_all = create.to_all;
  policy.to = create.users;
  policy.except = create.except;
  return policy;
}

absl::StatusOr<sql::ExprPtr> RowFilterFor(const std::vector<RowPolicy>& policies,
                                          const std::string& user,
                                          const std::set<std::string>& roles) {
  std::vector<sql::ExprPtr> permissive;
  std::vector<sql::ExprPtr> restrictive;
  for (const RowPolicy& policy : policies) {
    if (!policy.AppliesTo(user, roles)) continue;
    absl::StatusOr<sql::ExprPtr> condition = ParseCondition(policy, user);
    if (!condition.ok()) return condition.status();
    (policy.restrictive ? restrictive : permissive).push_back(*std::move(condition));
  }
  std::vector<sql::ExprPtr> parts;
  if (!permissive.empty()) parts.push_back(Join(std::move(permissive), "or"));
  for (sql::ExprPtr& condition : restrictive) parts.push_back(std::move(condition));
  if (parts.empty()) return nullptr;
  return Join(std::move(parts), "and");
}

}  // namespace granite::coordinator::access
