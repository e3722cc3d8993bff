// Parquet input (INSERT ... FORMAT Parquet), as pyarrow, pandas, DuckDB, Spark and ClickHouse
// write it. A Parquet file's metadata is at its end, so the whole file is buffered before
// anything is read (ClickHouse does the same for a non-seekable input); then each call reads one
// row group into one block, so a file of many row groups is sent as many blocks.
//
// Columns map to the table's by name, as for Arrow (arrow_input.h): a Parquet column the table
// lacks is skipped without being read, a table column the file lacks is omitted (its DEFAULT).
// Values read as parquet_schema.h says, then convert to the column's type like CAST; a NULL into
// a column that is not Nullable is its default (input_format_null_as_default) or refused.
// Errors: INCORRECT_DATA for a malformed file (bad magic, footer, page or level), CANNOT_DECOMPRESS
// for a page that does not decompress, UNKNOWN_TYPE for a needed column of a type granite lacks
// (struct, map).
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/formats/input_block_builder.h"
#include "coordinator/formats/input_progress.h"
#include "coordinator/formats/parquet_column_reader.h"
#include "coordinator/formats/parquet_metadata.h"

namespace granite::coordinator {

// What a Parquet parse carries between calls.
struct ParquetInputState {
  bool opened = false;  // the footer was read
  ParquetFileMetaData meta;
  std::vector<ParquetLeaf> leaves;
  size_t next_row_group = 0;
};

// Consumes nothing until `last` (the whole file is in `data`); then reads the next row group into
// `builder` and returns 0, or data.size() once the last row group was read.
// REQUIRES: each call passes the same whole file once `last` is set.
absl::StatusOr<size_t> ParseParquet(std::string_view data, bool last, ParquetInputState* state,
                                    InputProgress* progress, InputBlockBuilder* builder);

}  // namespace granite::coordinator
