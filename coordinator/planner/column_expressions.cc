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

namespace {

// The infix spelling of ClickHouse's binary operators, by function name.
const char* BinaryOperator(const std::string& name) {
  static const std::pair<const char*, const char*> kOperators[] = {
      {"plus", " + "},        {"minus", " - "},     {"multiply", " * "},
      {"divide", " / "},      {"modulo", " % "},    {"equals", " = "},
      {"notEquals", " != "},  {"less", " < "},      {"greater", " > "},
      {"lessOrEquals", " <= "}, {"greaterOrEquals", " >= "}, {"like", " LIKE "},
      {"notLike", " NOT LIKE "}, {"and", " AND "},  {"or", " OR "}};
  for (const auto& [function, spelling] : kOperators) {
    if (name == function) return spelling;
  }
  return nullptr;
}

bool IsOperator(const sql::Expr& e) {
  return e.kind == sql::ExprKind::kFunction &&
         (BinaryOperator(e.name) != nullptr || e.name == "negate" || e.name == "not");
}

}  // namespace

std::optional<std::string> FormatColumnExpression(const sql::Expr& expr) {
  switch (expr.kind) {
    case sql::ExprKind::kLiteral:
    case sql::ExprKind::kIdentifier:
      if (!expr.qualifier.empty()) return std::nullopt;
      return sql::ColumnName(expr);
    case sql::ExprKind::kFunction:
      break;
    default:
      return std::nullopt;
  }
  if (expr.over || expr.distinct || expr.name == "multiIf" || expr.name == "caseWithExpression" ||
      expr.name == "lambda") {
    return std::nullopt;
  }
  std::vector<std::string> args;
  for (const auto& arg : expr.args) {
    std::optional<std::string> text = FormatColumnExpression(*arg);
    if (!text) return std::nullopt;
    // A nested operator is parenthesized, as ClickHouse prints it.
    args.push_back(IsOperator(expr) && IsOperator(*arg) ? "(" + *text + ")" : *text);
  }
  const char* op = BinaryOperator(expr.name);
  if (op != nullptr && args.size() >= 2) {
    std::string out = args[0];
    for (size_t i = 1; i < args.size(); ++i) out += op + args[i];
    return out;
  }
  if (expr.name == "negate" && args.size() == 1) return "-" + args[0];
  if (expr.name == "not" && args.size() == 1) return "NOT " + args[0];
  std::string out = expr.name + "(";
  for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
  return out + ")";
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
