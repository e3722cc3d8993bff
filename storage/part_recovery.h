// Start-up recovery of one table's parts directory: what Table::Open finds after a clean stop or
// a crash at any point of an insert, a merge or a commit, turned back into a consistent set.
//   1. parts/committing_<token>/  a decided multi-part commit: its parts are moved into parts/.
//   2. parts/tmp_*                unfinished writes, prepared inserts and merges: deleted.
//   3. entries that are not part names: deleted.
//   4. parts that fail to load (missing or damaged meta, marks or index): moved to
//      <table>/detached/broken_<name> for inspection, never loaded. When an ALTER reopens a live
//      table, the earlier instance's outdated parts are skipped (it deletes them itself, maybe
//      during this scan); any other part whose directory disappears during the scan is skipped
//      too.
//   5. parts covered by another part of the same partition (sources of a merge whose result was
//      made durable before the crash, but which were not deleted yet): deleted.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/file_system.h"
#include "storage/part.h"
#include "storage/table_schema.h"

namespace granite::storage {

struct RecoveredParts {
  std::vector<std::shared_ptr<const Part>> parts;  // active parts, any order
  uint64_t max_block = 0;                          // largest block number of any part kept
  // Parts moved to detached/: name and why it failed to load.
  std::vector<std::pair<std::string, std::string>> detached;
};

inline constexpr char kDetachedDirName[] = "detached";
inline constexpr char kBrokenPrefix[] = "broken_";

// Recovers the parts of the table in `table_dir` (holding parts/). Entries named in `skip` are
// left alone (neither loaded nor removed): the outdated parts an earlier, still open instance of
// the table deletes itself once its last reader lets go (Store::AlterTableSchema reopens a live
// table).
// Errors: CANNOT_READ_FROM_FILE / CANNOT_WRITE_TO_FILE on I/O errors (data is never deleted
// because of an I/O error).
absl::StatusOr<RecoveredParts> RecoverParts(const std::shared_ptr<FileSystem>& fs,
                                            const std::shared_ptr<const TableSchema>& schema,
                                            const std::string& table_dir,
                                            const std::set<std::string>& skip = {});

// Moves part directory `part_dir` to <table_dir>/detached/broken_<name> (replacing an older one).
absl::Status DetachPartDirectory(FileSystem& fs, const std::string& table_dir,
                                 const std::string& part_dir, const std::string& name);

}  // namespace granite::storage
