// A table's column expressions (core::ColumnSchema::default_expression: DEFAULT, MATERIALIZED,
// ALIAS) are stored as SQL text; these parse them for the binder (ALIAS columns are bound as their
// expression when read) and for INSERT (exec/column_defaults.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"
#include "core/table_schema.h"

namespace granite::coordinator {

// Parses one column expression. Errors: SYNTAX_ERROR.
absl::StatusOr<sql::ExprPtr> ParseColumnExpression(const std::string& text);

// Returns `expr` as ClickHouse prints a column's expression (SHOW CREATE TABLE, system.columns):
// operators infix with spaces, a nested operator in parentheses ("a + (b * 2)"), NOT / unary
// minus prefixed, functions as name(args). nullopt for what it cannot print like ClickHouse
// (lambdas, subqueries, CASE, window functions): the caller keeps the text as written.
std::optional<std::string> FormatColumnExpression(const sql::Expr& expr);

// Returns, per column of `schema`, its ALIAS expression parsed, or null for a column parts hold
// (SelectBinder::SetComputedColumns); empty when the table has no ALIAS column. An expression
// that no longer parses is left null (CREATE checked it).
std::vector<sql::ExprPtr> AliasExpressions(const core::TableSchema& schema);

}  // namespace granite::coordinator
