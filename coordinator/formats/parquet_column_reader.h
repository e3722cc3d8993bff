// Reads one Parquet column chunk (a leaf of one row group) into a granite column, for the Parquet
// input (parquet_input.h): walks the chunk's pages (a dictionary page, then DATA_PAGE v1 or v2
// pages), decompresses them (parquet_compression.h), decodes repetition and definition levels and
// the values (PLAIN, PLAIN_DICTIONARY / RLE_DICTIONARY, RLE booleans, DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT; parquet_values.h), and assembles
// rows from the levels: a NULL where an OPTIONAL leaf is undefined, arrays from the repeated
// levels of LIST groups (a NULL list reads as [], as granite has no Nullable(Array)).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/formats/parquet_metadata.h"
#include "coordinator/formats/parquet_values.h"
#include "core/column.h"
#include "core/types.h"

namespace granite::coordinator {

// How one top-level Parquet field reads as a granite column.
struct ParquetLeaf {
  std::string name;
  size_t chunk = 0;  // its leaf's column chunk in each row group
  int32_t physical = parquet::kInt32;
  int32_t type_length = 0;
  int max_definition = 0;
  int max_repetition = 0;  // the array depth
  // Per array level, outermost first: the definition level at which the list has an element.
  std::vector<int> element_definition;
  bool element_nullable = false;  // the leaf is OPTIONAL: a value may be NULL
  core::TypeId read_type = core::TypeId::kInt32;  // the values' type, without Nullable
  ParquetConversion conversion = ParquetConversion::kCopy;
  // OK, or why the field cannot be read (a struct, a map, an unknown physical type): an error
  // only when the insert needs the field.
  absl::Status unsupported;
  // A required STRUCT group (its fields) or MAP group (its key and value, each read as an array
  // of the map's entries): one leaf per part, read and put together as a Tuple or a Map.
  std::vector<ParquetLeaf> parts;
  std::vector<std::string> part_names;
  bool map = false;
  bool array = false;  // a LIST of STRUCT: the parts are arrays of the list's structs' fields
  // A part of an OPTIONAL STRUCT: where the struct is NULL a REQUIRED field reads as its type's
  // default (a Tuple is never NULL in granite, as in ClickHouse).
  bool null_struct_default = false;

  // Array^depth(read type, Nullable when element_nullable).
  core::TypeId column_type() const;
  // The bytes of one PLAIN value (0 for BOOLEAN and BYTE_ARRAY).
  int physical_width() const;
};

// Reads `chunk` (of a row group of `rows` rows) of `file` as `leaf` describes. INCORRECT_DATA
// when pages, levels or values are malformed or disagree with the row count,
// CANNOT_DECOMPRESS for a page that does not decompress.
// REQUIRES: leaf.unsupported is OK.
absl::StatusOr<core::Column> ReadParquetColumnChunk(std::string_view file,
                                                    const ParquetColumnChunk& chunk,
                                                    const ParquetLeaf& leaf, int64_t rows);

}  // namespace granite::coordinator
