// Parquet's file metadata and page headers (parquet.thrift), read from Thrift's compact protocol
// (thrift_compact_reader.h) for the Parquet input (parquet_input.h). Only the fields a reader of
// values needs are kept; statistics, indexes, encryption and key-value metadata are skipped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace granite::coordinator {

// parquet.thrift's enums, as far as the reader uses them.
namespace parquet {
enum Physical : int32_t {
  kBoolean = 0, kInt32 = 1, kInt64 = 2, kInt96 = 3, kFloat = 4, kDouble = 5, kByteArray = 6,
  kFixedLenByteArray = 7,
};
enum Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };
enum Converted : int32_t {
  kUtf8 = 0, kMap = 1, kMapKeyValue = 2, kList = 3, kEnum = 4, kDecimal = 5, kDate = 6,
  kTimeMillis = 7, kTimeMicros = 8, kTimestampMillis = 9, kTimestampMicros = 10, kUInt8 = 11,
  kUInt16 = 12, kUInt32 = 13, kUInt64 = 14, kInt8 = 15, kInt16 = 16, kInt32C = 17, kInt64C = 18,
  kJson = 19, kBson = 20, kInterval = 21,
};
// The field ids of the LogicalType union.
enum Logical : int32_t {
  kNoLogical = 0, kLogicalString = 1, kLogicalMap = 2, kLogicalList = 3, kLogicalEnum = 4,
  kLogicalDecimal = 5, kLogicalDate = 6, kLogicalTime = 7, kLogicalTimestamp = 8,
  kLogicalInteger = 10, kLogicalNull = 11, kLogicalJson = 12, kLogicalBson = 13,
  kLogicalUuid = 14, kLogicalFloat16 = 15,
};
enum Encoding : int32_t {
  kPlain = 0, kPlainDictionary = 2, kRle = 3, kBitPacked = 4, kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6, kDeltaByteArray = 7, kRleDictionary = 8, kByteStreamSplit = 9,
};
enum Codec : int32_t {
  kUncompressed = 0, kSnappy = 1, kGzip = 2, kLzo = 3, kBrotli = 4, kLz4 = 5, kZstd = 6,
  kLz4Raw = 7,
};
enum PageType : int32_t { kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3 };
}  // namespace parquet

struct ParquetSchemaElement {
  int32_t physical = -1;  // parquet::Physical; -1 for a group
  int32_t type_length = 0;
  int32_t repetition = parquet::kRequired;
  std::string name;
  int32_t num_children = 0;
  int32_t converted = -1;  // parquet::Converted, -1 when absent
  int32_t scale = 0;
  int32_t precision = 0;
  int32_t logical = parquet::kNoLogical;
  int32_t timestamp_unit = 0;  // TIMESTAMP / TIME: 1 millis, 2 micros, 3 nanos
  int32_t integer_bits = 0;    // INTEGER
  bool integer_signed = true;
};

struct ParquetColumnChunk {
  int32_t physical = 0;
  int32_t codec = parquet::kUncompressed;
  int64_t num_values = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = 0;
  int64_t dictionary_page_offset = -1;  // -1 when absent
  std::vector<std::string> path;
};

struct ParquetRowGroup {
  std::vector<ParquetColumnChunk> columns;
  int64_t num_rows = 0;
};

struct ParquetFileMetaData {
  std::vector<ParquetSchemaElement> schema;  // depth first; [0] is the root
  int64_t num_rows = 0;
  std::vector<ParquetRowGroup> row_groups;
};

struct ParquetPageHeader {
  int32_t type = parquet::kDataPage;
  int32_t uncompressed_size = 0;
  int32_t compressed_size = 0;
  int32_t num_values = 0;  // level entries (data pages) or dictionary entries
  int32_t encoding = parquet::kPlain;
  // DATA_PAGE_V2 only: levels are stored uncompressed before the (maybe compressed) values.
  int32_t definition_bytes = 0;
  int32_t repetition_bytes = 0;
  bool values_compressed = true;
};

// Parses the footer's FileMetaData. INCORRECT_DATA when malformed.
absl::StatusOr<ParquetFileMetaData> ParseParquetFileMetaData(std::string_view bytes);

// Parses a page header from the front of `bytes`; *size is its length.
absl::StatusOr<ParquetPageHeader> ParseParquetPageHeader(std::string_view bytes, size_t* size);

}  // namespace granite::coordinator
