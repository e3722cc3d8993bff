#include "coordinator/exec/query_parameters.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "coordinator/formats/input_block_builder.h"
#include "coordinator/formats/tab_separated_input.h"
#include "coordinator/sql/expr_rewriter.h"
#include "coordinator/sql/expression_parser.h"
#include "coordinator/sql/parser.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "core/types.h"

namespace granite::coordinator {
namespace {

using core::ErrorCode;

sql::ExprPtr StringLiteral(std::string value, size_t position) {
  auto literal = std::make_shared<sql::Expr>();
  literal->kind = sql::ExprKind::kLiteral;
  literal->position = position;
  literal->value = std::move(value);
  return literal;
}

// Returns the CAST a parameter call becomes, checking its value.
absl::StatusOr<sql::ExprPtr> BindParameter(const sql::Expr& call,
                                           const std::map<std::string, std::string>& parameters,
                                           std::string* column_name) {
  const std::string& name = std::get<std::string>(call.args[0]->value);
  const std::string& type_text = std::get<std::string>(call.args[1]->value);
  auto it = parameters.find(name);
  if (it == parameters.end()) {
    return core::Error(ErrorCode::kUnknownQueryParameter,
                       absl::StrCat("Substitution `", name, "` is not set (query parameter {",
                                    name, ":", type_text, "} at position ", call.position + 1,
                                    "; send it as setting param_", name, ")"));
  }
  ASSIGN_OR_RETURN(core::TypeId type, core::ParseType(type_text));
  auto cast = std::make_shared<sql::Expr>();
  cast->kind = sql::ExprKind::kFunction;
  cast->name = "CAST";
  cast->position = call.position;
  if (core::IsNullable(type) && it->second == "\\N") {
    // NULL in a parameter's TabSeparated text form, as ClickHouse reads param_x=\N.
    auto null = std::make_shared<sql::Expr>();
    null->kind = sql::ExprKind::kLiteral;
    null->is_null = true;
    null->position = call.position;
    cast->args = {null, StringLiteral(type_text, call.position)};
    *column_name = absl::StrCat("_CAST(NULL, '", type_text, "')");
    return cast;
  }
  // The value is a TabSeparated field: escapes decoded, as ClickHouse and its clients send it
  // (clickhouse-connect sends it's as it\'s).
  std::string value;
  UnescapeTsv(it->second, &value);
  InputBlockBuilder check({name}, {type});
  if (absl::Status parsed = check.AppendText(0, value); !parsed.ok()) {
    return core::Error(ErrorCode::kBadQueryParameter,
                       absl::StrCat("Value '", it->second, "' cannot be parsed as ", type_text,
                                    " for query parameter '", name, "'"));
  }
  cast->args = {StringLiteral(std::move(value), call.position),
                StringLiteral(type_text, call.position)};
  *column_name = absl::StrCat("_CAST(", sql::ColumnName(*cast->args[0]), ", '", type_text, "')");
  return cast;
}

bool IsCurrentDatabaseCall(const sql::Expr& expr) {
  if (expr.kind != sql::ExprKind::kFunction || !expr.args.empty()) return false;
  std::string name = absl::AsciiStrToLower(expr.name);
  return name == "currentdatabase" || name == "database";
}

}  // namespace

absl::StatusOr<std::optional<sql::Statement>> BindQueryConstants(
    const sql::Statement& statement, const std::string& database,
    const std::map<std::string, std::string>& parameters) {
  return sql::RewriteExprs(
      statement,
      [&](const sql::Expr& node, std::string* column_name) -> absl::StatusOr<sql::ExprPtr> {
        if (node.kind != sql::ExprKind::kFunction) return sql::ExprPtr();
        if (node.name == sql::kQueryParameterFunction) {
          return BindParameter(node, parameters, column_name);
        }
        if (IsCurrentDatabaseCall(node)) return StringLiteral(database, node.position);
        return sql::ExprPtr();
      });
}

}  // namespace granite::coordinator
