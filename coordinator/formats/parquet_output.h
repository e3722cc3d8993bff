// Parquet output (coordinator/formats/output_format.h), as ClickHouse writes it and pyarrow
// reads it: "PAR1", row groups of output_format_parquet_row_group_size rows (the last one
// shorter), each column chunk one DATA_PAGE (v1) of PLAIN values after RLE levels, compressed
// with zstd (output_format_parquet_compression_method, ClickHouse's default) or not, then the
// FileMetaData in Thrift's compact protocol (thrift_compact_writer.h), its length and "PAR1".
// Types as parquet_column_encoder.h stores them, annotated with Parquet's logical types the way
// ClickHouse annotates them (UInt8 as INT(8, false), String as STRING, Date as DATE, DateTime
// and DateTime64 as TIMESTAMP(isAdjustedToUTC), Decimal as DECIMAL(P, S), UUID as UUID, arrays
// as LIST); Nullable(T) is an OPTIONAL field. Nothing (the type of NULL) is refused like
// ClickHouse refuses it: UNKNOWN_TYPE. No dictionary pages, statistics or page indexes.
#pragma once

#include <string>
#include <vector>

#include "coordinator/formats/output_format.h"
#include "coordinator/formats/parquet_column_encoder.h"
#include "coordinator/formats/row_batcher.h"
#include "coordinator/formats/thrift_compact_writer.h"

namespace granite::coordinator {

// Writes a result as one Parquet file.
// Thread-safety: none.
class ParquetOutput : public OutputFormat {
 public:
  explicit ParquetOutput(const ParquetWriteOptions& options)
      : options_(options), batcher_(options.row_group_rows) {}

  absl::Status Accepts(const std::vector<std::string>& names,
                       const std::vector<core::TypeId>& types) const override;
  void Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
             std::string* out) override;
  void Write(const core::Block& block, std::string* out) override;
  void End(std::string* out) override;
  std::string_view ContentType() const override { return "application/octet-stream"; }

 private:
  // Where a written column chunk sits and how large it is.
  struct Chunk {
    int64_t offset = 0;
    int64_t num_values = 0;
    int64_t uncompressed = 0;  // page header included
    int64_t compressed = 0;
  };
  struct RowGroup {
    std::vector<Chunk> chunks;
    int64_t rows = 0;
  };
  // One Parquet leaf column: a result column, or an element of a tuple or map in one, reached
  // through `elements` (tuple element indexes; a map's 0 = keys, 1 = values, each an Array).
  struct Leaf {
    size_t column = 0;
    std::vector<size_t> elements;
    std::vector<std::string> path;  // path_in_schema
    ParquetLeafType type;
  };

  // Appends the leaves of a column of `type` named by `path` and reached through `elements`.
  void AddLeaves(size_t column, core::TypeId type, std::vector<std::string> path,
                 std::vector<size_t> elements);

  void WriteRowGroup(const core::Block& block, std::string* out);
  // Appends one column's schema elements: a leaf, a LIST group per array level, a group of a
  // tuple's elements, or a MAP group of repeated key_value groups.
  void AppendSchema(std::string_view name, core::TypeId type, ThriftCompactWriter* thrift) const;
  void AppendFooter(std::string* out);
  void Append(std::string_view bytes, std::string* out);

  // Constant after construction.
  const ParquetWriteOptions options_;
  // Set by Begin.
  std::vector<std::string> names_;
  std::vector<core::TypeId> types_;
  std::vector<Leaf> leaves_;
  uint64_t written_ = 0;
  std::vector<RowGroup> row_groups_;
  RowBatcher batcher_;  // rows of the next row group
};

}  // namespace granite::coordinator
