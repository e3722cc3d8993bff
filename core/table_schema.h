// TableSchema: what CREATE TABLE declared — columns with their types plus the MergeTree clauses
// (ORDER BY, PRIMARY KEY, PARTITION BY, ENGINE, SETTINGS) kept as text, and the sharding key.
// Storage persists it in the table's directory (storage/table_schema.h); the coordinator's
// catalog holds it; core/wire/schema_codec.h converts it to and from the worker API's message.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/compound_column.h"
#include "core/enum_type.h"
#include "core/types.h"

namespace granite::core {

// How a column gets its value when an INSERT does not give it (ClickHouse's default_kind):
// kDefault: `DEFAULT expr` (INSERT may give it); kMaterialized: always computed at INSERT, never
// given, not in SELECT *; kAlias: never stored, computed when read, not in SELECT *.
enum class DefaultKind : uint8_t { kNone = 0, kDefault = 1, kMaterialized = 2, kAlias = 3 };

// Returns "DEFAULT", "MATERIALIZED", "ALIAS", or "" for kNone.
std::string_view DefaultKindName(DefaultKind kind);

struct ColumnSchema {
  std::string name;
  TypeId type = TypeId::kUInt8;
  // The column's CODEC(...) as ClickHouse prints it, without "CODEC(" and ")": "Delta(8), ZSTD(1)".
  // Empty: the type's default codec (storage/compression_codec.h).
  std::string codec;
  DefaultKind default_kind = DefaultKind::kNone;
  // The expression of DEFAULT / MATERIALIZED / ALIAS as SQL text over the table's other columns;
  // empty with kNone.
  std::string default_expression;
  std::string comment;  // COMMENT 'text'
  // Declared LowCardinality(T) over a String-layout T or Nullable of one: parts store the column
  // dictionary-encoded (storage/dictionary_serialization.h); values, kernels and the wire see T.
  // LowCardinality over other types reads as T and does not set it (as before).
  bool low_cardinality = false;
  // Declared Enum8 / Enum16 (maybe in Nullable or Array): `type` is its storage type, Int8 /
  // Int16 in the same wrappers, and this the names <-> values (core/enum_type.h).
  std::optional<EnumType> enum_type;
  // Only in DeclaredColumns' answer: the declared type of a Tuple or Map column, which stands
  // there for its subcolumns.
  std::string compound_type;

  // Returns ClickHouse's name of the declared type: "LowCardinality(Nullable(String))",
  // "Enum8('a' = 1, 'b' = 2)" or TypeName(type).
  std::string DeclaredTypeName() const;

  // Whether parts hold the column (all but ALIAS columns).
  bool stored() const { return default_kind != DefaultKind::kAlias; }

  bool operator==(const ColumnSchema&) const = default;
};

// Returns whether type text `text` (as written in CREATE TABLE, ALTER or CAST), which parses to
// `type`, declares a LowCardinality column that is stored dictionary-encoded: LowCardinality(T)
// with T String, FixedString(N), or Nullable of those.
bool DeclaresLowCardinality(std::string_view text, TypeId type);

// Parses a column's type as written in CREATE TABLE or ALTER: an enum (ParseEnumColumnType, its
// definition into `*enum_type`, its errors as they are) or ParseType's types (`*enum_type` reset).
absl::StatusOr<TypeId> ParseColumnType(std::string_view text, std::optional<EnumType>* enum_type);

// Describes one table. order_by / primary_key entries are expressions as written (usually column
// names).
struct TableSchema {
  std::string name;
  std::vector<ColumnSchema> columns;
  std::vector<std::string> order_by;
  std::vector<std::string> primary_key;
  std::string partition_by;
  std::string engine;
  std::map<std::string, std::string> settings;
  // The columns INSERT routes rows by (hash % shard_count); empty: even split. shard_count is the
  // worker count the table was created with.
  std::vector<std::string> sharding_key;
  uint32_t shard_count = 0;
  // The Tuple and Map columns as declared, in column order; their subcolumns are in `columns`
  // (core/compound_column.h).
  std::vector<CompoundColumn> compound_columns;

  // Returns the position of column `name` (case-sensitive), or -1.
  int ColumnIndex(std::string_view name) const;

  // Returns the schema parts are written with: this one without its ALIAS columns.
  TableSchema Stored() const;

  bool operator==(const TableSchema&) const = default;
};

// One column as CREATE TABLE declared it, at positions [first, first + count) of
// TableSchema::columns: a Tuple or Map column covers its subcolumns.
struct DeclaredColumn {
  ColumnSchema column;
  size_t first = 0;
  size_t count = 1;
};

// Returns the columns as declared (DESCRIBE, SHOW CREATE TABLE, system.columns, SELECT *,
// INSERT's columns): every column, except that a compound's subcolumns are one column named
// after it with `compound_type` set.
std::vector<DeclaredColumn> DeclaredColumns(const TableSchema& schema);

// Returns the compound column called `name`, or null.
const CompoundColumn* FindCompoundColumn(const TableSchema& schema, std::string_view name);

}  // namespace granite::core
