#include "storage/part_writer.h"

#include <lz4.h>
#include <xxhash.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "storage/dictionary_serialization.h"
#include "storage/key_expression.h"

namespace granite::storage {

using core::Error;
using core::ErrorCode;

PartWriter::PartWriter(std::shared_ptr<FileSystem> fs, std::shared_ptr<const TableSchema> schema,
                       std::string parts_dir, Options options)
    : fs_(std::move(fs)),
      schema_(std::move(schema)),
      parts_dir_(std::move(parts_dir)),
      options_(options) {}

std::vector<uint32_t> PartWriter::SplitIntoGranules(const core::Block& block) const {
  std::vector<uint32_t> granules;
  size_t rows = block.rows();
  size_t row = 0;
  while (row < rows) {
    size_t end = std::min(rows, row + options_.granule_rows);
    // Shrinks the granule while some String column's raw granule would exceed the byte limit.
    for (const core::ColumnPtr& column : block.columns) {
      if (!core::HasStringLayout(column->type())) continue;
      const std::vector<uint64_t>& offsets = column->Offsets();
      uint64_t base = row == 0 ? 0 : offsets[row - 1];
      auto raw_bytes = [&](size_t e) { return offsets[e - 1] - base + 4 * (e - row); };
      if (raw_bytes(end) <= options_.max_granule_bytes) continue;
      // Binary search for the largest end that fits; a lone oversized row still forms a granule.
      size_t lo = row + 1, hi = end;
      while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (raw_bytes(mid) <= options_.max_granule_bytes) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      end = lo;
    }
    granules.push_back(static_cast<uint32_t>(end - row));
    row = end;
  }
  return granules;
}

PartType PartWriter::ChoosePartType(const core::Block& block) const {
  if (options_.part_type.has_value()) return *options_.part_type;
  uint64_t bytes = 0;
  for (const core::ColumnPtr& column : block.columns) bytes += column->ByteSize();
  return IsCompactPart(*schema_, block.rows(), bytes) ? PartType::kCompact : PartType::kWide;
}

absl::Status PartWriter::WriteColumn(WritableFile* file, size_t index,
                                     const core::Column& column,
                                     const std::vector<uint32_t>& granule_rows,
                                     const CompressionCodec& codec,
                                     ColumnSerialization serialization,
                                     const DictionaryEncoding& dictionary, ColumnMarks* marks,
                                     uint64_t* offset_in_file) const {
  std::string scratch;
  std::string compressed;
  uint64_t offset = *offset_in_file;
  size_t row = 0;
  for (uint32_t rows : granule_rows) {
    const bool null_map = core::IsNullable(schema_->columns[index].type);
    std::string_view raw =
        serialization == ColumnSerialization::kSparse
            ? EncodeSparseGranule(column, row, row + rows, &scratch)
        : serialization == ColumnSerialization::kDictionary
            ? EncodeDictionaryGranule(dictionary.codes, CodeWidth(dictionary.values.size()), column,
                                      row, row + rows, null_map, &scratch)
            : EncodeGranule(column, row, row + rows, &scratch, null_map, options_.string_sizes);
    if (raw.size() > LZ4_MAX_INPUT_SIZE) {
      return Error(ErrorCode::kArgumentOutOfBound,
                   absl::StrCat("Cannot insert into table ", schema_->name, ": value of column ",
                                schema_->columns[index].name, " at row ", row + 1, " is ",
                                raw.size(), " bytes; the limit is ", LZ4_MAX_INPUT_SIZE));
    }
    RETURN_IF_ERROR(codec.Encode(raw, &compressed));
    std::string_view block(compressed);
    marks->marks.push_back({offset, static_cast<uint32_t>(block.size()),
                            static_cast<uint32_t>(raw.size()),
                            XXH64(block.data(), block.size(), 0)});
    marks->bounds.push_back(ComputeBounds(column, row, row + rows));
    RETURN_IF_ERROR(file->Append(block));
    offset += block.size();
    row += rows;
  }
  *offset_in_file = offset;
  return absl::OkStatus();
}

absl::StatusOr<PartContents> PartWriter::WriteFiles(const core::Block& block,
                                                    const PartDescription& description,
                                                    const std::string& dir) const {
  RETURN_IF_ERROR(fs_->CreateDir(dir));
  PartMeta meta;
  meta.type = ChoosePartType(block);
  const bool compact = meta.type == PartType::kCompact;
  meta.rows = block.rows();
  meta.columns = schema_->columns;
  meta.granule_rows = SplitIntoGranules(block);
  meta.partition = description.partition;
  meta.sort_key = description.sort_key;
  PartContents contents;
  contents.columns.resize(block.columns.size());
  // Every part is written with the table's current codecs and records them in its meta.
  for (const ColumnSchema& column : schema_->columns) {
    ASSIGN_OR_RETURN(CompressionCodec codec, CompressionCodec::ForColumn(column));
    meta.codecs.push_back(codec.spec().ToString());
    contents.codecs.push_back(std::move(codec));
  }
  // Each column's layout follows its rows in this part, as ClickHouse decides per part.
  // A LowCardinality column is dictionary-encoded unless its part has too many distinct values.
  const double sparse_ratio = SparseRatioOf(*schema_);
  std::vector<DictionaryEncoding> dictionaries(block.columns.size());
  for (size_t i = 0; i < block.columns.size(); ++i) {
    const ColumnSchema& column = schema_->columns[i];
    if (column.low_cardinality && core::HasStringLayout(column.type) &&
        !core::IsArray(column.type) &&
        BuildDictionary(*block.columns[i], &dictionaries[i].values, &dictionaries[i].codes)) {
      meta.serializations.push_back(ColumnSerialization::kDictionary);
      continue;
    }
    dictionaries[i] = DictionaryEncoding();
    meta.serializations.push_back(
        ChooseSerialization(*block.columns[i], column.type, sparse_ratio));
  }
  contents.serializations = meta.serializations;
  contents.string_sizes = options_.string_sizes;
  contents.part_type = meta.type;
  uint64_t bytes = 0;
  // The data and marks files, in the order they are synced below.
  std::vector<std::string> files;
  if (compact) {
    // One data file, column after column (column-major sections), and one marks file.
    const std::string data_path = JoinPath(dir, kCompactDataFileName);
    ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, fs_->NewWritableFile(data_path));
    uint64_t offset = 0;
    std::vector<core::TypeId> types;
    for (size_t i = 0; i < block.columns.size(); ++i) {
      RETURN_IF_ERROR(WriteColumn(file.get(), i, *block.columns[i], meta.granule_rows,
                                  contents.codecs[i], meta.serializations[i], dictionaries[i],
                                  &contents.columns[i], &offset));
      types.push_back(block.columns[i]->type());
    }
    RETURN_IF_ERROR(file->Close());
    std::string marks_bytes = EncodeCompactMarks(contents.columns, types);
    const std::string marks_path = JoinPath(dir, kCompactMarksFileName);
    RETURN_IF_ERROR(WriteFile(*fs_, marks_path, marks_bytes));
    bytes += offset + marks_bytes.size();
    files = {data_path, marks_path};
  } else {
    for (size_t i = 0; i < block.columns.size(); ++i) {
      const std::string data_path = JoinPath(dir, DataFileName(i));
      ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, fs_->NewWritableFile(data_path));
      uint64_t offset = 0;
      RETURN_IF_ERROR(WriteColumn(file.get(), i, *block.columns[i], meta.granule_rows,
                                  contents.codecs[i], meta.serializations[i], dictionaries[i],
                                  &contents.columns[i], &offset));
      RETURN_IF_ERROR(file->Close());
      std::string marks_bytes = EncodeColumnMarks(contents.columns[i], block.columns[i]->type());
      const std::string marks_path = JoinPath(dir, MarksFileName(i));
      RETURN_IF_ERROR(WriteFile(*fs_, marks_path, marks_bytes));
      bytes += offset + marks_bytes.size();
      files.push_back(data_path);
      files.push_back(marks_path);
    }
  }
  for (size_t i = 0; i < block.columns.size(); ++i) {
    if (meta.serializations[i] != ColumnSerialization::kDictionary) continue;
    meta.dictionaries.resize(block.columns.size());
    contents.dictionaries.resize(block.columns.size());
    contents.dictionaries[i] = DictionaryColumn(schema_->columns[i].type, dictionaries[i].values);
    meta.dictionaries[i] = std::move(dictionaries[i].values);
  }
  if (!description.sort_key.empty()) {
    // The sparse primary index: the key at the first row of every granule and at the last row.
    PrimaryIndex& index = contents.index;
    for (const core::ColumnPtr& key : description.key_columns) {
      index.types.push_back(key->type());
      std::vector<core::Value> values;
      values.reserve(meta.granule_rows.size() + 1);
      size_t row = 0;
      for (uint32_t rows : meta.granule_rows) {
        values.push_back(ValueAt(*key, row));
        row += rows;
      }
      values.push_back(ValueAt(*key, row - 1));
      index.values.push_back(std::move(values));
    }
    std::string index_bytes = EncodePrimaryIndex(index);
    RETURN_IF_ERROR(WriteFile(*fs_, JoinPath(dir, kPrimaryIndexFileName), index_bytes));
    bytes += index_bytes.size();
  }
  std::string meta_bytes = EncodePartMeta(meta);
  RETURN_IF_ERROR(WriteFile(*fs_, JoinPath(dir, kMetaFileName), meta_bytes));
  bytes += meta_bytes.size();

  // The part becomes durable and complete before its final name appears. Syncing only after every
  // file is written, and all files at once (SyncFiles), lets the kernel flush them together
  // (several times faster on ext4 than syncing each file as it is finished).
  if (!description.sort_key.empty()) files.push_back(JoinPath(dir, kPrimaryIndexFileName));
  files.push_back(JoinPath(dir, kMetaFileName));
  RETURN_IF_ERROR(SyncFiles(*fs_, files));
  RETURN_IF_ERROR(fs_->SyncDir(dir));
  contents.granule_rows = std::move(meta.granule_rows);
  contents.size_on_disk = bytes;
  contents.partition = std::move(meta.partition);
  contents.sort_key = std::move(meta.sort_key);
  return contents;
}

