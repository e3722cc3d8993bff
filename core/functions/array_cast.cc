#include "core/functions/array_cast.h"

#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/functions/cast_column.h"
#include "core/status_macros.h"

namespace granite::core {

absl::StatusOr<ColumnPtr> CastKeepingNulls(const ColumnPtr& column, TypeId to) {
  if (column->logical_type() == to) return column;
  if (column->type() == TypeId::kNothing) {
    auto out = std::make_shared<Column>(MakeNullable(to));
    for (size_t i = 0; i < column->size(); ++i) out->AppendNull();
    if (!IsNullable(to)) out->DropNullMap();
    return ColumnPtr(std::move(out));
  }
  ColumnPtr values = column;
  if (column->nullable()) {
    auto stripped = std::make_shared<Column>(*column);
    stripped->DropNullMap();
    values = std::move(stripped);
  }
  ASSIGN_OR_RETURN(ColumnPtr converted, CastColumn(values, RemoveNullable(to)));
  if (!IsNullable(to)) return converted;
  auto out = std::make_shared<Column>(*converted);
  out->MakeNullable();
  if (const uint8_t* nulls = column->NullMap(); nulls != nullptr) {
    std::copy(nulls, nulls + column->size(), out->MutableNullMap());
  }
  return ColumnPtr(std::move(out));
}

absl::StatusOr<ColumnPtr> CastArrayColumn(const Column& column, TypeId to) {
  const TypeId from = column.type();
  const bool nothing_elements = IsArray(from) &&
                                RemoveNullable(ArrayElementOf(from)) == TypeId::kNothing;
  if (!IsArray(from) || !IsArray(to) ||
      (ArrayDepthOf(from) != ArrayDepthOf(to) && !nothing_elements)) {
    return Error(ErrorCode::kTypeMismatch,
                 absl::StrCat("CAST AS Array can only be performed between same-dimensional "
                              "Array or String types: cannot convert ",
                              ToAbsl(TypeName(from)), " to ", ToAbsl(TypeName(to))));
  }
  auto nested = std::make_shared<Column>(column.Nested());
  ASSIGN_OR_RETURN(ColumnPtr elements, CastKeepingNulls(nested, ArrayElementOf(to)));
  auto out = std::make_shared<Column>(to);
  out->MutableNested() = *elements;
  out->MutableOffsets() = column.Offsets();
  out->SetSize(column.size());
  return ColumnPtr(std::move(out));
}

}  // namespace granite::core
