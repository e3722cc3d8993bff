#include "coordinator/access/current_user.h"

#include <variant>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "core/absl_compat.h"

namespace granite::coordinator::access {

namespace {

bool IsCurrentUserCall(const sql::Expr& expr) {
  if (expr.kind != sql::ExprKind::kFunction || !expr.args.empty()) return false;
  std::string name = absl::AsciiStrToLower(expr.name);
  return name == "currentuser" || name == "user";
}

// Returns a copy of `expr` with the calls replaced, or null when it has none (copy on write).
sql::ExprPtr Rewrite(const sql::ExprPtr& expr, const std::string& user) {
  if (expr == nullptr) return nullptr;
  if (IsCurrentUserCall(*expr)) {
    auto literal = std::make_shared<sql::Expr>();
    literal->kind = sql::ExprKind::kLiteral;
    literal->position = expr->position;
    literal->value = user;
    literal->alias = expr->alias;
    return literal;
  }
  sql::ExprPtr copy;
  for (size_t i = 0; i < expr->args.size(); ++i) {
    sql::ExprPtr arg = Rewrite(expr->args[i], user);
    if (arg == nullptr) continue;
    if (copy == nullptr) copy = std::make_shared<sql::Expr>(*expr);
    copy->args[i] = std::move(arg);
  }
  return copy;
}

// Replaces `*expr` when it has calls; returns true if it did.
bool RewriteInPlace(sql::ExprPtr* expr, const std::string& user) {
  sql::ExprPtr rewritten = Rewrite(*expr, user);
  if (rewritten == nullptr) return false;
  *expr = std::move(rewritten);
  return true;
}

bool RewriteSelect(sql::SelectStatement* select, const std::string& user) {
  bool changed = false;
  for (sql::ExprPtr& item : select->select) {
    bool top_level_call = item != nullptr && IsCurrentUserCall(*item) && item->alias.empty();
    std::string column = top_level_call ? item->name + "()" : "";
    if (RewriteInPlace(&item, user)) {
      changed = true;
      if (top_level_call) item->alias = column;
    }
  }
  changed |= RewriteInPlace(&select->where, user);
  changed |= RewriteInPlace(&select->having, user);
  for (sql::ExprPtr& key : select->group_by) changed |= RewriteInPlace(&key, user);
  for (sql::OrderItem& item : select->order_by) changed |= RewriteInPlace(&item.expr, user);
  if (select->from && select->from->is_function) {
    for (sql::ExprPtr& arg : select->from->args) changed |= RewriteInPlace(&arg, user);
  }
  return changed;
}

}  // namespace

std::optional<sql::Statement> BindCurrentUser(const sql::Statement& statement,
                                              std::string_view query, const std::string& user) {
  bool mentioned = false;
  for (size_t i = 0; !mentioned && i + 4 <= query.size(); ++i) {
    mentioned = absl::EqualsIgnoreCase(core::ToAbsl(query.substr(i, 4)), "user");
  }
  if (!mentioned) return std::nullopt;
  sql::Statement copy = statement;
  bool changed = false;
  if (auto* select = std::get_if<sql::SelectStatement>(&copy)) {
    changed = RewriteSelect(select, user);
  } else if (auto* insert = std::get_if<sql::InsertStatement>(&copy)) {
    if (insert->select) {
      auto select_copy = std::make_shared<sql::SelectStatement>(*insert->select);
      changed = RewriteSelect(select_copy.get(), user);
      insert->select = std::move(select_copy);
    }
    for (auto& row : insert->values) {
      for (sql::ExprPtr& value : row) changed |= RewriteInPlace(&value, user);
    }
  }
  if (!changed) return std::nullopt;
  return copy;
}

}  // namespace granite::coordinator::access