absl::StatusOr<PartContents> PartWriter::WriteDirectory(const core::Block& block,
                                                        const PartDescription& description,
                                                        const std::string& dir) const {
  absl::StatusOr<PartContents> contents = WriteFiles(block, description, dir);
  if (!contents.ok()) (void)fs_->RemoveAll(dir);
  return contents;
}

absl::StatusOr<std::shared_ptr<const Part>> PartWriter::Write(const core::Block& block,
                                                              const PartDescription& description,
                                                              PartName name,
                                                              std::string_view tmp_prefix) const {
  std::string part_name = name.ToString();
  std::string tmp_dir = JoinPath(parts_dir_, absl::StrCat(core::ToAbsl(tmp_prefix), part_name));
  std::string final_dir = JoinPath(parts_dir_, part_name);
  ASSIGN_OR_RETURN(PartContents contents, WriteDirectory(block, description, tmp_dir));
  absl::Status status = fs_->Rename(tmp_dir, final_dir);
  if (status.ok()) status = fs_->SyncDir(parts_dir_);
  if (!status.ok()) {
    // Best effort: whatever remains is a tmp_ directory (deleted on open) or, if only the last
    // directory fsync failed, a complete part that the caller never published.
    (void)fs_->RemoveAll(tmp_dir);
    (void)fs_->RemoveAll(final_dir);
    (void)fs_->SyncDir(parts_dir_);
    return status;
  }
  return std::make_shared<const Part>(fs_, schema_, final_dir, name, std::move(contents));
}

}  // namespace granite::storage
