// TableSchema: what CREATE TABLE declared — columns with their types plus the MergeTree clauses
// (ORDER BY, PRIMARY KEY, PARTITION BY, ENGINE, SETTINGS) kept as text. Storage persists it in the
// table's directory; the worker also receives it over RPC.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/types.h"

namespace granite::storage {

struct ColumnSchema {
  std::string name;
  core::TypeId type;

  bool operator==(const ColumnSchema&) const = default;
};

// Describes one table. order_by / primary_key entries are expressions as written (usually column
// names); storage does not interpret them in v1.
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

  // Returns the position of column `name` (case-sensitive), or -1.
  int ColumnIndex(std::string_view name) const;

  bool operator==(const TableSchema&) const = default;
};

// Rows per granule unless the table sets `index_granularity`.
inline constexpr size_t kDefaultGranuleRows = 8192;

// Checks what storage relies on: a non-empty name, at least one column
// (EMPTY_LIST_OF_COLUMNS_PASSED), non-empty unique column names (DUPLICATE_COLUMN), known types
// (UNKNOWN_TYPE), sharding key columns that exist (UNKNOWN_IDENTIFIER) and, if set,
// index_granularity in [1, 1048576] (BAD_ARGUMENTS).
absl::Status ValidateTableSchema(const TableSchema& schema);

// Returns the table's rows per granule: SETTINGS index_granularity, else kDefaultGranuleRows.
// REQUIRES: ValidateTableSchema(schema) is OK.
size_t GranuleRowsOf(const TableSchema& schema);

// Serializes a schema (versioned, little-endian, with a trailing checksum). Version 2 adds the
// sharding key and shard count; version 1 files still decode (without them).
std::string EncodeTableSchema(const TableSchema& schema);

// Parses the output of EncodeTableSchema. Fails with CORRUPTED_DATA on a checksum mismatch,
// truncation or an unknown type id.
absl::StatusOr<TableSchema> DecodeTableSchema(std::string_view bytes);

}  // namespace granite::storage
