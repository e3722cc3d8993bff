// Tuple and Map table columns in a SELECT (core/compound_column.h: parts hold their subcolumns).
// Before planning, a reference to such a column is written as its subcolumns, so that the
// binder and the workers only see scalar and array columns:
//   t (Tuple(a UInt8, b String))  tuple(`t.a`, `t.b`), element names kept (tupleElement(t, 'a'))
//   t.a                           `t.a`
//   m (Map(K, V))                 mapFromArrays(`m.keys`, `m.values`)
//   m['k'], m.keys, m.values      arrayElement(`m.values`, indexOf(`m.keys`, 'k')), the arrays
//   mapKeys, mapValues, mapContains, length, empty, notEmpty of a map   over the arrays
//   mapFilter / mapApply of a lambda (k, v) -> ...   arrayFilter / arrayMap over the arrays
//   CAST(tuple AS Tuple(...)), CAST(map AS Map(K, V))  the elements' / arrays' casts
//   toTypeName(t)                 the declared type
//   n.a (a Nested column's array)  `n.a`; ARRAY JOIN n: its arrays `n.a`, `n.b`, zipped
// and the lowerings of planner/tuple_lowering.h apply bottom-up (map(...), map functions, CASTs,
// tuples through if / multiIf / argMin / argMax / any / anyLast). A tuple or map left in the
// select list is put together on the coordinator (exec/tuple_results.h). SELECT * lists the
// columns as declared (over one table, or a join without USING). A FROM or JOIN subquery is
// rewritten here too, its tuple and map items flattened into `name.suffix` columns that this
// level reads as compound columns.
#pragma once

#include <functional>
#include <optional>

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"
#include "core/table_schema.h"

namespace granite::coordinator {

// The schema of the table a FROM / JOIN reference names; nullopt for anything else.
using TableSchemaLookup =
    std::function<std::optional<core::TableSchema>(const sql::TableRef& ref)>;

// Returns `select` rewritten as above (its own clauses and FROM / JOIN subqueries; subqueries
// in expressions are rewritten when they run).
// Errors: none today (the StatusOr leaves room for rewrites that refuse).
absl::StatusOr<sql::SelectStatement> ExpandCompoundColumns(const sql::SelectStatement& select,
                                                           const TableSchemaLookup& lookup);

}  // namespace granite::coordinator
