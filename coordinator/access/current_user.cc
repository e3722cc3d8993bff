#include "coordinator/access/current_user.h"

#include <variant>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "core/absl_compat.h"
#include "coordinator/sql/expr_rewriter.h"

namespace granite::coordinator::access {

namespace {

bool IsCurrentUserCall(const sql::Expr& expr) {
  if (expr.kind != sql::ExprKind::kFunction || !expr.args.empty()) return false;
  std::string name = absl::AsciiStrToLower(expr.name);
  return name == "currentuser" || name == "user";
}

}  // namespace

std::optional<sql::Statement> BindCurrentUser(const sql::Statement& statement,
                                              std::string_view query, const std::string& user) {
  bool mentioned = false;
  for (size_t i = 0; !mentioned && i + 4 <= query.size(); ++i) {
    mentioned = absl::EqualsIgnoreCase(core::ToAbsl(query.substr(i, 4)), "user");
  }
  if (!mentioned) return std::nullopt;
  absl::StatusOr<std::optional<sql::Statement>> rewritten = sql::RewriteExprs(
      statement, [&](const sql::Expr& node, std::string*) -> absl::StatusOr<sql::ExprPtr> {
        if (!IsCurrentUserCall(node)) return sql::ExprPtr();
        auto literal = std::make_shared<sql::Expr>();
        literal->kind = sql::ExprKind::kLiteral;
        literal->position = node.position;
        literal->value = user;
        return literal;
      });
  if (!rewritten.ok()) return std::nullopt;  // this replacer never fails
  return *std::move(rewritten);
}

}  // namespace granite::coordinator::access
