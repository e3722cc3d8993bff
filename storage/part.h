// Part: one immutable, durable slice of a table on disk (format in storage/part_format.h). Loaded
// once (meta and marks stay in memory); column data is read on demand, a range of granules at a
// time, with every compressed block's checksum verified. Scans hold parts by shared_ptr through a
// PartsSnapshot (storage/table.h), so a part stays usable while inserts publish new snapshots.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "core/column.h"
#include "core/value.h"
#include "storage/compression_codec.h"
#include "storage/file_system.h"
#include "storage/part_format.h"
#include "storage/table_schema.h"
#include "storage/uncompressed_cache.h"

namespace granite::storage {

// What PartWriter wrote into a part's directory, as Part keeps it in memory.
struct PartContents {
  std::vector<uint32_t> granule_rows;
  std::vector<ColumnMarks> columns;  // one per schema column
  uint64_t size_on_disk = 0;
  PartitionValue partition;
  std::vector<std::string> sort_key;  // expressions the rows are sorted by
  PrimaryIndex index;                 // empty without a sort key
  // Per column, the codec its blocks were written with; empty: all LZ4 (parts from before codecs).
  std::vector<CompressionCodec> codecs;
  // Per column, its layout; empty: all kDefault (parts from before sparse serialization).
  std::vector<ColumnSerialization> serializations;
  // How its String granules store lengths.
  StringSizes string_sizes = StringSizes::kVarint;
  // Per column, the dictionary of a kDictionary column (String-layout values in code order, no
  // null map), else null; empty: no kDictionary column.
  std::vector<core::ColumnPtr> dictionaries;
  // Wide (a file pair per column) or compact (every column in data.bin / data.mrk).
  PartType part_type = PartType::kWide;
};

// Reads the columns of one part.
// Thread-safety: immutable after construction; all methods may be called concurrently.
// Invariants: granule_rows_ sum to rows(); columns_[i].marks has granule_count() entries and
//             describes a .bin file of exactly the recorded size (a wide part), or the columns'
//             marks describe back-to-back sections filling data.bin exactly (a compact part).
class Part {
 public:
  // Loads the part in directory `dir` of table `schema`. Fails with CORRUPTED_DATA if a file is
  // missing, truncated, fails its checksum or does not match the schema (the caller treats such a
  // part as a leftover), and with CANNOT_READ_FROM_FILE on other I/O errors.
  static absl::StatusOr<std::shared_ptr<const Part>> Load(std::shared_ptr<FileSystem> fs,
                                                         std::shared_ptr<const TableSchema> schema,
                                                         std::string dir, PartName name);

  // Builds a part from what PartWriter wrote. REQUIRES: `contents` describes the files in `dir`
  // (as Load would have read them).
  Part(std::shared_ptr<FileSystem> fs, std::shared_ptr<const TableSchema> schema, std::string dir,
       PartName name, PartContents contents);
  // Drops the part's blocks from UncompressedCache::Global().
  ~Part();
  Part(const Part&) = delete;
  Part& operator=(const Part&) = delete;

  // Returns the part's identity in this process: a generation number no other Part object gets,
  // even one loaded later under the same name (keys UncompressedCache entries).
  uint64_t id() const { return id_; }

  const std::string& name() const { return name_string_; }
  const PartName& part_name() const { return name_; }
  const std::string& partition_id() const { return name_.partition_id; }
  uint32_t level() const { return name_.level; }
  const PartitionValue& partition() const { return partition_; }
  const std::vector<std::string>& sort_key() const { return sort_key_; }
  const PrimaryIndex& primary_index() const { return index_; }
  const std::string& directory() const { return dir_; }
  uint64_t rows() const { return rows_; }
  size_t granule_count() const { return granule_rows_.size(); }
  size_t column_count() const { return columns_.size(); }
  size_t granule_rows(size_t granule) const { return granule_rows_[granule]; }
  // Returns the part-relative number of the first row of `granule` (granule_count() → rows()).
  uint64_t granule_first_row(size_t granule) const { return granule_starts_[granule]; }
  // Returns the bytes of all files of the part.
  uint64_t size_on_disk() const { return size_on_disk_; }
  // Returns how the part stores its columns (storage/part_format.h).
  PartType part_type() const { return part_type_; }
  // Returns the path of the file holding column `column_index`'s blocks (its c<i>.bin, or the
  // compact part's data.bin) and the offset of the column's first block in it.
  // REQUIRES: column_index < column_count().
  std::string column_file(size_t column_index) const;
  uint64_t column_file_offset(size_t column_index) const;
  // Returns the bytes of column `column_index` on disk (compressed) and uncompressed.
  uint64_t column_compressed_bytes(size_t column_index) const;
  uint64_t column_uncompressed_bytes(size_t column_index) const;
  // Returns the uncompressed bytes of all columns.
  uint64_t uncompressed_bytes() const { return uncompressed_bytes_; }
  // Returns the codec column `column_index`'s blocks were written with.
  const CompressionCodec& column_codec(size_t column_index) const { return codecs_[column_index]; }
  // Returns how column `column_index`'s granules are laid out (Sparse: its non-default values).
  ColumnSerialization column_serialization(size_t column_index) const {
    return serializations_[column_index];
  }

