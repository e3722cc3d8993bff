#include "storage/table_schema.h"

#include <algorithm>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/codec_spec.h"
#include "core/enum_type.h"
#include "core/error.h"
#include "core/settings/settings.h"
#include "core/status_macros.h"
#include "storage/coding.h"
#include "storage/sparse_serialization.h"

namespace granite::storage {
namespace {

using core::Error;
using core::ErrorCode;

constexpr char kSchemaMagic[] = "GRSCHEMA";  // 8 bytes, followed by the format version
// 1: no sharding key; 2: no column codecs; 3: no column defaults and comments; 4: no
// LowCardinality flags; 5: no enum definitions.
constexpr uint32_t kSchemaVersion = 7;
constexpr size_t kMaxGranuleRows = 1 << 20;

void PutStrings(ByteWriter& w, const std::vector<std::string>& strings) {
  w.PutU32(static_cast<uint32_t>(strings.size()));
  for (const std::string& s : strings) w.PutString(s);
}

bool GetStrings(ByteReader& r, std::vector<std::string>* strings) {
  uint32_t n = 0;
  if (!r.GetU32(&n)) return false;
  for (uint32_t i = 0; i < n; ++i) {
    std::string s;
    if (!r.GetString(&s)) return false;
    strings->push_back(std::move(s));
  }
  return true;
}

absl::Status Truncated(std::string_view what) {
  return Error(ErrorCode::kCorruptedData,
               absl::StrCat("Cannot decode table schema: ", std::string(what)));
}

}  // namespace

absl::Status ValidateTableSchema(const TableSchema& schema) {
  if (schema.name.empty()) return Error(ErrorCode::kBadArguments, "Table name is empty");
  if (schema.columns.empty()) {
    return Error(ErrorCode::kEmptyListOfColumnsPassed,
                 absl::StrCat("Table ", schema.name, " has no columns"));
  }
  std::set<std::string_view> seen;
  for (size_t i = 0; i < schema.columns.size(); ++i) {
    const ColumnSchema& column = schema.columns[i];
    if (column.name.empty()) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("Column ", i + 1, " of table ", schema.name, " has an empty name"));
    }
    if (!seen.insert(column.name).second) {
      return Error(ErrorCode::kDuplicateColumn,
                   absl::StrCat("Column ", column.name, " specified more than once in table ",
                                schema.name));
    }
    if (!core::IsValidType(static_cast<uint32_t>(column.type))) {
      return Error(ErrorCode::kUnknownType,
                   absl::StrCat("Unknown type id ", static_cast<uint32_t>(column.type), " of column ",
                                column.name, " in table ", schema.name));
    }
    if (!column.codec.empty()) {
      RETURN_IF_ERROR(core::ParseCodecSpec(column.codec, column.type, column.name).status());
    }
  }
  for (const std::string& key : schema.sharding_key) {
    if (schema.ColumnIndex(key) < 0) {
      return Error(ErrorCode::kUnknownIdentifier,
                   absl::StrCat("Missing column ", key, " in the sharding key of table ",
                                schema.name));
    }
  }
  // The coordinator refuses unknown names at CREATE; a stored schema may hold names of another
  // version, which are kept and ignored.
  core::TableSettings settings;
  RETURN_IF_ERROR(settings.ApplyKnown(schema.settings));
  uint64_t rows = settings.index_granularity;
  if (rows == 0 || rows > kMaxGranuleRows) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Setting index_granularity of table ", schema.name, " is ", rows,
                              "; expected an integer from 1 to ", kMaxGranuleRows));
  }
  double ratio = 0;
  if (!absl::SimpleAtod(settings.ratio_of_defaults_for_sparse_serialization, &ratio) ||
      !(ratio >= 0 && ratio <= 1)) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Setting ratio_of_defaults_for_sparse_serialization of table ",
                              schema.name, " is ", settings.ratio_of_defaults_for_sparse_serialization,
                              "; expected a number from 0 to 1"));
  }
  return absl::OkStatus();
}

double SparseRatioOf(const TableSchema& schema) {
  core::TableSettings settings;
  double ratio = kDefaultSparseRatio;
  if (!settings.ApplyKnown(schema.settings).ok() ||
      !absl::SimpleAtod(settings.ratio_of_defaults_for_sparse_serialization, &ratio) ||
      !(ratio >= 0 && ratio <= 1)) {
    return kDefaultSparseRatio;
  }
  return ratio;
}

bool IsCompactPart(const TableSchema& schema, uint64_t rows, uint64_t uncompressed_bytes) {
  core::TableSettings settings;
  if (!settings.ApplyKnown(schema.settings).ok()) settings = core::TableSettings();
  return uncompressed_bytes < settings.min_bytes_for_wide_part ||
         rows < settings.min_rows_for_wide_part;
}

size_t GranuleRowsOf(const TableSchema& schema) {
  core::TableSettings settings;
  uint64_t rows = settings.ApplyKnown(schema.settings).ok() ? settings.index_granularity : 0;
  if (rows == 0) return kDefaultGranuleRows;
  return std::min<size_t>(rows, kMaxGranuleRows);
}

