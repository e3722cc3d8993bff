#include "storage/part_recovery.h"

#include <algorithm>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::storage {
namespace {

using core::ErrorCode;

// Step 1: moves the parts of every committing_ directory into parts/ and removes it.
absl::Status FinishCommits(FileSystem& fs, const std::string& parts_dir) {
  ASSIGN_OR_RETURN(std::vector<std::string> entries, fs.ListDir(parts_dir));
  bool changed = false;
  for (const std::string& entry : entries) {
    if (!absl::StartsWith(entry, kCommittingPrefix)) continue;
    std::string dir = JoinPath(parts_dir, entry);
    ASSIGN_OR_RETURN(std::vector<std::string> parts, fs.ListDir(dir));
    for (const std::string& part : parts) {
      if (!PartName::Parse(part)) continue;  // not a part: removed with the directory
      RETURN_IF_ERROR(fs.Rename(JoinPath(dir, part), JoinPath(parts_dir, part)));
    }
    RETURN_IF_ERROR(fs.SyncDir(parts_dir));
    RETURN_IF_ERROR(fs.RemoveAll(dir));
    changed = true;
  }
  if (changed) RETURN_IF_ERROR(fs.SyncDir(parts_dir));
  return absl::OkStatus();
}

// Whether `entry` is still in `dir` (a failed listing counts as still there: an I/O error must
// not make a part look gone).
bool StillListed(FileSystem& fs, const std::string& dir, const std::string& entry) {
  absl::StatusOr<std::vector<std::string>> entries = fs.ListDir(dir);
  return !entries.ok() || std::find(entries->begin(), entries->end(), entry) != entries->end();
}

}  // namespace

absl::Status DetachPartDirectory(FileSystem& fs, const std::string& table_dir,
                                 const std::string& part_dir, const std::string& name) {
  std::string detached = JoinPath(table_dir, kDetachedDirName);
  RETURN_IF_ERROR(fs.CreateDirs(detached));
  std::string target = JoinPath(detached, absl::StrCat(kBrokenPrefix, name));
  RETURN_IF_ERROR(fs.RemoveAll(target));
  RETURN_IF_ERROR(fs.Rename(part_dir, target));
  RETURN_IF_ERROR(fs.SyncDir(detached));
  return fs.SyncDir(JoinPath(table_dir, "parts"));
}

absl::StatusOr<RecoveredParts> RecoverParts(const std::shared_ptr<FileSystem>& fs,
                                            const std::shared_ptr<const TableSchema>& schema,
                                            const std::string& table_dir,
                                            const std::set<std::string>& skip) {
  std::string parts_dir = JoinPath(table_dir, "parts");
  RETURN_IF_ERROR(FinishCommits(*fs, parts_dir));
  ASSIGN_OR_RETURN(std::vector<std::string> entries, fs->ListDir(parts_dir));
  RecoveredParts out;
  bool removed = false;
  for (const std::string& entry : entries) {
    if (skip.contains(entry)) continue;
    std::string path = JoinPath(parts_dir, entry);
    std::optional<PartName> name = PartName::Parse(entry);
    if (!name) {  // tmp_* and foreign entries
      RETURN_IF_ERROR(fs->RemoveAll(path));
      removed = true;
      continue;
    }
    absl::StatusOr<std::shared_ptr<const Part>> part = Part::Load(fs, schema, path, *name);
    if (!part.ok() && !StillListed(*fs, parts_dir, entry)) {
      // Removed while this scan ran (an ALTER's reopen skips the earlier instance's outdated
      // parts up front; this catches any other removal): nothing to recover.
      continue;
    }
    if (!part.ok()) {
      // I/O errors must not move or delete data; broken parts are kept aside, never loaded.
      if (core::CodeOf(part.status()) != ErrorCode::kCorruptedData) return part.status();
      RETURN_IF_ERROR(DetachPartDirectory(*fs, table_dir, path, entry));
      out.detached.emplace_back(entry, std::string(part.status().message()));
      continue;
    }
    out.parts.push_back(*std::move(part));
  }

  // Step 5: within a partition, sorted by first block and then by widest range first, a part
  // whose range lies inside a kept part's range was merged into it.
  std::sort(out.parts.begin(), out.parts.end(), [](const auto& a, const auto& b) {
    const PartName& x = a->part_name();
    const PartName& y = b->part_name();
    if (x.partition_id != y.partition_id) return x.partition_id < y.partition_id;
    if (x.min_block != y.min_block) return x.min_block < y.min_block;
    return x.max_block > y.max_block;
  });
  std::vector<std::shared_ptr<const Part>> kept;
  for (auto& part : out.parts) {
    if (!kept.empty() && kept.back()->part_name().Covers(part->part_name())) {
      RETURN_IF_ERROR(fs->RemoveAll(part->directory()));
      removed = true;
      continue;
    }
    out.max_block = std::max(out.max_block, part->part_name().max_block);
    kept.push_back(std::move(part));
  }
  out.parts = std::move(kept);
  if (removed) RETURN_IF_ERROR(fs->SyncDir(parts_dir));
  return out;
}

}  // namespace granite::storage