  // Returns the dictionary of a kDictionary column (its distinct values in code order), or null.
  const core::ColumnPtr& column_dictionary(size_t column_index) const {
    return dictionaries_[column_index];
  }

  // Returns the rows of granules [granule_begin, granule_end) of one column, concatenated.
  // A kDictionary column's strings come from its dictionary, and a non-Nullable one carries its
  // codes too (Column::dictionary_codes). Reads
  // the compressed range with one pread and verifies each block's checksum; a mismatch returns
  // CHECKSUM_DOESNT_MATCH naming table, part, column and granule.
  // Errors: ARGUMENT_OUT_OF_BOUND for a bad index or range; CANNOT_READ_FROM_FILE on I/O errors.
  // `file`: the column's data file from OpenColumn, or nullptr to open it for this read.
  // `cache` (may be null or disabled): granules found there are copied from it, the others read
  // (one pread per run of consecutive misses), verified, decompressed and, with `insert`, inserted.
  // A read of one granule of a plain column (KeepsDecoded) through an enabled cache copies
  // nothing on a hit: the cache keeps such a granule decoded and returns its column (shared
  // with the cache and other readers; immutable as every ColumnPtr).
  // `codes_only`: a non-Nullable kDictionary column comes with its codes and empty strings (for a
  // reader that uses the codes alone); other columns read as without it.
  absl::StatusOr<core::ColumnPtr> ReadColumn(size_t column_index, size_t granule_begin,
                                             size_t granule_end,
                                             const RandomAccessFile* file = nullptr,
                                             UncompressedCache* cache = nullptr,
                                             bool insert = true, bool codes_only = false) const;
  // Returns the byte lengths (UInt64) of the values of a String column over granules
  // [granule_begin, granule_end): decompresses only each granule's length prefix, never the
  // characters. Checksums and errors as ReadColumn; ARGUMENT_OUT_OF_BOUND for a non-String column.
  // Granules found in `cache` take their lengths from the cached block; misses are not inserted
  // (only their length prefix is decompressed).
  absl::StatusOr<core::ColumnPtr> ReadStringSizes(size_t column_index, size_t granule_begin,
                                                  size_t granule_end,
                                                  const RandomAccessFile* file = nullptr,
                                                  UncompressedCache* cache = nullptr) const;
  // Opens the data file of one column (data.bin, shared by all columns, in a compact part), for
  // a scan that reads many granule ranges of it and passes
  // the file to each ReadColumn / ReadStringSizes (one open instead of one per read).
  // Errors: ARGUMENT_OUT_OF_BOUND for a bad index; CANNOT_READ_FROM_FILE when it cannot be opened.
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenColumn(size_t column_index) const;

  // Sets *min / *max to the bounds of one granule's values (forms: see GranuleBounds) and returns
  // true, or returns false when they are unknown or the indexes are out of range.
  bool GranuleMinMax(size_t column_index, size_t granule, core::Value* min,
                     core::Value* max) const;
  // Returns the bounds of one column's granule (not present when unknown).
  // REQUIRES: column_index < column count, granule < granule_count().
  const GranuleBounds& granule_bounds(size_t column_index, size_t granule) const {
    return columns_[column_index].bounds[granule];
  }
  // Returns the bounds of one column over the whole part: present only when every granule's are.
  const GranuleBounds& column_bounds(size_t column_index) const {
    return column_bounds_[column_index];
  }

