#include "storage/detached_parts.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/metrics/events.h"
#include "core/status_macros.h"
#include "storage/part_recovery.h"

namespace granite::storage {

using core::Error;
using core::ErrorCode;

DetachedPart ParseDetachedName(std::string_view name) {
  DetachedPart out;
  out.name = std::string(name);
  // A partition id has no '_', so the part name is the last four fields.
  std::vector<std::string> fields = absl::StrSplit(core::ToAbsl(name), '_');
  if (fields.size() < 4) return out;
  std::string part = absl::StrJoin(fields.end() - 4, fields.end(), "_");
  out.part = PartName::Parse(part);
  if (out.part) {
    out.reason = std::string(name.substr(0, name.size() - part.size()));
    if (!out.reason.empty()) out.reason.pop_back();  // the '_' before the part name
  }
  return out;
}

absl::StatusOr<std::vector<DetachedPart>> ListDetachedParts(FileSystem& fs,
                                                            const std::string& table_dir) {
  std::vector<DetachedPart> out;
  ASSIGN_OR_RETURN(std::vector<std::string> entries, fs.ListDir(table_dir));
  if (std::find(entries.begin(), entries.end(), kDetachedDirName) == entries.end()) return out;
  std::string detached = JoinPath(table_dir, kDetachedDirName);
  ASSIGN_OR_RETURN(std::vector<std::string> names, fs.ListDir(detached));
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    DetachedPart part = ParseDetachedName(name);
    part.path = JoinPath(detached, name);
    absl::StatusOr<std::vector<std::string>> files = fs.ListDir(part.path);
    if (files.ok()) {
      for (const std::string& file : *files) {
        absl::StatusOr<uint64_t> size = fs.FileSize(JoinPath(part.path, file));
        if (size.ok()) part.bytes_on_disk += *size;
      }
    }
    out.push_back(std::move(part));
  }
  return out;
}

absl::Status ValidateDetachedName(std::string_view name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos ||
      name.find('\0') != std::string_view::npos) {
    return Error(ErrorCode::kIncorrectFileName,
                 absl::StrCat("Invalid detached part name \"", core::ToAbsl(name),
                              "\": it must be a directory name inside detached/"));
  }
  return absl::OkStatus();
}

void ReportDetachedPart(const std::string& table, const std::string& part, const std::string& dir,
                        const std::string& reason) {
  core::CountEvent(core::Event::kPartsDetached);
  std::fprintf(stderr,
               "granite worker: table %s: part %s moved to detached/%s and no longer read "
               "(system.detached_parts lists it): %s\n",
               table.c_str(), part.c_str(), dir.c_str(), reason.c_str());
}

absl::Status VerifyPartData(const Part& part) {
  constexpr size_t kGranulesPerRead = 64;  // bounds the memory of one read
  for (size_t column = 0; column < part.column_count(); ++column) {
    ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file, part.OpenColumn(column));
    for (size_t g = 0; g < part.granule_count(); g += kGranulesPerRead) {
      size_t end = std::min(part.granule_count(), g + kGranulesPerRead);
      RETURN_IF_ERROR(part.ReadColumn(column, g, end, file.get(), /*cache=*/nullptr).status());
    }
  }
  return absl::OkStatus();
}

}  // namespace granite::storage
