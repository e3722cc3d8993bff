// Maps a Parquet file's schema to granite columns, for the Parquet input (parquet_input.h): one
// ParquetLeaf per top-level field. A primitive field reads as the granite type its physical and
// logical types name (as ClickHouse reads them):
//   BOOLEAN                              Bool
//   INT32 / INT64                        Int32 / Int64; INT(bits, signed) the integer it names;
//                                        DATE -> Date (saturated); DECIMAL(P, S) -> Decimal(P, S);
//                                        TIMESTAMP(ms | us | ns) -> DateTime64(3 | 6 | 9)
//   INT96                                DateTime64(9) (Impala's and Spark's timestamps)
//   FLOAT / DOUBLE                       Float32 / Float64
//   BYTE_ARRAY                           String; DECIMAL -> Decimal
//   FIXED_LEN_BYTE_ARRAY(N)              FixedString(N); UUID -> UUID; DECIMAL -> Decimal;
//                                        FLOAT16 -> Float32
// An OPTIONAL field is Nullable; a LIST group (three-level, or the older two-level forms) is an
// Array of its element, nested to granite's array depth; a REPEATED primitive is an Array. A
// required STRUCT group of such fields is a Tuple, a required MAP group a Map (for Tuple and Map
// columns); other groups (optional, nested, lists of structs) record why they cannot be read
// (UNKNOWN_TYPE), an error only if an insert reads them.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/formats/parquet_column_reader.h"
#include "coordinator/formats/parquet_metadata.h"

namespace granite::coordinator {

// Returns one leaf per top-level field of the schema, in order. INCORRECT_DATA when the schema's
// tree is malformed (child counts that do not fit the element list).
absl::StatusOr<std::vector<ParquetLeaf>> DescribeParquetColumns(const ParquetFileMetaData& meta);

}  // namespace granite::coordinator
