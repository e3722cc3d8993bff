// Nullable in scalar functions, after ClickHouse:
//  - An ordinary function called with a Nullable argument runs on the nested values and returns
//    Nullable of its result, NULL where any argument is NULL (the "default implementation for
//    NULLs"); rows with a NULL are not passed to the kernel, so a NULL never divides by zero or
//    fails to parse. A Nullable(Nothing) argument (the NULL literal) makes the call NULL.
//  - Functions that look at NULLs themselves: isNull, isNotNull, assumeNotNull, toNullable,
//    coalesce, ifNull, nullIf, to<T>OrNull (registered here), toTypeName, and the NULL-aware forms
//    of if, multiIf and CASE x WHEN (a NULL condition is false), and / or (three-valued logic) and
//    CAST (to and from
//    Nullable(T); a NULL cast to a type that is not Nullable is CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN).
// Values under a NULL are always T's default (0, ""), so a filter reading a Nullable(UInt8)
// column's values sees NULL as false.
// Internal to core/functions: function_registry.cc routes calls here.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/functions/function_registry.h"
#include "core/functions/function_table.h"

namespace granite::core {

void RegisterNullFunctions(FunctionTable& table);

// Returns `args` with constant_is_null set on every Nullable(Nothing) argument.
std::vector<ArgumentInfo> MarkNullArguments(std::vector<ArgumentInfo> args);

// Returns whether a call of `def` with `args` goes through this file: an argument is Nullable,
// or it is a CAST to a Nullable type. False for the functions that take Nullable arguments as
// they are (isNull, coalesce, toTypeName, ...).
bool NeedsNullHandling(const FunctionDef& def, const std::vector<ArgumentInfo>& args);

// Resolves / compiles such a call. REQUIRES: NeedsNullHandling(def, args).
absl::StatusOr<TypeId> ResolveWithNulls(const FunctionDef& def,
                                        const std::vector<ArgumentInfo>& args);
absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileWithNulls(
    const FunctionDef& def, const std::vector<ArgumentInfo>& args, TypeId result_type);

// Returns `values` as Nullable with null map `nulls` (size rows), values under NULL set to the
// default. `values` may already be Nullable (its map is replaced).
ColumnPtr WithNullMap(const ColumnPtr& values, const std::vector<uint8_t>& nulls);

// Returns `rows` NULLs of Nullable(type).
ColumnPtr AllNulls(TypeId type, size_t rows);

}  // namespace granite::core
