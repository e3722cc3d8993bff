#include "coordinator/system/catalog_tables.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "coordinator/cluster/table_name.h"
#include "coordinator/system/table_builder.h"
#include "core/types.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

// Whether key expression `key` (as written: "x", "toYYYYMM(day)") reads column `column`: the
// name appears in it as a whole word.
bool Mentions(const std::string& key, const std::string& column) {
  auto word = [](char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = key.find(column); at != std::string::npos; at = key.find(column, at + 1)) {
    size_t end = at + column.size();
    if ((at == 0 || !word(key[at - 1])) && (end == key.size() || !word(key[end]))) return true;
  }
  return false;
}

bool Contains(const std::vector<std::string>& keys, const std::string& column) {
  return std::any_of(keys.begin(), keys.end(),
                     [&](const std::string& key) { return Mentions(key, column); });
}

LocalTable DatabasesTable(const Catalog& catalog) {
  TableBuilder table(
      {"name", "engine", "data_path", "metadata_path", "engine_full", "comment"},
      {TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kString,
       TypeId::kString});
  for (const std::string& name : catalog.Databases()) {
    const std::string engine = name == kSystemDatabase ? "Memory" : "Atomic";
    table[0].AppendString(name);
    table[1].AppendString(engine);
    table[2].AppendString(name == kSystemDatabase ? "" : "tables/");
    table[3].AppendString("");
    table[4].AppendString(engine);
    table[5].AppendString("");
  }
  return table.Build();
}

LocalTable ColumnsTable(const Catalog& catalog, const ColumnBytes* column_bytes) {
  TableBuilder table(
      {"database", "table", "name", "type", "position", "default_kind", "default_expression",
       "comment", "is_in_partition_key", "is_in_sorting_key", "is_in_primary_key",
       "is_in_sampling_key", "compression_codec", "data_compressed_bytes",
       "data_uncompressed_bytes"},
      {TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kUInt64,
       TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kUInt8, TypeId::kUInt8,
       TypeId::kUInt8, TypeId::kUInt8, TypeId::kString, TypeId::kUInt64, TypeId::kUInt64});
  for (const core::TableSchema& schema : catalog.All()) {
    QualifiedTable name = SplitTableName(schema.name);
    // Without PRIMARY KEY the primary key is the sorting key, as in ClickHouse.
    const std::vector<std::string>& primary =
        schema.primary_key.empty() ? schema.order_by : schema.primary_key;
    const std::vector<std::pair<uint64_t, uint64_t>>* bytes = nullptr;
    if (column_bytes != nullptr) {
      auto it = column_bytes->find(schema.name);
      if (it != column_bytes->end()) bytes = &it->second;
    }
    size_t stored = 0;  // the column's position among the stored ones (what parts report)
    const std::vector<core::DeclaredColumn> declared = core::DeclaredColumns(schema);
    for (size_t c = 0; c < declared.size(); ++c) {
      const core::ColumnSchema& schema_column = declared[c].column;
      const std::string& column = schema_column.name;
      const bool is_stored = schema_column.stored();
      table[0].AppendString(name.database);
      table[1].AppendString(name.table);
      table[2].AppendString(column);
      table[3].AppendString(schema_column.DeclaredTypeName());
      table[4].Append<uint64_t>(c + 1);
      table[5].AppendString(std::string(core::DefaultKindName(schema_column.default_kind)));
      table[6].AppendString(schema_column.default_expression);
      table[7].AppendString(schema_column.comment);
      table[8].Append<uint8_t>(Mentions(schema.partition_by, column) ? 1 : 0);
      table[9].Append<uint8_t>(Contains(schema.order_by, column) ? 1 : 0);
      table[10].Append<uint8_t>(Contains(primary, column) ? 1 : 0);
      table[11].Append<uint8_t>(0);
      const std::string& codec = schema_column.codec;
      table[12].AppendString(codec.empty() ? "" : "CODEC(" + codec + ")");
      // A Tuple or Map column's bytes are its subcolumns' (stored one after another).
      uint64_t compressed = 0, uncompressed = 0;
      for (size_t k = 0; is_stored && k < declared[c].count; ++k, ++stored) {
        if (bytes == nullptr || stored >= bytes->size()) continue;
        compressed += (*bytes)[stored].first;
        uncompressed += (*bytes)[stored].second;
      }
      table[13].Append<uint64_t>(compressed);
      table[14].Append<uint64_t>(uncompressed);
    }
  }
  return table.Build();
}

}  // namespace

std::optional<LocalTable> BuildCatalogSystemTable(const std::string& name, const Catalog& catalog,
                                                  const ColumnBytes* column_bytes) {
  if (name == "one") {
    TableBuilder table({"dummy"}, {TypeId::kUInt8});
    table[0].Append<uint8_t>(0);
    return table.Build();
  }
  if (name == "databases") return DatabasesTable(catalog);
  if (name == "columns") return ColumnsTable(catalog, column_bytes);
  return std::nullopt;
}

}  // namespace granite::coordinator
