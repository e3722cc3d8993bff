// Tuple expressions lowered to their elements before binding. granite computes no tuple value
// below the final result (core/tuple_type.h): `(a, b) = (1, 'x')`, `(a, b) < (c, d)` and
// `tupleElement((a, b), 2)` are written as the element expressions they mean, so workers only
// ever see scalars. Tuples in the select list are put together at the end
// (coordinator/exec/tuple_results.h); tuple IN has its own rewrite (planner/tuple_in.h).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/compound_column.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// True for a call of `tuple` (any case): `tuple(a, b)`, `(a, b)`, `()`; for a map's value,
// mapFromArrays(keys, values), which is computed as the tuple of its two arrays
// (planner/compound_columns.h); and for an array of tuples, arrayZip(a, b, ...).
bool IsTupleCall(const sql::Expr& e);

// True for mapFromArrays(keys, values) (any case).
bool IsMapCall(const sql::Expr& e);

// True for arrayZip(a, b, ...) (any case): an array of tuples, computed as the tuple of its
// elements' arrays (an Array(Tuple(...)) column's value, groupArray of a tuple).
bool IsArrayZipCall(const sql::Expr& e);

// The call that builds a value of a compound column's layout from its subcolumns:
// mapFromArrays, arrayZip or tuple.
std::string CompoundCallName(const core::CompoundLayout& layout);

// True for equals, notEquals, less, lessOrEquals, greater and greaterOrEquals.
bool IsComparisonName(const std::string& name);

// Returns comparison `name` of two tuples as its element comparisons, as ClickHouse compares
// tuples: equals is the AND of the elements' equalities, notEquals their OR, and the ordering
// comparisons are lexicographic (`a1 < b1 OR (a1 = b1 AND (... an < bn))`), so a NULL element
// decides only when the elements before it are equal. A NULL literal element makes the result
// NULL, as ClickHouse's Nullable(Nothing) does. `()` = `()` is 1.
// Errors: ILLEGAL_TYPE_OF_ARGUMENT when the sizes differ, at `position`.
absl::StatusOr<sql::ExprPtr> LowerTupleComparison(const std::string& name, const sql::Expr& left,
                                                  const sql::Expr& right, size_t position);

// Returns the element of `tuple` that `index` names, as tupleElement(tuple, index[, fallback])
// does: an integer literal (1-based; -1 is the last) or a string literal of one ("2"); an index
// outside the tuple gives `fallback` when there is one (non-null); a string names an element of a
// named tuple (sql::Expr::element_names). Errors: ARGUMENT_OUT_OF_BOUND for an index outside the
// tuple, BAD_ARGUMENTS for a name that is neither an element's nor an index,
// ILLEGAL_TYPE_OF_ARGUMENT for an index that is not a constant.
absl::StatusOr<sql::ExprPtr> TupleElementOf(const sql::Expr& tuple, const sql::Expr& index,
                                            const sql::ExprPtr& fallback, size_t position);

// Returns `call` over map `map` (mapFromArrays(keys, values)) written over its arrays, or null
// when `call` is no map operation: arrayElement(m, k) (m[k], the value's default when k is
// absent) is arrayElement(values, indexOf(keys, k)); mapKeys / mapValues the arrays;
// mapContains(m, k) has(keys, k); length / empty / notEmpty those of the keys. Over an array of
// tuples (arrayZip): LowerArrayOfTuplesOperation (planner/array_of_tuples_lowering.h).
sql::ExprPtr LowerMapOperation(const sql::Expr& call, const sql::Expr& map);

// The lowerings below return the replacement of a call whose arguments are already lowered, or
// null when it is no such call (planner/compound_columns.h applies them bottom-up).

// map(k1, v1, ...) as mapFromArrays([k1, ...], [v1, ...]); a map or array-of-tuples operation
// (LowerMapOperation) of a mapFromArrays or an arrayZip; the calls that make or take arrays of
// tuples (LowerArrayOfTuplesCall, planner/array_of_tuples_lowering.h); mapFilter((k, v) -> cond, m) as both arrays filtered by the condition over
// the pairs; mapApply((k, v) -> (k2, v2), m) as each array mapped by its half of the result.
sql::ExprPtr LowerMapCall(const sql::Expr& node);

// CAST of a tuple to Tuple(...) as the tuple of its elements' casts (with the type's element
// names); CAST of a map to Map(K, V) or of an array of tuples to Array(Tuple(...)) as its
// arrays' casts.
sql::ExprPtr LowerCompoundCast(const sql::Expr& node);

// if, multiIf, argMin, argMax, any and anyLast over tuples, as the tuple of the call per
// element: if(c, (a, b), (x, y)) is (if(c, a, x), if(c, b, y)); argMax((a, b), t) is
// (argMax(a, t), argMax(b, t)), which pick the same row (the same values of t, compared the same
// way in every state and merge). Null also when the tuples differ in size (the binder then
// names the error).
sql::ExprPtr LowerElementwise(const sql::Expr& node);

// The arguments of `node` that LowerElementwise takes element by element; empty for others.
std::vector<size_t> ElementwiseArgumentsOf(const sql::Expr& node);

}  // namespace granite::coordinator
