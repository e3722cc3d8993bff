#include "storage/part.h"

#include <lz4.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/dictionary_codes.h"
#include "core/magnitude_bits.h"
#include "core/memory/memory_tracker.h"
#include "core/status_macros.h"
#include "storage/dictionary_serialization.h"

namespace granite::storage {
namespace {

using core::Error;
using core::ErrorCode;

// The magnitude bound (core/magnitude_bits.h) of granules [begin, end) of a column of integers or
// decimals of at most 64 bits (not UInt64), from the granules' min / max; -1 when one of them has
// none or the type takes no bound. A column read with it needs no scan to prove that decimal
// arithmetic or a sum over it cannot overflow int64.
int MagnitudeBitsOfGranules(core::TypeId type, const std::vector<GranuleBounds>& bounds,
                            size_t begin, size_t end) {
  const core::TypeId base = core::BaseOf(type);
  const bool decimal = core::IsDecimal(type) && core::ValueSize(type) <= 8;
  const bool integer = core::IsInteger(type) && base != core::TypeId::kUInt64 &&
                       base != core::TypeId::kDateTime64;
  if ((!decimal && !integer) || begin >= end) return -1;
  int bits = 0;
  for (size_t g = begin; g < end; ++g) {
    if (!bounds[g].present) return -1;
    int64_t extremes[2];
    for (int i = 0; i < 2; ++i) {
      const core::Value& v = i == 0 ? bounds[g].min : bounds[g].max;
      if (const int64_t* s = std::get_if<int64_t>(&v)) {
        extremes[i] = *s;
      } else if (const uint64_t* u = std::get_if<uint64_t>(&v); u != nullptr && *u < (1ull << 32)) {
        extremes[i] = static_cast<int64_t>(*u);
      } else {
        return -1;
      }
    }
    bits = std::max(bits, core::MagnitudeBitsOf(extremes, 2));
  }
  return bits;
}

// Returns a block holding a decoded granule, carrying `bits` (>= 0) as the bound of its values.
UncompressedBlockPtr DecodedBlock(core::Column column, int bits) {
  if (bits < 0) return std::make_shared<const UncompressedBlock>(std::move(column));
  return std::shared_ptr<const UncompressedBlock>(new UncompressedBlock(std::move(column)),
                                                  core::MagnitudeBoundDeleter{bits});
}

absl::Status Corrupt(std::string_view what, std::string_view detail) {
  return Error(ErrorCode::kCorruptedData,
               absl::StrCat("Broken ", std::string(what), ": ", std::string(detail)));
}

// Decodes the compressed block of one granule (`mark`) into `target`, or with `fill_cache` into a
// fresh block that is then inserted there under `key`, and hands the raw bytes to append().
// Returns false when the block does not decode or append() refuses it.
bool DecodeGranule(const CompressionCodec& codec, const GranuleMark& mark, const char* block,
                   char* target, UncompressedCache* fill_cache, const UncompressedCache::Key& key,
                   absl::FunctionRef<bool(const char*)> append) {
  std::shared_ptr<UncompressedBlock> fresh;
  if (fill_cache != nullptr) {
    fresh = std::make_shared<UncompressedBlock>(mark.raw_size);
    target = fresh->data.get();
  }
  if (!codec.Decode(block, mark.compressed_size, target, mark.raw_size) || !append(target)) {
    return false;
  }
  if (fresh != nullptr) fill_cache->Insert(key, std::move(fresh));
  return true;
}

// Checks that the marks of one column describe `granule_rows` with blocks back to back, the first
// at *offset (0 in a column's own .bin file, where the previous column's section ends in a
// compact part's data.bin), and advances *offset past the last.
absl::Status CheckMarks(const ColumnMarks& marks, const std::vector<uint32_t>& granule_rows,
                        core::TypeId type, ColumnSerialization serialization,
                        StringSizes string_sizes, size_t dictionary_code_width,
                        uint64_t* section_offset, std::string_view what,
                        std::string_view column) {
  if (marks.marks.size() != granule_rows.size()) {
    return Corrupt(what, absl::StrCat("column ", std::string(column), " has ", marks.marks.size(),
                                      " marks for ", granule_rows.size(), " granules"));
  }
  size_t width = core::ValueSize(type);
  // A Nullable column's granule ends with its null map, one byte per row.
  const uint64_t null_bytes = core::IsNullable(type) ? 1 : 0;
  const uint64_t length_bytes = string_sizes == StringSizes::kU32 ? 4 : 1;  // at least, a row
  uint64_t offset = *section_offset;
  for (size_t g = 0; g < granule_rows.size(); ++g) {
    const GranuleMark& mark = marks.marks[g];
    const uint64_t rows = granule_rows[g];
    // A sparse granule ends with its u32 count of values; the rest is checked when decoded.
    bool raw_ok = serialization == ColumnSerialization::kSparse ? mark.raw_size >= 4
                  : serialization == ColumnSerialization::kDictionary
                      ? mark.raw_size == rows * (dictionary_code_width + null_bytes)
                  : core::IsArray(type)                         ? mark.raw_size >= rows * 8
                  : core::HasStringLayout(type) ? mark.raw_size >= rows * (length_bytes + null_bytes)
                                                  : mark.raw_size == rows * (width + null_bytes);
    if (mark.offset != offset || mark.compressed_size == 0 || !raw_ok) {
      return Corrupt(what, absl::StrCat("column ", std::string(column),
                                        " has a bad mark for granule ", g));
    }
    offset += mark.compressed_size;
  }
  *section_offset = offset;
  return absl::OkStatus();
}

// Returns a buffer of at least `size` bytes for one read on this thread. Scans read the same
// column ranges morsel after morsel: reusing one buffer per thread and purpose avoids mapping
// (and page-faulting) fresh megabytes for every read. Reads larger than kMaxReused get their own
// allocation, held in *owned, so one huge read does not pin its memory to the thread.
char* ReadBuffer(int slot, size_t size, std::unique_ptr<char[]>* owned) {
  constexpr size_t kMaxReused = size_t{32} << 20;
  if (size > kMaxReused) {
    owned->reset(new char[size]);
    return owned->get();
  }
  thread_local std::vector<char> buffers[2];
  std::vector<char>& buffer = buffers[slot];
  if (buffer.size() < size) {
    buffer.clear();
    buffer.shrink_to_fit();
    buffer.resize(std::max(size, size_t{64} << 10));
  }
  return buffer.data();
}

// Returns a Part identity never handed out before in this process.
uint64_t NextPartId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

absl::StatusOr<std::shared_ptr<const Part>> Part::Load(std::shared_ptr<FileSystem> fs,
                                                       std::shared_ptr<const TableSchema> schema,
                                                       std::string dir, PartName name) {
  std::string what = absl::StrCat("part ", name.ToString(), " of table ", schema->name);
  ASSIGN_OR_RETURN(std::vector<std::string> files, fs->ListDir(dir));
  auto require = [&](const std::string& file) -> absl::Status {
    if (std::binary_search(files.begin(), files.end(), file)) return absl::OkStatus();
    return Corrupt(what, absl::StrCat("file ", file, " is missing"));
  };
  RETURN_IF_ERROR(require(kMetaFileName));
  ASSIGN_OR_RETURN(std::string meta_bytes, fs->ReadFile(JoinPath(dir, kMetaFileName)));
  ASSIGN_OR_RETURN(PartMeta meta, DecodePartMeta(meta_bytes, what));
  const bool compact = meta.type == PartType::kCompact;
  if (compact) {
    RETURN_IF_ERROR(require(kCompactDataFileName));
    RETURN_IF_ERROR(require(kCompactMarksFileName));
  } else {
    for (size_t i = 0; i < schema->columns.size(); ++i) {
      RETURN_IF_ERROR(require(DataFileName(i)));
      RETURN_IF_ERROR(require(MarksFileName(i)));
    }
  }
  // Codecs may differ: a part keeps the codec it was written with (meta.codecs). So may names:
  // column files go by position, and a part written before ALTER TABLE ... RENAME COLUMN keeps
  // the old names in its meta (Store::AlterTableSchema).
  bool same_columns = meta.columns.size() == schema->columns.size();
  for (size_t i = 0; same_columns && i < meta.columns.size(); ++i) {
    same_columns = meta.columns[i].type == schema->columns[i].type;
  }
  if (!same_columns) return Corrupt(what, "its columns differ from the table's");
  std::vector<CompressionCodec> codecs;
  for (size_t i = 0; i < meta.codecs.size(); ++i) {
    absl::StatusOr<core::CodecSpec> spec =
        core::ParseCodecSpec(meta.codecs[i], meta.columns[i].type, meta.columns[i].name);
    if (!spec.ok()) {
      return Corrupt(what, absl::StrCat("column ", meta.columns[i].name, " has codec ",
                                        meta.codecs[i], ": ", spec.status().message()));
    }
    codecs.emplace_back(*std::move(spec));
  }
  std::vector<ColumnSerialization> serializations = meta.serializations;
  serializations.resize(meta.columns.size(), ColumnSerialization::kDefault);
  if (PartitionId(meta.partition) != name.partition_id) {
    return Corrupt(what, absl::StrCat("its partition id is ", PartitionId(meta.partition)));
  }
  uint64_t size_on_disk = meta_bytes.size();
  PrimaryIndex index;
  if (!meta.sort_key.empty()) {
    RETURN_IF_ERROR(require(kPrimaryIndexFileName));
    ASSIGN_OR_RETURN(std::string index_bytes,
                     fs->ReadFile(JoinPath(dir, kPrimaryIndexFileName)));
    ASSIGN_OR_RETURN(index, DecodePrimaryIndex(index_bytes, what));
    if (index.types.size() != meta.sort_key.size() ||
        index.values[0].size() != meta.granule_rows.size() + 1) {
      return Corrupt(what, "its primary index does not match its granules");
    }
    size_on_disk += index_bytes.size();
  }

  std::vector<ColumnMarks> columns;
  columns.reserve(meta.columns.size());
  auto code_width = [&](size_t i) -> size_t {
    return i < meta.dictionaries.size() ? CodeWidth(meta.dictionaries[i].size()) : 0;
  };
  auto bad_size = [&](const std::string& file, uint64_t size, uint64_t expected) {
    return Corrupt(what, absl::StrCat("data file ", file, " has ", size, " bytes, expected ",
                                      expected));
  };
  if (compact) {
    // One marks file for all columns; their sections fill data.bin back to back.
    std::vector<core::TypeId> types;
    for (const ColumnSchema& column : meta.columns) types.push_back(column.type);
    ASSIGN_OR_RETURN(std::string marks_bytes,
                     fs->ReadFile(JoinPath(dir, kCompactMarksFileName)));
    ASSIGN_OR_RETURN(columns, DecodeCompactMarks(marks_bytes, types, what));
    ASSIGN_OR_RETURN(uint64_t bin_size, fs->FileSize(JoinPath(dir, kCompactDataFileName)));
    uint64_t offset = 0;
    for (size_t i = 0; i < meta.columns.size(); ++i) {
      RETURN_IF_ERROR(CheckMarks(columns[i], meta.granule_rows, meta.columns[i].type,
                                 serializations[i], meta.string_sizes, code_width(i), &offset,
                                 what, meta.columns[i].name));
    }
    if (offset != bin_size) return bad_size(kCompactDataFileName, bin_size, offset);
    size_on_disk += marks_bytes.size() + bin_size;
  } else {
    for (size_t i = 0; i < meta.columns.size(); ++i) {
      const ColumnSchema& column = meta.columns[i];
      ASSIGN_OR_RETURN(std::string marks_bytes, fs->ReadFile(JoinPath(dir, MarksFileName(i))));
      ASSIGN_OR_RETURN(ColumnMarks marks, DecodeColumnMarks(marks_bytes, column.type, what));
      ASSIGN_OR_RETURN(uint64_t bin_size, fs->FileSize(JoinPath(dir, DataFileName(i))));
      uint64_t offset = 0;
      RETURN_IF_ERROR(CheckMarks(marks, meta.granule_rows, column.type, serializations[i],
                                 meta.string_sizes, code_width(i), &offset, what, column.name));
      if (offset != bin_size) {
        return Corrupt(what, absl::StrCat("data file of column ", column.name, " has ", bin_size,
                                          " bytes, expected ", offset));
      }
      size_on_disk += marks_bytes.size() + bin_size;
      columns.push_back(std::move(marks));
    }
  }
  std::vector<core::ColumnPtr> dictionaries;
  for (size_t i = 0; i < meta.dictionaries.size(); ++i) {
    dictionaries.push_back(serializations[i] == ColumnSerialization::kDictionary
                               ? DictionaryColumn(meta.columns[i].type, meta.dictionaries[i])
                               : nullptr);
  }
  PartContents contents{std::move(meta.granule_rows), std::move(columns),   size_on_disk,
                        std::move(meta.partition),    std::move(meta.sort_key), std::move(index),
                        std::move(codecs),            std::move(serializations),
                        meta.string_sizes,            std::move(dictionaries),
                        meta.type};
  return std::make_shared<const Part>(std::move(fs), std::move(schema), std::move(dir), name,
                                      std::move(contents));
}

Part::Part(std::shared_ptr<FileSystem> fs, std::shared_ptr<const TableSchema> schema,
           std::string dir, PartName name, PartContents contents)
    : id_(NextPartId()),
      fs_(std::move(fs)),
      schema_(std::move(schema)),
      dir_(std::move(dir)),
      name_(name),
      name_string_(name.ToString()),
      granule_rows_(std::move(contents.granule_rows)),
      columns_(std::move(contents.columns)),
      codecs_(std::move(contents.codecs)),
      serializations_(std::move(contents.serializations)),
      dictionaries_(std::move(contents.dictionaries)),
      string_sizes_(contents.string_sizes),
      part_type_(contents.part_type),
      size_on_disk_(contents.size_on_disk),
      partition_(std::move(contents.partition)),
      sort_key_(std::move(contents.sort_key)),
      index_(std::move(contents.index)) {
  if (codecs_.size() != columns_.size()) codecs_.assign(columns_.size(), CompressionCodec::Lz4());
  serializations_.resize(columns_.size(), ColumnSerialization::kDefault);
  dictionaries_.resize(columns_.size());
  column_bounds_.resize(columns_.size());
  for (const ColumnMarks& column : columns_) {
    for (const GranuleMark& mark : column.marks) uncompressed_bytes_ += mark.raw_size;
  }
  for (size_t c = 0; c < columns_.size(); ++c) {
    const std::vector<GranuleBounds>& bounds = columns_[c].bounds;
    bool all = !bounds.empty();
    for (const GranuleBounds& b : bounds) all = all && b.present;
    if (!all) continue;
    GranuleBounds& out = column_bounds_[c];
    out = bounds[0];
    for (const GranuleBounds& b : bounds) {
      if (b.min < out.min) out.min = b.min;
      if (out.max < b.max) out.max = b.max;
    }
  }
  granule_starts_.reserve(granule_rows_.size() + 1);
  granule_starts_.push_back(0);
  for (uint32_t rows : granule_rows_) granule_starts_.push_back(granule_starts_.back() + rows);
  rows_ = granule_starts_.back();
}

Part::~Part() { UncompressedCache::Global().ErasePart(id_); }

uint64_t Part::column_compressed_bytes(size_t column_index) const {
  uint64_t total = 0;
  for (const GranuleMark& mark : columns_[column_index].marks) total += mark.compressed_size;
  return total;
}

uint64_t Part::column_uncompressed_bytes(size_t column_index) const {
  uint64_t total = 0;
  for (const GranuleMark& mark : columns_[column_index].marks) total += mark.raw_size;
  return total;
}

absl::Status Part::BlockError(size_t column_index, size_t granule, bool checksum) const {
  std::string where = absl::StrCat("table ", schema_->name, ", part ", name_string_, ", column ",
                                   schema_->columns[column_index].name, ", granule ", granule);
  if (checksum) {
    return Error(ErrorCode::kChecksumDoesntMatch, absl::StrCat("Checksum mismatch in ", where));
  }
  return Error(ErrorCode::kCorruptedData, absl::StrCat("Cannot decompress block in ", where));
}

absl::StatusOr<std::unique_ptr<RandomAccessFile>> Part::OpenColumn(size_t column_index) const {
  if (column_index >= columns_.size()) {
    return Error(ErrorCode::kArgumentOutOfBound,
                 absl::StrCat("Cannot open column ", column_index, " of part ", name_string_,
                              " of table ", schema_->name, ": it has ", columns_.size(),
                              " columns"));
  }
  return fs_->NewRandomAccessFile(column_file(column_index));
}

std::string Part::column_file(size_t column_index) const {
  return JoinPath(dir_, part_type_ == PartType::kCompact ? std::string(kCompactDataFileName)
                                                         : DataFileName(column_index));
}

uint64_t Part::column_file_offset(size_t column_index) const {
  const std::vector<GranuleMark>& marks = columns_[column_index].marks;
  return marks.empty() ? 0 : marks[0].offset;
}

absl::StatusOr<const char*> Part::ReadCompressedGranules(size_t column_index,
                                                         size_t granule_begin, size_t granule_end,
                                                         const RandomAccessFile* file,
                                                         std::unique_ptr<char[]>* owned,
                                                         uint64_t* first) const {
  // One pread covers the compressed blocks of every requested granule.
  const std::vector<GranuleMark>& marks = columns_[column_index].marks;
  *first = marks[granule_begin].offset;
  uint64_t last = marks[granule_end - 1].offset + marks[granule_end - 1].compressed_size;
  char* compressed = ReadBuffer(0, last - *first, owned);
  std::unique_ptr<RandomAccessFile> opened;
  if (file == nullptr) {
    ASSIGN_OR_RETURN(opened, fs_->NewRandomAccessFile(column_file(column_index)));
    file = opened.get();
  }
  RETURN_IF_ERROR(file->Read(*first, last - *first, compressed));
  return compressed;
}

absl::StatusOr<core::ColumnPtr> Part::ReadColumn(size_t column_index, size_t granule_begin,
                                                 size_t granule_end, const RandomAccessFile* file,
                                                 UncompressedCache* cache, bool insert,
                                                 bool codes_only) const {
  if (column_index >= columns_.size() || granule_begin > granule_end ||
      granule_end > granule_count()) {
    return Error(ErrorCode::kArgumentOutOfBound,
                 absl::StrCat("Cannot read column ", column_index, ", granules [", granule_begin,
                              ", ", granule_end, ") of part ", name_string_, " of table ",
                              schema_->name, ": it has ", columns_.size(), " columns and ",
                              granule_count(), " granules"));
  }
  if (serializations_[column_index] == ColumnSerialization::kDictionary) {
    return ReadDictionaryColumn(column_index, granule_begin, granule_end, file, cache, insert,
                                codes_only);
  }
  if (granule_end == granule_begin + 1 && KeepsDecoded(column_index, granule_begin) &&
      cache != nullptr && cache->enabled()) {
    // One granule (a morsel at the default index_granularity): the cache keeps it decoded and a
    // hit returns that column itself, no copy.
    UncompressedBlockPtr block = cache->Lookup(CacheKey(column_index, granule_begin));
    if (block != nullptr && block->decoded) return DecodedColumn(block);
    if (block == nullptr) {
      if (!insert) return ReadGranules(column_index, granule_begin, granule_end, file, nullptr);
      ASSIGN_OR_RETURN(block, DecodedGranule(column_index, granule_begin, file));
      cache->Insert(CacheKey(column_index, granule_begin), block);
      return DecodedColumn(block);
    }
    // Raw bytes (a multi-granule read inserted them): decoded from them below.
  }
  return ReadGranules(column_index, granule_begin, granule_end, file, cache, insert);
}

bool Part::KeepsDecoded(size_t column_index, size_t granule) const {
  const core::TypeId type = schema_->columns[column_index].type;
  if (serializations_[column_index] != ColumnSerialization::kDefault || core::IsArray(type)) {
    return false;
  }
  if (!core::HasStringLayout(type)) return true;
  const size_t rows = granule_rows_[granule];
  return rows > 0 &&
         columns_[column_index].marks[granule].raw_size >= rows * kMinDecodedStringBytes;
}

absl::StatusOr<UncompressedBlockPtr> Part::DecodedGranule(size_t column_index, size_t granule,
                                                          const RandomAccessFile* file) const {
  // The column's buffers are the server's, as a cached block's bytes (uncompressed_cache.h).
  core::MemoryTrackerScope server(nullptr);
  ASSIGN_OR_RETURN(std::shared_ptr<core::Column> column,
                   ReadGranules(column_index, granule, granule + 1, file, nullptr));
  const core::TypeId type = schema_->columns[column_index].type;
  return DecodedBlock(std::move(*column),
                      MagnitudeBitsOfGranules(type, columns_[column_index].bounds, granule,
                                              granule + 1));
}

absl::StatusOr<UncompressedBlockPtr> Part::DecodedFromRaw(size_t column_index, size_t granule,
                                                          const char* raw) const {
  const core::TypeId type = schema_->columns[column_index].type;
  const size_t rows = granule_rows_[granule];
  size_t raw_size = columns_[column_index].marks[granule].raw_size;
  core::MemoryTrackerScope server(nullptr);  // as DecodedGranule
  core::Column column(type);
  const char* nulls = nullptr;
  bool ok = true;
  if (core::IsNullable(type)) {  // T's granule, then the null map
    ok = raw_size >= rows;
    raw_size -= ok ? rows : 0;
    nulls = raw + raw_size;
  }
  if (ok && core::HasStringLayout(type)) {
    column.MutableOffsets().reserve(rows);
    column.MutableChars().reserve(raw_size);
    ok = AppendStringGranule(std::string_view(raw, raw_size), rows, &column, string_sizes_);
  } else if (ok) {
    ok = raw_size == rows * core::ValueSize(core::RemoveNullable(type));
    if (ok) {
      column.ResizeUninitialized(rows);
      std::memcpy(column.RawData(), raw, raw_size);
    }
  }
  if (!ok) return BlockError(column_index, granule, /*checksum=*/false);
  if (nulls != nullptr) std::memcpy(column.MutableNullMap(), nulls, rows);
  return DecodedBlock(std::move(column),
                      MagnitudeBitsOfGranules(type, columns_[column_index].bounds, granule,
                                              granule + 1));
}

absl::StatusOr<std::shared_ptr<core::Column>> Part::ReadGranules(size_t column_index,
                                                                 size_t granule_begin,
                                                                 size_t granule_end,
                                                                 const RandomAccessFile* file,
                                                                 UncompressedCache* cache,
                                                                 bool insert) const {
  core::TypeId type = schema_->columns[column_index].type;
  // Integers and decimals carry their granules' bound (MagnitudeBitsOfGranules).
  const int bits =
      MagnitudeBitsOfGranules(type, columns_[column_index].bounds, granule_begin, granule_end);
  std::shared_ptr<core::Column> column = bits >= 0 ? core::NewBoundedColumn(type, bits)
                                                   : std::make_shared<core::Column>(type);
  if (granule_begin == granule_end) return column;

  const std::vector<GranuleMark>& marks = columns_[column_index].marks;
  bool is_string = core::HasStringLayout(type);
  const bool is_array = core::IsArray(type);
  // A Nullable granule is T's granule followed by its null map (granule_rows_ bytes); it goes
  // through the scratch buffer like a String one, and so do sparse and Array granules.
  const bool nullable = core::IsNullable(type);
  const bool sparse = serializations_[column_index] == ColumnSerialization::kSparse;
  const bool via_scratch = is_string || nullable || sparse || is_array;
  uint64_t rows = granule_starts_[granule_end] - granule_starts_[granule_begin];
  char* out = nullptr;
  std::unique_ptr<char[]> scratch_owned;
  char* scratch = nullptr;  // one raw String or Nullable granule
  if (via_scratch) {
    uint32_t max_raw = 0;
    for (size_t g = granule_begin; g < granule_end; ++g) max_raw = std::max(max_raw, marks[g].raw_size);
    scratch = ReadBuffer(1, max_raw, &scratch_owned);
  }
  if (is_string) {
    uint64_t chars = 0;
    for (size_t g = granule_begin; g < granule_end; ++g) {
      // Each row's length takes at least one byte (four as u32), its null flag one more.
      const uint64_t row_bytes = (string_sizes_ == StringSizes::kU32 ? 4 : 1) + (nullable ? 1 : 0);
      chars += sparse ? SparseCharsBound(marks[g].raw_size, granule_rows_[g], type)
                      : marks[g].raw_size - uint64_t{granule_rows_[g]} * row_bytes;
    }
    column->MutableOffsets().reserve(rows);
    column->MutableChars().reserve(chars);
  } else if (is_array) {
    column->MutableOffsets().reserve(rows);
  } else {
    column->ResizeUninitialized(rows);  // every byte is written by the loop below
    out = column->RawData();  // fixed-width blocks decompress straight into the column
  }
  std::vector<uint8_t> nulls;
  if (nullable) nulls.reserve(rows);

  // Appends one granule's raw bytes to the column; false when a granule is malformed.
  auto append = [&](size_t g, const char* raw) {
    uint32_t raw_size = marks[g].raw_size;
    if (is_array) return AppendArrayGranule(std::string_view(raw, raw_size), granule_rows_[g], column.get());
    if (sparse) {
      if (!DecodeSparseGranule(std::string_view(raw, raw_size), granule_rows_[g], type, out,
                               column.get(), &nulls)) {
        return false;
      }
      if (!is_string) out += size_t{granule_rows_[g]} * core::ValueSize(core::RemoveNullable(type));
      return true;
    }
    if (nullable) {
      if (raw_size < granule_rows_[g]) return false;
      raw_size -= granule_rows_[g];
      nulls.insert(nulls.end(), reinterpret_cast<const uint8_t*>(raw) + raw_size,
                   reinterpret_cast<const uint8_t*>(raw) + raw_size + granule_rows_[g]);
    }
    if (is_string) {
      return AppendStringGranule(std::string_view(raw, raw_size), granule_rows_[g],
                                 column.get(), string_sizes_);
    }
    if (raw != out) std::memcpy(out, raw, raw_size);
    out += raw_size;
    return true;
  };
  // Appends one granule kept decoded (a plain column's: KeepsDecoded).
  auto append_decoded = [&](size_t g, const core::Column& decoded) {
    const size_t granule_rows = granule_rows_[g];
    if (decoded.size() != granule_rows) return;  // cannot happen: it was read from this granule
    if (nullable) nulls.insert(nulls.end(), decoded.NullMap(), decoded.NullMap() + granule_rows);
    if (is_string) {
      column->AppendRange(decoded, 0, granule_rows);
      return;
    }
    std::memcpy(out, decoded.RawData(), decoded.RawSize());
    out += decoded.RawSize();
  };

  const bool fill = cache != nullptr && cache->enabled() && insert;
  const CompressionCodec& codec = codecs_[column_index];
  RETURN_IF_ERROR(VisitGranules(
      column_index, granule_begin, granule_end, file, cache,
      [&](size_t g, const UncompressedBlock& block) {
        if (block.decoded) {
          append_decoded(g, *block.decoded);
        } else {
          append(g, block.data.get());
        }
      },
      [&](size_t g, const char* block) -> absl::Status {
        if (!DecodeGranule(codec, marks[g], block, via_scratch ? scratch : out,
                           fill ? cache : nullptr, CacheKey(column_index, g),
                           [&](const char* raw) { return append(g, raw); })) {
          return BlockError(column_index, g, /*checksum=*/false);
        }
        return absl::OkStatus();
      }));
  if (nullable) {
    std::memcpy(column->MutableNullMap(), nulls.data(), std::min<size_t>(nulls.size(), column->size()));
  }
  return column;
}

absl::StatusOr<core::ColumnPtr> Part::ReadDictionaryColumn(size_t column_index,
                                                           size_t granule_begin,
                                                           size_t granule_end,
                                                           const RandomAccessFile* file,
                                                           UncompressedCache* cache,
                                                           bool insert, bool codes_only) const {
  const core::TypeId type = schema_->columns[column_index].type;
  const bool nullable = core::IsNullable(type);
  const core::ColumnPtr& dictionary = dictionaries_[column_index];
  auto column = std::make_shared<core::Column>(type);
  auto codes = std::make_shared<core::DictionaryCodes>();
  codes->dictionary = dictionary;
  const uint64_t rows = granule_starts_[granule_end] - granule_starts_[granule_begin];
  codes->codes.reserve(rows);
  std::vector<uint8_t> nulls;
  if (nullable) nulls.reserve(rows);
  const std::vector<GranuleMark>& marks = columns_[column_index].marks;
  uint32_t max_raw = 0;
  for (size_t g = granule_begin; g < granule_end; ++g) {
    max_raw = std::max(max_raw, marks[g].raw_size);
  }
  std::unique_ptr<char[]> scratch_owned;
  char* scratch = granule_begin == granule_end ? nullptr : ReadBuffer(1, max_raw, &scratch_owned);
  auto append = [&](size_t g, const char* raw) {
    return DecodeDictionaryGranule(std::string_view(raw, marks[g].raw_size), granule_rows_[g],
                                   dictionary->size(), &codes->codes,
                                   nullable ? &nulls : nullptr);
  };
  bool malformed_hit = false;
  const bool fill = cache != nullptr && cache->enabled() && insert;
  const CompressionCodec& codec = codecs_[column_index];
  RETURN_IF_ERROR(VisitGranules(
      column_index, granule_begin, granule_end, file, cache,
      [&](size_t g, const UncompressedBlock& block) {
        // A dictionary column's blocks are raw (KeepsDecoded).
        malformed_hit = malformed_hit || block.data == nullptr || !append(g, block.data.get());
      },
      [&](size_t g, const char* block) -> absl::Status {
        if (!DecodeGranule(codec, marks[g], block, scratch, fill ? cache : nullptr,
                           CacheKey(column_index, g),
                           [&](const char* raw) { return append(g, raw); })) {
          return BlockError(column_index, g, /*checksum=*/false);
        }
        return absl::OkStatus();
      }));
  if (malformed_hit || codes->codes.size() != rows) {
    return BlockError(column_index, granule_begin, /*checksum=*/false);
  }
  if (codes_only && !nullable) {
    // Every row '' (a valid column): its reader goes by the codes.
    column->MutableOffsets().assign(rows, 0);
  } else {
    AppendDictionaryValues(*dictionary, codes->codes.data(), rows, column.get());
  }
  column->SetSize(rows);
  if (nullable) {
    std::memcpy(column->MutableNullMap(), nulls.data(), rows);
  } else {
    // Nullable columns keep only their strings: the fast paths read non-NULL values alone.
    column->AttachDictionaryCodes(std::move(codes));
  }
  return column;
}

absl::StatusOr<core::ColumnPtr> Part::ReadStringSizes(size_t column_index, size_t granule_begin,
                                                      size_t granule_end,
                                                      const RandomAccessFile* file,
                                                      UncompressedCache* cache) const {
  if (column_index >= columns_.size() || granule_begin > granule_end ||
      granule_end > granule_count() || !core::HasStringLayout(schema_->columns[column_index].type) ||
      core::IsNullable(schema_->columns[column_index].type)) {
    return Error(ErrorCode::kArgumentOutOfBound,
                 absl::StrCat("Cannot read the sizes of column ", column_index, ", granules [",
                              granule_begin, ", ", granule_end, ") of part ", name_string_,
                              " of table ", schema_->name, ": it has ", columns_.size(),
                              " columns and ", granule_count(), " granules, sizes need a String"));
  }
  if (serializations_[column_index] == ColumnSerialization::kDictionary) {
    // The lengths are the dictionary values' lengths, by code.
    ASSIGN_OR_RETURN(core::ColumnPtr values,
                     ReadColumn(column_index, granule_begin, granule_end, file, cache));
    auto sizes = std::make_shared<core::Column>(core::TypeId::kUInt64);
    sizes->ResizeUninitialized(values->size());
    uint64_t* out = sizes->Data<uint64_t>();
    for (size_t row = 0; row < values->size(); ++row) out[row] = values->StringAt(row).size();
    return sizes;
  }
  auto column = std::make_shared<core::Column>(core::TypeId::kUInt64);
  if (granule_begin == granule_end) return column;
  const std::vector<GranuleMark>& marks = columns_[column_index].marks;
  // LZ4 blocks decode just the length prefix; other codecs decode the whole granule.
  const CompressionCodec& codec = codecs_[column_index];
  column->ResizeUninitialized(granule_starts_[granule_end] - granule_starts_[granule_begin]);
  uint64_t* out = column->Data<uint64_t>();
  uint32_t max_rows = 0;
  for (size_t g = granule_begin; g < granule_end; ++g) {
    max_rows = std::max(max_rows, granule_rows_[g]);
  }
  // A granule is the rows' lengths, then their characters: only the lengths are needed. A
  // sparse granule is decoded whole (it is small: its rows are mostly empty strings).
  const bool sparse = serializations_[column_index] == ColumnSerialization::kSparse;
  const bool partial = codec.is_lz4_block() && !sparse;
  const size_t max_length_bytes = string_sizes_ == StringSizes::kU32 ? 4 : 5;
  // Writes granule g's lengths from its raw bytes (`available` of them: all, or a prefix) and
  // returns false when they do not describe the granule.
  auto copy_lengths = [&](size_t g, const char* raw, size_t available) {
    const uint32_t rows = granule_rows_[g];
    const uint64_t raw_size = marks[g].raw_size;
    uint64_t* lengths = out;
    out += rows;
    if (sparse) return SparseStringSizes(std::string_view(raw, raw_size), rows, lengths) >= 0;
    const int64_t prefix =
        DecodeStringSizes(std::string_view(raw, available), rows, string_sizes_, lengths);
    if (prefix < 0) return false;
    uint64_t chars = 0;
    for (uint32_t row = 0; row < rows; ++row) chars += lengths[row];
    return chars == raw_size - static_cast<uint64_t>(prefix);
  };
  size_t prefix_bytes = size_t{max_rows} * max_length_bytes;
  if (!partial) {
    for (size_t g = granule_begin; g < granule_end; ++g) {
      prefix_bytes = std::max<size_t>(prefix_bytes, marks[g].raw_size);
    }
  }
  std::unique_ptr<char[]> prefix_owned;
  char* prefix = ReadBuffer(1, prefix_bytes, &prefix_owned);
  // Writes granule g's lengths from the granule kept decoded.
  auto decoded_lengths = [&](size_t g, const core::Column& decoded) {
    const std::vector<uint64_t>& ends = decoded.Offsets();
    uint64_t begin = 0;
    for (size_t row = 0; row < decoded.size(); ++row) {
      out[row] = ends[row] - begin;
      begin = ends[row];
    }
    out += granule_rows_[g];
  };
  const bool keep_decoded = cache != nullptr && cache->enabled();
  RETURN_IF_ERROR(VisitGranules(
      column_index, granule_begin, granule_end, file, cache,
      [&](size_t g, const UncompressedBlock& block) {
        if (block.decoded) {
          decoded_lengths(g, *block.decoded);
        } else {
          copy_lengths(g, block.data.get(), marks[g].raw_size);
        }
      },
      [&](size_t g, const char* block) -> absl::Status {
        const GranuleMark& mark = marks[g];
        bool ok = true;
        const char* lengths = prefix;
        size_t available = mark.raw_size;
        if (!partial && keep_decoded && KeepsDecoded(column_index, g)) {
          // The whole granule is decoded anyway: keep it decoded for the next scan, which then
          // reads the column without a copy (ReadColumn of one granule). (Not through
          // DecodedGranule: its read would reuse the buffer this walk reads from.)
          if (!codec.Decode(block, mark.compressed_size, prefix, mark.raw_size)) {
            return BlockError(column_index, g, /*checksum=*/false);
          }
          ASSIGN_OR_RETURN(UncompressedBlockPtr fresh, DecodedFromRaw(column_index, g, prefix));
          cache->Insert(CacheKey(column_index, g), fresh);
          decoded_lengths(g, *fresh->decoded);
          return absl::OkStatus();
        }
        if (!partial) {
          // The whole granule is decoded anyway: keep it for the next scan when there is a cache.
          std::shared_ptr<UncompressedBlock> fresh;
          char* target = prefix;
          if (cache != nullptr && cache->enabled()) {
            fresh = std::make_shared<UncompressedBlock>(mark.raw_size);
            target = fresh->data.get();
          }
          ok = codec.Decode(block, mark.compressed_size, target, mark.raw_size);
          lengths = target;
          if (ok && fresh != nullptr) cache->Insert(CacheKey(column_index, g), fresh);
        } else {
          // The lengths take at most max_length_bytes a row: decode that much of the block.
          const int want = static_cast<int>(
              std::min<uint64_t>(uint64_t{granule_rows_[g]} * max_length_bytes, mark.raw_size));
          int n = want == 0 ? 0
                            : LZ4_decompress_safe_partial(block, prefix,
                                                          static_cast<int>(mark.compressed_size),
                                                          want, want);
          ok = n == want;
          available = static_cast<size_t>(std::max(n, 0));
        }
        if (!ok || !copy_lengths(g, lengths, available)) {
          return BlockError(column_index, g, /*checksum=*/false);
        }
        return absl::OkStatus();
      }));
  return column;
}

absl::Status Part::VisitGranules(
    size_t column_index, size_t granule_begin, size_t granule_end, const RandomAccessFile* file,
    UncompressedCache* cache, absl::FunctionRef<void(size_t, const UncompressedBlock&)> on_hit,
    absl::FunctionRef<absl::Status(size_t, const char*)> on_block) const {
  // Blocks found in the cache, by granule - granule_begin; empty when there is no cache.
  std::vector<UncompressedBlockPtr> cached;
  if (cache != nullptr && cache->enabled()) {
    cached.resize(granule_end - granule_begin);
    for (size_t g = granule_begin; g < granule_end; ++g) {
      cached[g - granule_begin] = cache->Lookup(CacheKey(column_index, g));
    }
  }
  auto hit = [&](size_t g) { return !cached.empty() && cached[g - granule_begin] != nullptr; };
  const std::vector<GranuleMark>& marks = columns_[column_index].marks;
  std::unique_ptr<char[]> compressed_owned;
  size_t g = granule_begin;
  while (g < granule_end) {
    if (hit(g)) {
      on_hit(g, *cached[g - granule_begin]);
      ++g;
      continue;
    }
    size_t run_end = g + 1;
    while (run_end < granule_end && !hit(run_end)) ++run_end;
    uint64_t first = 0;
    ASSIGN_OR_RETURN(const char* compressed, ReadCompressedGranules(column_index, g, run_end, file,
                                                                    &compressed_owned, &first));
    for (; g < run_end; ++g) {
      const GranuleMark& mark = marks[g];
      const char* block = compressed + (mark.offset - first);
      if (XXH64(block, mark.compressed_size, 0) != mark.checksum) {
        return BlockError(column_index, g, /*checksum=*/true);
      }
      RETURN_IF_ERROR(on_block(g, block));
    }
  }
  return absl::OkStatus();
}

bool Part::GranuleMinMax(size_t column_index, size_t granule, core::Value* min,
                         core::Value* max) const {
  if (column_index >= columns_.size() || granule >= granule_count()) return false;
  const GranuleBounds& bounds = columns_[column_index].bounds[granule];
  if (!bounds.present) return false;
  *min = bounds.min;
  *max = bounds.max;
  return true;
}

}  // namespace granite::storage
