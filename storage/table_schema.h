// Storage's side of TableSchema (core/table_schema.h): validation, granule size, and the
// versioned encoding persisted in the table's directory.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/table_schema.h"
#include "core/types.h"

namespace granite::storage {

using core::ColumnSchema;
using core::TableSchema;

// Rows per granule unless the table sets `index_granularity`.
inline constexpr size_t kDefaultGranuleRows = 8192;

// Checks what storage relies on: a non-empty name, at least one column
// (EMPTY_LIST_OF_COLUMNS_PASSED), non-empty unique column names (DUPLICATE_COLUMN), known types
// (UNKNOWN_TYPE), valid codecs (core::ParseCodecSpec's errors), sharding key columns that exist (UNKNOWN_IDENTIFIER) and, if set,
// index_granularity in [1, 1048576] and ratio_of_defaults_for_sparse_serialization in [0, 1]
// (BAD_ARGUMENTS).
absl::Status ValidateTableSchema(const TableSchema& schema);

// Returns the table's rows per granule: SETTINGS index_granularity, else kDefaultGranuleRows.
// REQUIRES: ValidateTableSchema(schema) is OK.
size_t GranuleRowsOf(const TableSchema& schema);

// Returns the table's `ratio_of_defaults_for_sparse_serialization` (a column of a part whose share
// of default rows is above it is written sparse): the setting, else kDefaultSparseRatio.
// REQUIRES: ValidateTableSchema(schema) is OK.
double SparseRatioOf(const TableSchema& schema);

// Returns true when a part of `rows` rows and `uncompressed_bytes` bytes of the table is written
// compact (storage/part_format.h): fewer bytes than its `min_bytes_for_wide_part` or fewer rows
// than its `min_rows_for_wide_part` (ClickHouse's rule; the defaults, 10 MiB and 0, make every
// part below 10 MiB compact, and min_bytes_for_wide_part = 0 every part wide).
bool IsCompactPart(const TableSchema& schema, uint64_t rows, uint64_t uncompressed_bytes);

// Serializes a schema (versioned, little-endian, with a trailing checksum). Version 2 adds the
// sharding key and shard count, version 3 the column codecs, version 4 the column defaults
// (kind, expression) and comments; older files still decode (without them).
std::string EncodeTableSchema(const TableSchema& schema);

// Parses the output of EncodeTableSchema. Fails with CORRUPTED_DATA on a checksum mismatch,
// truncation or an unknown type id.
absl::StatusOr<TableSchema> DecodeTableSchema(std::string_view bytes);

}  // namespace granite::storage
