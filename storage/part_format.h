// On-disk format of one part, shared by PartWriter (writes it) and Part (reads it).
//
// A part is a directory <table>/parts/<part name>/ holding, for column i of the schema:
//   c<i>.bin  one compressed block per granule, back to back, encoded by the column's codec chain
//             (storage/compression_codec.h; LZ4 in parts from before codecs). A granule's raw bytes are the values as
//             stored in memory (fixed width), or for String: the rows' lengths, then the chars
//             (lengths as LEB128 varints in v4 parts, u32 in older ones: StringSizes);
//             for Nullable(T), T's bytes then the null map (a byte per row, 1 = NULL). Columns of
//             other types have no null map, so parts written before Nullable read unchanged.
//             For Array(T), the granule's rows in the wire form (core/block_codec.h
//             EncodeColumnData): their end offsets (from 0), then the elements' data, the same
//             way recursively; such a granule is decoded whole (arrays are never sparse and keep
//             no bounds). Type byte 0x41 marks an array, so older parts read unchanged.
//   c<i>.mrk  per granule: offset and compressed size of its block in c<i>.bin, raw size, XXH64 of
//             the compressed block, and min/max of the granule's values (when known).
// one `meta` file: format version, row count, column names and types, rows per granule, the
// partition value (v2), the sort key's expressions (v2), per column the codec that wrote it
// (v3; v1 and v2 parts are LZ4) and per column its serialization (v4; older parts are all
// Default): a Sparse column's granules hold only its non-default values and their rows
// (storage/sparse_serialization.h), its marks' raw sizes are those of the sparse granules, and
// its bounds are still those of every row; and, when the table has a sort key,
// `primary.idx`: the sparse primary index — the key's values at the first row of every granule
// and at the part's last row. Rows of a part are sorted by the key.
// Column files are named by index, so any column name is safe. .mrk, meta and primary.idx end
// with an XXH64 of their contents (storage/coding.h); block checksums are verified on every read.
//
// That is a Wide part. A Compact part (meta v6, part type kCompact; ClickHouse's name) has the
// same meta and primary.idx, but instead of the column files:
//   data.bin  every column's blocks, column after column in schema order (column-major
//             sections): column i's blocks, back to back, start where column i - 1's end;
//   data.mrk  every column's marks in one sealed file (EncodeCompactMarks), their offsets into
//             data.bin.
// Column-major sections keep one column's granule range one contiguous pread, as in a wide part,
// so the reader, its cache keys and its checksums are the same for both kinds: only the file a
// mark points into differs. (ClickHouse interleaves columns per granule, which suits reading
// whole rows; granite's scans read a column at a time.) A compact part is written whole in
// memory-sized pieces only (an insert or a merge below the wide thresholds), so its sections are
// never appended to. It exists to make small inserts cheap: 4 files per part instead of
// 2 x columns + 2 (ext4 inode allocation dominated small inserts into wide tables).
// PartWriter writes a part compact when its uncompressed bytes are below the table's
// `min_bytes_for_wide_part` or its rows below `min_rows_for_wide_part` (ClickHouse's rule), so
// merges turn compact parts into wide ones as data grows. Older parts (meta v1 to v5) are wide.
//
// Part names are <partition id>_<min_block>_<max_block>_<level>; the partition id is "all" for a
// table without PARTITION BY, else derived from the partition value (PartitionId). The block
// numbers are allocated per table, monotonically; a merged part spans its sources' blocks and has
// a higher level. Directories being written start with "tmp_".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/column.h"
#include "core/value.h"
#include "storage/sparse_serialization.h"
#include "storage/table_schema.h"

namespace granite::storage {

// Identifies a part by its partition, block range and merge level.
struct PartName {
  uint64_t min_block = 0;
  uint64_t max_block = 0;
  uint32_t level = 0;
  std::string partition_id = "all";  // [A-Za-z0-9-]+

  // Returns "<partition_id>_<min>_<max>_<level>".
  std::string ToString() const;
  // Parses ToString()'s output; nullopt for any other name (leftovers, foreign entries).
  static std::optional<PartName> Parse(std::string_view name);
  // True when this part's block range contains `other`'s (same partition) and it is a different
  // part: `other` was merged into this one.
  bool Covers(const PartName& other) const;

  bool operator==(const PartName&) const = default;
};

// The value of the table's PARTITION BY expression shared by all rows of a part.
struct PartitionValue {
  bool present = false;  // false: the table has no PARTITION BY
  core::TypeId type = core::TypeId::kUInt8;
  core::Value value;     // GranuleBounds form

