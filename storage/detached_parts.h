// Detached parts: the directories under <table>/detached/ — parts taken out of a table because
// their data is damaged (broken_<part>, storage/part_recovery.h and Table::DetachBrokenPart) or
// put there by hand. They are never read by queries; system.detached_parts lists them, ALTER TABLE
// ... ATTACH PART brings one back after verifying it, DROP DETACHED PART deletes one.
// A directory name is "[<reason>_]<partition>_<min>_<max>_<level>" (ClickHouse's form): the reason
// is what precedes the part name, e.g. "broken".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/file_system.h"
#include "storage/part.h"
#include "storage/part_format.h"

namespace granite::storage {

struct DetachedPart {
  std::string name;    // the directory name
  std::string reason;  // "broken", or "" for a plain part name
  std::optional<PartName> part;  // nullopt when the name holds no part name
  uint64_t bytes_on_disk = 0;
  std::string path;
};

// Splits detached directory name `name` into its reason and part name.
DetachedPart ParseDetachedName(std::string_view name);

// Returns the detached parts of the table in `table_dir`, sorted by name (none when there is no
// detached/ directory). Errors: I/O errors listing the directory.
absl::StatusOr<std::vector<DetachedPart>> ListDetachedParts(FileSystem& fs,
                                                            const std::string& table_dir);

// Checks that `name` can name a directory inside detached/ (not empty, no '/', not "." or "..").
// Errors: INCORRECT_FILE_NAME naming it.
absl::Status ValidateDetachedName(std::string_view name);

// Logs to stderr that part `part` of table `table` was moved to detached/<dir>, and why, and
// counts it (event PartsDetached: system.events, granite_detached_parts_total).
void ReportDetachedPart(const std::string& table, const std::string& part, const std::string& dir,
                        const std::string& reason);

// Reads every granule of every column of `part`, bypassing the uncompressed cache, so that every
// compressed block's checksum is verified. Returns the first error (CHECKSUM_DOESNT_MATCH,
// CORRUPTED_DATA or CANNOT_READ_FROM_FILE naming part, column and granule).
absl::Status VerifyPartData(const Part& part);

}  // namespace granite::storage
