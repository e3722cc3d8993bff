// The worker's copy of the coordinator's access entities (GRANTs and quotas made with SQL,
// coordinator/access/grant_store.h): one text file, <data>/access.sql, that the coordinator
// replaces whole (CatalogOp SET_ACCESS) and reads back with ListTables after a restart. The
// worker never interprets it.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "storage/file_system.h"

namespace granite::storage {

// Replaces <data_dir>/access.sql with `text`, durably: written to access.sql.tmp, fsynced, then
// renamed over the old file and the directory synced, so a crash leaves the old or the new text.
// Thread-safety: calls are serialized by a process-wide lock.
absl::Status WriteAccessFile(FileSystem& fs, const std::string& data_dir, std::string_view text);

// Returns the text of <data_dir>/access.sql, or "" if there is none.
absl::StatusOr<std::string> ReadAccessFile(FileSystem& fs, const std::string& data_dir);

}  // namespace granite::storage