 private:
  absl::Status BlockError(size_t column_index, size_t granule, bool checksum) const;
  // ReadColumn of a kDictionary column (storage/dictionary_serialization.h).
  absl::StatusOr<core::ColumnPtr> ReadDictionaryColumn(size_t column_index, size_t granule_begin,
                                                       size_t granule_end,
                                                       const RandomAccessFile* file,
                                                       UncompressedCache* cache, bool insert,
                                                       bool codes_only) const;
  // Returns whether one-granule reads of the column keep granule `granule` decoded in the
  // cache: a plain column (not Sparse, kDictionary or Array), whose granule is one column of its
  // rows; for a String, only values of kMinDecodedStringBytes or more on average (decoded, each
  // value takes 8 more bytes of offsets: short strings would take up to twice their raw bytes of
  // cache, so a scan of many short-string rows would no longer fit where its raw granules did).
  bool KeepsDecoded(size_t column_index, size_t granule) const;
  static constexpr size_t kMinDecodedStringBytes = 24;
  // Reads granule `granule` of a KeepsDecoded column (no cache) into a block that holds it
  // decoded, allocated under the server's memory tracker as the cache's blocks are.
  absl::StatusOr<UncompressedBlockPtr> DecodedGranule(size_t column_index, size_t granule,
                                                      const RandomAccessFile* file) const;
  // Builds the block of granule `granule` of a KeepsDecoded column from its raw bytes (as
  // DecodedGranule). Errors: CORRUPTED_DATA when they do not describe the granule.
  absl::StatusOr<UncompressedBlockPtr> DecodedFromRaw(size_t column_index, size_t granule,
                                                      const char* raw) const;
  // ReadColumn of a column that is not kDictionary, over the raw blocks (`cache` as ReadColumn's,
  // but granules are never kept decoded here). REQUIRES: valid indexes.
  absl::StatusOr<std::shared_ptr<core::Column>> ReadGranules(size_t column_index,
                                                            size_t granule_begin,
                                                            size_t granule_end,
                                                            const RandomAccessFile* file,
                                                            UncompressedCache* cache,
                                                            bool insert = true) const;
  UncompressedCache::Key CacheKey(size_t column_index, size_t granule) const {
    return {id_, static_cast<uint32_t>(column_index), static_cast<uint32_t>(granule)};
  }
  // Reads the compressed blocks of granules [granule_begin, granule_end) of one column with one
  // pread into the calling thread's read buffer (or into *owned when it is too big) and returns
  // their start; *first is their offset in the column file.
  // REQUIRES: a valid column index and granule_begin < granule_end <= granule_count().
  // `file` is the column's data file, or nullptr to open it here.
  absl::StatusOr<const char*> ReadCompressedGranules(size_t column_index, size_t granule_begin,
                                                     size_t granule_end,
                                                     const RandomAccessFile* file,
                                                     std::unique_ptr<char[]>* owned,
                                                     uint64_t* first) const;
  // Walks granules [granule_begin, granule_end) of one column in order: a block found in `cache`
  // (when not null and enabled) goes to on_hit(granule, block: raw bytes or the granule decoded),
  // verified when it was inserted;
  // each run of misses is read with one pread, and each of its blocks is checksum-verified and
  // handed to on_block(granule, compressed bytes). Stops at the first error.
  // REQUIRES: as ReadCompressedGranules.
  absl::Status VisitGranules(size_t column_index, size_t granule_begin, size_t granule_end,
                             const RandomAccessFile* file, UncompressedCache* cache,
                             absl::FunctionRef<void(size_t, const UncompressedBlock&)> on_hit,
                             absl::FunctionRef<absl::Status(size_t, const char*)> on_block) const;

  // Constant after construction.
  uint64_t id_;
  std::shared_ptr<FileSystem> fs_;
  std::shared_ptr<const TableSchema> schema_;
  std::string dir_;
  PartName name_;
  std::string name_string_;
  uint64_t rows_ = 0;
  std::vector<uint32_t> granule_rows_;
  std::vector<uint64_t> granule_starts_;  // prefix sums of granule_rows_, one extra at the end
  std::vector<ColumnMarks> columns_;
  std::vector<CompressionCodec> codecs_;  // one per column
  std::vector<ColumnSerialization> serializations_;  // one per column
  std::vector<core::ColumnPtr> dictionaries_;       // one per column, null unless kDictionary
  StringSizes string_sizes_;
  PartType part_type_;
  std::vector<GranuleBounds> column_bounds_;
  uint64_t size_on_disk_ = 0;
  uint64_t uncompressed_bytes_ = 0;
  PartitionValue partition_;
  std::vector<std::string> sort_key_;
  PrimaryIndex index_;
};

}  // namespace granite::storage
