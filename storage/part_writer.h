// PartWriter: turns one block of rows into one new durable part (format in
// storage/part_format.h). This is the only place part files are created, so it owns the first half
// of the durability protocol:
//   1. create a directory that Table::Open never loads (its name starts with "tmp_") and write
//      every column's .bin and .mrk (a wide part) or data.bin and data.mrk (a compact part: fewer
//      bytes or rows than the table's min_bytes_for_wide_part / min_rows_for_wide_part) and the
//      meta file into it;
//   2. fsync every file, then the directory.
// The second half — rename to the final name, fsync of <parts> — is done by Write() for parts
// written in one go (merges), or later by Table::CommitInsert for the parts of a prepared insert.
// A failure removes what was written and returns the error, so a part directory that does not
// start with "tmp_" is always complete; a crash leaves at most a tmp_ directory, which
// Table::Open deletes.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "storage/file_system.h"
#include "storage/part.h"
#include "storage/table_schema.h"

namespace granite::storage {

// What a new part holds besides its rows.
struct PartDescription {
  PartitionValue partition;                  // the rows' partition (absent: no PARTITION BY)
  std::vector<std::string> sort_key;         // the expressions the rows are sorted by
  std::vector<core::ColumnPtr> key_columns;  // their values for every row, same order
};

// Writes parts of one table.
// Thread-safety: Write() may run concurrently for different part names.
class PartWriter {
 public:
  struct Options {
    // Rows per granule (a granule also ends early at max_granule_bytes, see below).
    size_t granule_rows = kDefaultGranuleRows;
    // Largest raw size of one column's granule; keeps each LZ4 block well below LZ4's 2 GiB limit
    // when strings are long. A single value larger than this gets a granule of its own.
    size_t max_granule_bytes = size_t{256} << 20;
    // How String granules store lengths. kU32 writes them as parts before meta v4 did, for tests
    // that then rewrite the meta in an older version (the meta written here says kVarint).
    StringSizes string_sizes = StringSizes::kVarint;
    // Writes every part as this kind instead of choosing by the table's settings (tests).
    std::optional<PartType> part_type;
  };

  PartWriter(std::shared_ptr<FileSystem> fs, std::shared_ptr<const TableSchema> schema,
             std::string parts_dir, Options options);

  // Steps 1 and 2: writes `block` into the new directory `dir` (which must not exist) and makes
  // it durable. On error removes `dir`.
  // REQUIRES: block.rows() > 0 and its columns match the schema (count, order, types, lengths).
  // Errors: CANNOT_WRITE_TO_FILE (I/O), ARGUMENT_OUT_OF_BOUND (a value too large for a block).
  // `description` gives the partition and, when the rows are sorted, the key (for primary.idx).
  absl::StatusOr<PartContents> WriteDirectory(const core::Block& block,
                                              const PartDescription& description,
                                              const std::string& dir) const;

  // Writes `block` as part `name` in one go: WriteDirectory into <parts>/<tmp_prefix><name>,
  // then rename to <parts>/<name> and fsync <parts>. Returns the part, loaded.
  // REQUIRES: as WriteDirectory, and no part `name` exists.
  absl::StatusOr<std::shared_ptr<const Part>> Write(const core::Block& block,
                                                    const PartDescription& description,
                                                    PartName name,
                                                    std::string_view tmp_prefix) const;

 private:
  std::vector<uint32_t> SplitIntoGranules(const core::Block& block) const;
  // A kDictionary column's distinct values and its rows' codes (dictionary_serialization.h).
  struct DictionaryEncoding {
    std::vector<std::string> values;
    std::vector<uint32_t> codes;
  };
  // Appends the blocks of one column to `file`, the first at *offset, which it advances past
  // the last; fills *marks. `dictionary` is used by a kDictionary column only.
  absl::Status WriteColumn(WritableFile* file, size_t index, const core::Column& column,
                           const std::vector<uint32_t>& granule_rows,
                           const CompressionCodec& codec, ColumnSerialization serialization,
                           const DictionaryEncoding& dictionary, ColumnMarks* marks,
                           uint64_t* offset) const;
  // Returns the kind of part `block` becomes (Options::part_type, else the table's settings).
  PartType ChoosePartType(const core::Block& block) const;
  // WriteDirectory without the cleanup.
  absl::StatusOr<PartContents> WriteFiles(const core::Block& block,
                                          const PartDescription& description,
                                          const std::string& dir) const;

  // Constant after construction.
  std::shared_ptr<FileSystem> fs_;
  std::shared_ptr<const TableSchema> schema_;
  std::string parts_dir_;
  Options options_;
};

}  // namespace granite::storage
