// Casts that involve arrays: Array(T) -> Array(U) element by element (the offsets are kept), and
// the element-level cast that keeps a Nullable element's NULLs. CastColumn (cast_column.h) calls
// CastArrayColumn for any array type; String <-> Array goes through the arrays' text
// (core/quoted_text.h), as ClickHouse's CAST('[1,2]' AS Array(UInt8)) does.
#pragma once

#include "absl/status/statusor.h"
#include "core/column.h"

namespace granite::core {

// Returns Array(T) column `column` converted to `to`, an array type of the same depth (an
// Array(Nothing), whose elements are NULLs, converts to any array). Anything else is
// TYPE_MISMATCH, as in ClickHouse ("CAST AS Array can only be performed between same-dimensional
// Array or String types").
absl::StatusOr<ColumnPtr> CastArrayColumn(const Column& column, TypeId to);

// Returns `column` (Nullable or not) converted to `to` (Nullable or not): the values through
// CastColumn, the null map kept when `to` is Nullable (without it a NULL becomes the default).
// A Nothing column (NULL literals) becomes all NULLs (defaults when `to` is not Nullable).
absl::StatusOr<ColumnPtr> CastKeepingNulls(const ColumnPtr& column, TypeId to);

}  // namespace granite::core
