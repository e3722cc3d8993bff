// Element-level pieces shared by the array functions (array_functions.cc,
// array_transform_functions.cc): reading an operand row, appending a default, comparing two
// elements of one type, and the argument checks their resolvers share.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/column.h"
#include "core/functions/function_registry.h"
#include "core/functions/scalar_kernel.h"

namespace granite::core {

// The body of an array function's kernel, chosen when compiled: array functions build their
// results row by row, so calling it through a function object once per batch costs nothing.
using ArrayKernelBody =
    std::function<absl::StatusOr<ColumnPtr>(const std::vector<Operand>& args, size_t rows)>;

// Returns a kernel whose Execute runs `body`.
std::unique_ptr<ScalarKernel> MakeArrayKernel(ArrayKernelBody body);

// Returns the row of `operand` that batch row `row` reads: 0 for a constant.
inline size_t RowOf(const Operand& operand, size_t row) { return operand.is_constant ? 0 : row; }

// Appends the default value of the column's type: NULL when Nullable, [] for an array, the zero
// bytes of a FixedString, '' or 0 otherwise.
void AppendDefault(Column* column);

// Returns whether element `i` of `a` equals element `j` of `b` (two NULLs are equal, a NULL
// equals nothing else; arrays compare element by element). REQUIRES: a.logical_type() ==
// b.logical_type().
bool ElementsEqual(const Column& a, size_t i, const Column& b, size_t j);

// Orders element `i` against element `j` of one column: numbers by value (NaN last), strings by
// bytes, arrays lexicographically, NULLs after every value (ClickHouse's arraySort). Returns
// <0, 0 or >0.
int CompareElements(const Column& column, size_t i, size_t j);

// Returns the operand as an array column of type `to` (element cast, keeping NULLs); a constant
// stays one row.
absl::StatusOr<ColumnPtr> ArrayOperandAs(const Operand& operand, TypeId to);

// Returns the element supertype of `types` for function `name`, or NO_COMMON_TYPE naming them
// ("There is no supertype for types UInt8, String").
absl::StatusOr<TypeId> ElementSupertypeFor(std::string_view name, const std::vector<TypeId>& types);

// Checks the arguments after the lambda of a higher-order call (args[0].lambda): at least one,
// each an array (ClickHouse's NUMBER_OF_ARGUMENTS_DOESNT_MATCH / ILLEGAL_TYPE_OF_ARGUMENT).
absl::Status RequireLambdaArrays(std::string_view name, const std::vector<ArgumentInfo>& args);

// Returns IllegalArgumentType unless argument `index` is an array.
absl::Status RequireArray(std::string_view name, const std::vector<ArgumentInfo>& args,
                          size_t index);

}  // namespace granite::core
