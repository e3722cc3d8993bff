// Column DEFAULT / MATERIALIZED / ALIAS expressions (core::ColumnSchema::default_kind): checked
// and typed when CREATE TABLE declares them, computed by INSERT for the columns a row does not
// give, and bound in place of ALIAS columns when a query reads them (the binder calls
// AliasExpressions, planner/column_expressions.h). An expression is stored as SQL text and parsed
// again where it is used.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"
#include "core/block.h"
#include "core/table_schema.h"

namespace granite::coordinator {

// Completes `schema`'s columns from the CREATE columns `defs` (same order): the kind and text of
// each DEFAULT / MATERIALIZED / ALIAS, and the type of a column declared without one (its
// expression's type). Then checks every expression as ClickHouse does at CREATE: each binds over
// the table's columns (UNKNOWN_IDENTIFIER; CYCLIC_ALIASES for columns computed from each other)
// and converts to its column's type (a constant that cannot: CANNOT_PARSE_TEXT and the like).
// REQUIRES: schema->columns[i] is defs[i] with its type (any type when defs[i].type is empty).
absl::Status ResolveColumnDefaults(const std::vector<sql::ColumnDef>& defs,
                                   core::TableSchema* schema);

// The checks of ResolveColumnDefaults on a whole schema (ALTER TABLE): columns with
// typeless[i] take their expression's type. REQUIRES: typeless.size() == schema->columns.size().
absl::Status CheckColumnDefaults(const std::vector<bool>& typeless, core::TableSchema* schema);

// Computes in `block` the columns an INSERT did not give: `block` holds the stored columns of
// `schema` (core::TableSchema::Stored(), in that order) and given[i] says whether stored column i
// came from the input. Columns with a DEFAULT or MATERIALIZED expression get its value over the
// row's other columns (in dependency order); the others keep what `block` holds.
// Errors: those of the expressions (a conversion that fails on a row, ...).
absl::Status FillDefaults(const core::TableSchema& schema, const std::vector<bool>& given,
                          core::Block* block);

// Computes, for the rows an input format left a field out (omitted[i] lists them for stored
// column i, increasing; input_format_defaults_for_omitted_fields), the column's DEFAULT
// expression over the row; the other rows keep what the input gave. `block` as FillDefaults'.
absl::Status FillOmittedDefaults(const core::TableSchema& schema,
                                 const std::vector<std::vector<uint32_t>>& omitted,
                                 core::Block* block);

}  // namespace granite::coordinator
