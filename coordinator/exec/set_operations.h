// UNION ALL / UNION DISTINCT / INTERSECT / EXCEPT over two results, on the coordinator. Columns
// pair by position; each pair is converted to the two types' least common supertype
// (core/functions/type_rules.h), the names are the left side's. INTERSECT and EXCEPT keep the
// left side's rows (and duplicates, unless DISTINCT) that are (not) among the right side's rows;
// UNION DISTINCT keeps each distinct row once, in first-seen order.
#pragma once

#include "absl/status/statusor.h"
#include "coordinator/planner/binder.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// Errors: UNION_ALL_RESULT_STRUCTURES_MISMATCH (column counts), NO_COMMON_TYPE naming the
// column and both types (ClickHouse 25 makes a Variant there; granite has no Variant type).
absl::StatusOr<LocalTable> CombineResults(sql::SetOperator op, LocalTable left, LocalTable right);

}  // namespace granite::coordinator
