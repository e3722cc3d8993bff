// Arrays of tuples lowered to their elements' arrays before binding, as tuples are
// (planner/tuple_lowering.h): an Array(Tuple(a T, b U)) value is arrayZip(a_array, b_array)
// with element names (an Array(Tuple) column's value, planner/compound_columns.h), computed as
// the tuple of its arrays and put together at the end (exec/tuple_results.h).
#pragma once

#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// Returns `call` over the array of tuples `zip` (arrayZip(a, b, ...)) written over its arrays,
// or null for other calls: z[i] is (a[i], b[i]); length / empty / notEmpty those of a;
// arrayReverse, arraySlice, arrayPopBack and arrayPopFront apply to each array.
sql::ExprPtr LowerArrayOfTuplesOperation(const sql::Expr& call, const sql::Expr& zip);

// Returns the replacement of a call (arguments already lowered) that makes or takes arrays of
// tuples, or null for others:
//   - [(1, 'a'), (2, 'b')] (tuples of one size) is arrayZip([1, 2], ['a', 'b']);
//   - groupArray((a, b)) is arrayZip(groupArray(a), groupArray(b)): every element's groupArray
//     sees the group's rows in the same order, in each state and in each merge;
//   - arrayMap(x -> (f(x), g(x)), arr) is arrayZip(arrayMap(x -> f(x), arr), ...);
//   - a higher-order function over one array of tuples, f(x -> body, arrayZip(a, b)), is f over
//     the arrays with a parameter per element (`x.a`, `x.1` and `x` in the body written over
//     them): arrayMap to a tuple, arrayFilter, arraySort, arrayReverseSort, arrayFirst and
//     arrayLast (which return arrays of tuples or a tuple) once per element array, each with
//     that array first and the same predicate or key; arrayMap to a value, arrayExists,
//     arrayAll, arrayCount, arraySum, arrayMin, arrayMax, arrayAvg, arrayFirstIndex and
//     arrayLastIndex once over all the arrays.
sql::ExprPtr LowerArrayOfTuplesCall(const sql::Expr& node);

}  // namespace granite::coordinator
