#include "coordinator/planner/column_expressions.h"

#include <utility>
#include <variant>

#include "coordinator/sql/parser.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator {

absl::StatusOr<sql::ExprPtr> ParseColumnExpression(const std::string& text) {
  ASSIGN_OR_RETURN(sql::Statement statement, sql::ParseStatement("SELECT " + text));
  auto* select = std::get_if<sql::SelectStatement>(&statement);
  if (select == nullptr || select->select.size() != 1 || select->from || select->where) {
    return core::Error(core::ErrorCode::kSyntaxError, "Expected one expression, got: " + text);
  }
  return select->select[0];
}

std::vector<sql::ExprPtr> AliasExpressions(const core::TableSchema& schema) {
  std::vector<sql::ExprPtr> out;
  for (size_t i = 0; i < schema.columns.size(); ++i) {
    if (schema.columns[i].default_kind != core::DefaultKind::kAlias) continue;
    absl::StatusOr<sql::ExprPtr> parsed =
        ParseColumnExpression(schema.columns[i].default_expression);
    if (!parsed.ok()) continue;
    out.resize(schema.columns.size());
    out[i] = *std::move(parsed);
  }
  return out;
}

}  // namespace granite::coordinator
