#include "core/table_schema.h"

#include <cctype>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/status_macros.h"

namespace granite::core {

std::string ColumnSchema::DeclaredTypeName() const {
  if (!compound_type.empty()) return compound_type;
  if (enum_type) return EnumColumnTypeName(type, *enum_type);
  std::string name(TypeName(type));
  if (!low_cardinality) return name;
  return absl::StrCat("LowCardinality(", ToAbsl(name), ")");
}

bool DeclaresLowCardinality(std::string_view text, TypeId type) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  if (!absl::StartsWithIgnoreCase(ToAbsl(text), "lowcardinality")) return false;
  text.remove_prefix(14);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  return !text.empty() && text.front() == '(' && !IsArray(type) && HasStringLayout(type);
}

absl::StatusOr<TypeId> ParseColumnType(std::string_view text, std::optional<EnumType>* enum_type) {
  ASSIGN_OR_RETURN(std::optional<EnumColumnType> declared, ParseEnumColumnType(text));
  if (!declared) {
    enum_type->reset();
    return ParseType(text);
  }
  *enum_type = std::move(declared->enum_type);
  return declared->type;
}

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

std::vector<DeclaredColumn> DeclaredColumns(const TableSchema& schema) {
  std::vector<DeclaredColumn> out;
  // The first subcolumn's position -> the compound (and how many subcolumns it has).
  std::map<size_t, std::pair<const CompoundColumn*, size_t>> starts;
  for (const CompoundColumn& compound : schema.compound_columns) {
    absl::StatusOr<std::optional<CompoundLayout>> layout = ParseCompoundType(compound.type);
    if (!layout.ok() || !*layout) continue;
    const int first = schema.ColumnIndex(SubcolumnName(compound.name, (*layout)->suffixes[0]));
    if (first >= 0) starts[first] = {&compound, (*layout)->suffixes.size()};
  }
  for (size_t i = 0; i < schema.columns.size();) {
    auto start = starts.find(i);
    if (start == starts.end()) {
      out.push_back(DeclaredColumn{schema.columns[i], i, 1});
      ++i;
      continue;
    }
    DeclaredColumn declared{ColumnSchema{start->second.first->name, TypeId::kUInt8}, i,
                            start->second.second};
    declared.column.compound_type = start->second.first->type;
    declared.column.comment = schema.columns[i].comment;
    out.push_back(std::move(declared));
    i += start->second.second;
  }
  return out;
}

const CompoundColumn* FindCompoundColumn(const TableSchema& schema, std::string_view name) {
  for (const CompoundColumn& compound : schema.compound_columns) {
    if (compound.name == name) return &compound;
  }
  return nullptr;
}

}  // namespace granite::core
