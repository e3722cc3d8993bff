// Encodes one result column as the data of a Parquet column chunk, for ParquetOutput
// (parquet_output.h). Each Parquet leaf (a result column, or one element of a tuple or map) is a
// scalar, or the innermost element of Array(...Array(T)) written in Parquet's three-level LIST
// layout (`a (LIST) { repeated group list { element } }` per array level).
//
// Levels: the repetition level is the array depth (the deepest list a value starts a new item
// in); the definition level counts the repeated groups entered plus 1 for a present value of a
// Nullable leaf; an empty list is one entry with the level of its depth and no value. Values are
// PLAIN, only for present leaves:
//   UInt8/16/32, Int8/16/32, Date         INT32 (UInt32 by its bits)
//   Bool                                  BOOLEAN (bit-packed, LSB first)
//   UInt64, Int64                         INT64
//   Float32 / Float64                     FLOAT / DOUBLE
//   String                                BYTE_ARRAY (a 4-byte length, then the bytes)
//   FixedString(N)                        FIXED_LEN_BYTE_ARRAY(N) (or BYTE_ARRAY)
//   DateTime, DateTime64(p)               INT64 timestamp: ms for DateTime and p <= 3, us up
//                                         to 6, ns up to 9
//   Decimal(P, S)                         FIXED_LEN_BYTE_ARRAY(4, 8 or 16) big-endian
//   UUID                                  FIXED_LEN_BYTE_ARRAY(16), the bytes in text order
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/column.h"
#include "core/types.h"

namespace granite::coordinator {

// Parquet's physical types (the Type enum of parquet.thrift).
enum class ParquetPhysical : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

// How one granite type is stored as a Parquet leaf.
struct ParquetLeafType {
  ParquetPhysical physical = ParquetPhysical::kInt32;
  int32_t type_length = 0;     // FIXED_LEN_BYTE_ARRAY's width
  int max_repetition = 0;      // array depth
  int max_definition = 0;
  core::TypeId value_type = core::TypeId::kUInt8;  // the innermost type, without Nullable
  bool fixed_string_as_fixed = true;
};

// Returns the leaf of a column of `type`. REQUIRES: the type contains no Nothing.
ParquetLeafType ParquetLeafOf(core::TypeId type, bool fixed_string_as_fixed);

// The encoded levels and values of one column chunk.
struct ParquetColumnData {
  std::string levels;  // repetition then definition levels, each a 4-byte length + RLE runs
  std::string values;  // PLAIN
  int64_t num_values = 0;  // level entries (values, NULLs and empty lists)
};

// Encodes all rows of `column` as `leaf` (ParquetLeafOf its declared type).
ParquetColumnData EncodeParquetColumn(const core::Column& column, const ParquetLeafType& leaf);

}  // namespace granite::coordinator