  bool operator==(const PartitionValue&) const = default;
};

// Returns the partition id of a value: "all" when absent; decimal for integers and DateTime;
// YYYYMMDD for Date; 16 hex digits of a hash for floats and strings.
std::string PartitionId(const PartitionValue& partition);

// The sparse primary index of a part: values[k][g] is key expression k at the first row of
// granule g; values[k][granule_count] is its value at the last row.
struct PrimaryIndex {
  std::vector<core::TypeId> types;                // one per key expression
  std::vector<std::vector<core::Value>> values;   // [key][granule_count + 1]
};

inline constexpr char kPrimaryIndexFileName[] = "primary.idx";
std::string EncodePrimaryIndex(const PrimaryIndex& index);
absl::StatusOr<PrimaryIndex> DecodePrimaryIndex(std::string_view bytes, std::string_view what);

// Prefix of the directory a part is written in before it is renamed into place.
inline constexpr char kInsertTmpPrefix[] = "tmp_insert_";
inline constexpr char kMergeTmpPrefix[] = "tmp_merge_";
inline constexpr char kPreparedPrefix[] = "tmp_prepared_";  // a prepared insert's staging dir
inline constexpr char kCommittingPrefix[] = "committing_";  // a decided multi-part commit
inline constexpr char kMetaFileName[] = "meta";

std::string DataFileName(size_t column_index);   // "c<i>.bin"
std::string MarksFileName(size_t column_index);  // "c<i>.mrk"
inline constexpr char kCompactDataFileName[] = "data.bin";
inline constexpr char kCompactMarksFileName[] = "data.mrk";

// How a part stores its columns (ClickHouse's system.parts.part_type).
enum class PartType : uint8_t { kWide = 0, kCompact = 1 };
// Returns "Wide" or "Compact".
const char* PartTypeName(PartType type);

// Locates the compressed block of one granule in a column's .bin file.
struct GranuleMark {
  uint64_t offset = 0;
  uint32_t compressed_size = 0;
  uint32_t raw_size = 0;
  uint64_t checksum = 0;  // XXH64 of the compressed block
};

// Min and max of one granule's values: int64_t for signed integers, decimals and DateTime64
// ticks, uint64_t for unsigned integers, Bool, Date and DateTime, double for floats, std::string
// for String and FixedString. Absent when unknown (a float granule holding NaN, a String granule
// whose bounds are longer than kMaxStringBoundBytes, every UUID granule). Primary index values
// take the same forms, a UUID's being its 16 bytes as a std::string.
struct GranuleBounds {
  bool present = false;
  core::Value min;
  core::Value max;
};
inline constexpr size_t kMaxStringBoundBytes = 256;

// Contents of one .mrk file.
struct ColumnMarks {
  std::vector<GranuleMark> marks;
  std::vector<GranuleBounds> bounds;  // same length as marks
};

// How a dense String-layout granule stores its rows' lengths before the chars: u32 each (parts
// before v4), or LEB128 varints (v4: most lengths take one byte, which makes ZSTD's output 4%
// smaller on a mix of URL-like and short strings and up to 27% on short ones alone;
// bench/results/sparse-storage-2026-11-29.md).
enum class StringSizes : uint8_t { kU32, kVarint };

// Contents of the meta file.
struct PartMeta {
  uint64_t rows = 0;
  std::vector<ColumnSchema> columns;
  std::vector<uint32_t> granule_rows;
  PartitionValue partition;          // v2; absent in v1 files
  std::vector<std::string> sort_key;  // v2: the key expressions rows are sorted by
  // v3: per column, the codec chain that wrote its blocks (core::CodecSpec::ToString()); empty in
  // v1 and v2 parts, whose blocks are LZ4.
  std::vector<std::string> codecs;
  // v4: per column, how its granules are laid out; empty in older parts (all kDefault).
  std::vector<ColumnSerialization> serializations;
  // How String granules store lengths: kVarint in v4 parts (EncodePartMeta writes v4), kU32 before.
  StringSizes string_sizes = StringSizes::kVarint;
  // v5: per column, the dictionary of a kDictionary column (its distinct values, in code order;
  // storage/dictionary_serialization.h), an empty entry for other columns; empty when no column
  // is kDictionary (such parts are written as v4).
  std::vector<std::vector<std::string>> dictionaries;
  // v6: kCompact for a compact part (EncodePartMeta writes v6 for those only, so wide parts stay
  // v4 / v5 byte for byte); older parts are all kWide.
  PartType type = PartType::kWide;
};

std::string EncodePartMeta(const PartMeta& meta);
// Fails with CORRUPTED_DATA naming `what` (e.g. "part all_1_1_0 of table hits").
absl::StatusOr<PartMeta> DecodePartMeta(std::string_view bytes, std::string_view what);

std::string EncodeColumnMarks(const ColumnMarks& marks, core::TypeId type);
absl::StatusOr<ColumnMarks> DecodeColumnMarks(std::string_view bytes, core::TypeId type,
                                              std::string_view what);
// The data.mrk of a compact part: every column's marks, in schema order (`types`, one per column).
std::string EncodeCompactMarks(const std::vector<ColumnMarks>& columns,
                               const std::vector<core::TypeId>& types);
// Fails with CORRUPTED_DATA when the file does not hold exactly types.size() columns' marks.
absl::StatusOr<std::vector<ColumnMarks>> DecodeCompactMarks(std::string_view bytes,
                                                            const std::vector<core::TypeId>& types,
                                                            std::string_view what);

// Returns the raw (uncompressed) bytes of rows [begin, end) of `column`: a view of the column's own
// buffer for fixed-width types, or the String layout built in `*scratch`. With `null_map` (a
// Nullable column of the schema) the rows' null map follows, one byte per row (zeros when the
// column has none).
std::string_view EncodeGranule(const core::Column& column, size_t begin, size_t end,
                               std::string* scratch, bool null_map = false,
                               StringSizes sizes = StringSizes::kVarint);

// Appends `rows` rows decoded from a raw granule to `out`. REQUIRES: out->type() is String.
// Returns false if `raw` is malformed.
bool AppendStringGranule(std::string_view raw, size_t rows, core::Column* out,
                         StringSizes sizes = StringSizes::kVarint);

// Appends `rows` rows decoded from a raw Array granule to `out`. REQUIRES: out->type() is an
// array. Returns false if `raw` is malformed.
bool AppendArrayGranule(std::string_view raw, size_t rows, core::Column* out);

// Writes the lengths of the `rows` rows of a raw String granule (or of a prefix of it holding at
// least their lengths) to `lengths` and returns the bytes they take, or -1 when the prefix is
// too short.
int64_t DecodeStringSizes(std::string_view raw, size_t rows, StringSizes sizes,
                          uint64_t* lengths);

// Returns the bounds of rows [begin, end) of `column`. REQUIRES: begin < end.
GranuleBounds ComputeBounds(const core::Column& column, size_t begin, size_t end);

}  // namespace granite::storage