std::string EncodeTableSchema(const TableSchema& schema) {
  ByteWriter w;
  w.PutRaw(kSchemaMagic, 8);
  w.PutU32(kSchemaVersion);
  w.PutString(schema.name);
  w.PutU32(static_cast<uint32_t>(schema.columns.size()));
  for (const ColumnSchema& column : schema.columns) {
    w.PutString(column.name);
    w.PutType(column.type);
  }
  PutStrings(w, schema.order_by);
  PutStrings(w, schema.primary_key);
  w.PutString(schema.partition_by);
  w.PutString(schema.engine);
  w.PutU32(static_cast<uint32_t>(schema.settings.size()));
  for (const auto& [key, value] : schema.settings) {
    w.PutString(key);
    w.PutString(value);
  }
  PutStrings(w, schema.sharding_key);
  w.PutU32(schema.shard_count);
  for (const ColumnSchema& column : schema.columns) w.PutString(column.codec);
  for (const ColumnSchema& column : schema.columns) {
    w.PutU32(static_cast<uint32_t>(column.default_kind));
    w.PutString(column.default_expression);
    w.PutString(column.comment);
  }
  for (const ColumnSchema& column : schema.columns) w.PutU8(column.low_cardinality ? 1 : 0);
  // An enum column's definition as ClickHouse prints it ("Enum8('a' = 1)"), else empty.
  for (const ColumnSchema& column : schema.columns) {
    w.PutString(column.enum_type ? column.enum_type->Name() : std::string());
  }
  // Tuple and Map columns: their names and declared types (their subcolumns are columns above).
  w.PutU32(static_cast<uint32_t>(schema.compound_columns.size()));
  for (const core::CompoundColumn& compound : schema.compound_columns) {
    w.PutString(compound.name);
    w.PutString(compound.type);
  }
  return Seal(std::move(w.bytes()));
}

absl::StatusOr<TableSchema> DecodeTableSchema(std::string_view bytes) {
  auto body = Unseal(bytes, "table schema");
  if (!body.ok()) return body.status();
  ByteReader r(*body);
  char magic[8];
  uint32_t version = 0;
  if (!r.GetRaw(magic, 8) || std::string_view(magic, 8) != std::string_view(kSchemaMagic, 8) ||
      !r.GetU32(&version)) {
    return Truncated("bad header");
  }
  if (version < 1 || version > kSchemaVersion) {
    return Truncated(absl::StrCat("unsupported format version ", version));
  }
  TableSchema schema;
  uint32_t column_count = 0;
  if (!r.GetString(&schema.name) || !r.GetU32(&column_count)) return Truncated("truncated");
  for (uint32_t i = 0; i < column_count; ++i) {
    ColumnSchema column;
    if (!r.GetString(&column.name)) return Truncated("truncated column");
    if (!r.GetType(&column.type)) {
      return Truncated(absl::StrCat("unknown or truncated type of column ", column.name));
    }
    schema.columns.push_back(std::move(column));
  }
  uint32_t setting_count = 0;
  if (!GetStrings(r, &schema.order_by) || !GetStrings(r, &schema.primary_key) ||
      !r.GetString(&schema.partition_by) || !r.GetString(&schema.engine) ||
      !r.GetU32(&setting_count)) {
    return Truncated("truncated clauses");
  }
  for (uint32_t i = 0; i < setting_count; ++i) {
    std::string key, value;
    if (!r.GetString(&key) || !r.GetString(&value)) return Truncated("truncated settings");
    schema.settings[std::move(key)] = std::move(value);
  }
  if (version >= 2 && (!GetStrings(r, &schema.sharding_key) || !r.GetU32(&schema.shard_count))) {
    return Truncated("truncated sharding key");
  }
  if (version >= 3) {
    for (ColumnSchema& column : schema.columns) {
      if (!r.GetString(&column.codec)) return Truncated("truncated column codecs");
    }
  }
  if (version >= 4) {
    for (ColumnSchema& column : schema.columns) {
      uint32_t kind = 0;
      if (!r.GetU32(&kind) || kind > static_cast<uint32_t>(core::DefaultKind::kAlias) ||
          !r.GetString(&column.default_expression) || !r.GetString(&column.comment)) {
        return Truncated("truncated or bad column defaults");
      }
      column.default_kind = static_cast<core::DefaultKind>(kind);
    }
  }
  if (version >= 5) {
    for (ColumnSchema& column : schema.columns) {
      uint8_t low_cardinality = 0;
      if (!r.GetU8(&low_cardinality) || low_cardinality > 1) {
        return Truncated("truncated or bad LowCardinality flags");
      }
      column.low_cardinality = low_cardinality != 0;
    }
  }
  if (version >= 6) {
    for (ColumnSchema& column : schema.columns) {
      std::string text;
      if (!r.GetString(&text)) return Truncated("truncated enum definitions");
      if (text.empty()) continue;
      absl::StatusOr<std::optional<core::EnumType>> parsed = core::ParseEnumType(text);
      if (!parsed.ok() || !*parsed) {
        return Truncated(absl::StrCat("bad enum definition of column ", column.name));
      }
      column.enum_type = **std::move(parsed);
    }
  }
  if (version >= 7) {
    uint32_t count = 0;
    if (!r.GetU32(&count) || count > schema.columns.size()) {
      return Truncated("truncated or bad compound columns");
    }
    for (uint32_t i = 0; i < count; ++i) {
      core::CompoundColumn compound;
      if (!r.GetString(&compound.name) || !r.GetString(&compound.type)) {
        return Truncated("truncated compound columns");
      }
      schema.compound_columns.push_back(std::move(compound));
    }
  }
  if (!r.done()) return Truncated("trailing bytes");
  return schema;
}

}  // namespace granite::storage
