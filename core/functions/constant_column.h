// Constants inside compiled expressions: literals and folded sub-expressions are held as one-row
// columns (so kernels read them with the same accessors as data), converted between types
// exactly (comparison and IN constants), and broadcast only when an expression's final result is
// a constant.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/column.h"
#include "core/functions/scalar_kernel.h"
#include "core/types.h"
#include "core/value.h"

namespace granite::core {

// Returns a one-row column of `type` holding `value` (converted as core::AppendValue does: range
// checked; strings parsed). Errors: kValueIsOutOfRangeOfDataType, kCannotParseText.
absl::StatusOr<ColumnPtr> MakeConstantColumn(const Value& value, TypeId type);

// Returns row `row` of `column` as a Value in canonical form: int64_t for signed integers,
// uint64_t for unsigned integers, Date and DateTime, double for floats, std::string for String
// and for a Decimal (its exact text, e.g. "0.05").
// REQUIRES: row < column.size().
Value ValueAt(const Column& column, size_t row);

// Returns a column of `rows` copies of row 0 of `one_row`. REQUIRES: one_row.size() >= 1.
ColumnPtr Broadcast(const Column& one_row, size_t rows);

// Returns a kernel whose every row is the String `value` (version(), timeZoneOf(t), ...).
// REQUIRES: `value` outlives the kernel (a literal or a process-wide table).
std::unique_ptr<ScalarKernel> StringConstantKernel(std::string_view value);

// Converts constant `value` of type `from` to type `to` without changing its meaning, for
// comparisons and IN lists: nullopt when no value of `to` equals it (300 as UInt8, 2.5 as Int32,
// -1 as UInt64, a DateTime that is not midnight as Date). Strings are parsed as `to`
// (kCannotParseText on failure); Date and DateTime count as day numbers / unix timestamps when
// compared with numbers; Date -> DateTime is midnight. A number never equals a String:
// converting between String and a non-String `to` other than by parsing is
// kIllegalTypeOfArgument.
absl::StatusOr<std::optional<Value>> ConvertConstantExactly(const Value& value, TypeId from,
                                                            TypeId to);

// Returns the truth of a numeric constant as and/or/if see it: true when non-zero.
// REQUIRES: value is not a string.
bool IsTrue(const Value& value);

}  // namespace granite::core
