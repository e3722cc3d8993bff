// A table's column expressions (core::ColumnSchema::default_expression: DEFAULT, MATERIALIZED,
// ALIAS) are stored as SQL text; these parse them for the binder (ALIAS columns are bound as their
// expression when read) and for INSERT (exec/column_defaults.h).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"
#include "core/table_schema.h"

namespace granite::coordinator {

// Parses one column expression. Errors: SYNTAX_ERROR.
absl::StatusOr<sql::ExprPtr> ParseColumnExpression(const std::string& text);

// Returns, per column of `schema`, its ALIAS expression parsed, or null for a column parts hold
// (SelectBinder::SetComputedColumns); empty when the table has no ALIAS column. An expression
// that no longer parses is left null (CREATE checked it).
std::vector<sql::ExprPtr> AliasExpressions(const core::TableSchema& schema);

}  // namespace granite::coordinator
