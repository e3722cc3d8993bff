// PartWriter: turns one block of rows into one new durable part (format in
// storage/part_format.h). This is the only place parts are created, so it owns the durability
// protocol:
//   1. create <parts>/tmp_insert_<name>/ and write every column's .bin and .mrk and the meta file;
//   2. fsync every file, then the temporary directory; rename it to <parts>/<name>, fsync <parts>.
// A failure at any step removes what was written and returns the error, so a part directory that
// does not start with "tmp_" is always complete; a crash leaves at most a tmp_ directory, which
// Table::Open deletes.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "storage/file_system.h"
#include "storage/part.h"
#include "storage/table_schema.h"

namespace granite::storage {

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
  };

  PartWriter(std::shared_ptr<FileSystem> fs, std::shared_ptr<const TableSchema> schema,
             std::string parts_dir, Options options);

  // Writes `block` as part `name` and returns it, loaded. REQUIRES: block.rows() > 0, its columns
  // match the schema (count, order, types, equal lengths) and no part `name` exists.
  // Errors: CANNOT_WRITE_TO_FILE (I/O), ARGUMENT_OUT_OF_BOUND (a value too large for a block).
  absl::StatusOr<std::shared_ptr<const Part>> Write(const core::Block& block, PartName name) const;

 private:
  std::vector<uint32_t> SplitIntoGranules(const core::Block& block) const;
  // Writes c<i>.bin and c<i>.mrk of one column into `dir`; adds the bytes written to *bytes.
  absl::Status WriteColumn(const std::string& dir, size_t index, const core::Column& column,
                           const std::vector<uint32_t>& granule_rows, ColumnMarks* marks,
                           uint64_t* bytes) const;
  // Steps 1 and 2 above; leaves cleanup to Write().
  absl::StatusOr<std::shared_ptr<const Part>> WriteAndPublish(const core::Block& block,
                                                              PartName name,
                                                              const std::string& tmp_dir,
                                                              const std::string& final_dir) const;

  // Constant after construction.
  std::shared_ptr<FileSystem> fs_;
  std::shared_ptr<const TableSchema> schema_;
  std::string parts_dir_;
  Options options_;
};

}  // namespace granite::storage
