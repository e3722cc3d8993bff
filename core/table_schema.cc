#include "core/table_schema.h"

namespace granite::core {

int TableSchema::ColumnIndex(std::string_view column) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == column) return static_cast<int>(i);
  }
  return -1;
}

TableSchema TableSchema::Stored() const {
  TableSchema stored = *this;
  std::erase_if(stored.columns, [](const ColumnSchema& column) { return !column.stored(); });
  return stored;
}

std::string_view DefaultKindName(DefaultKind kind) {
  switch (kind) {
    case DefaultKind::kNone:
      return "";
    case DefaultKind::kDefault:
      return "DEFAULT";
    case DefaultKind::kMaterialized:
      return "MATERIALIZED";
    case DefaultKind::kAlias:
      return "ALIAS";
  }
  return "";
}

}  // namespace granite::core
