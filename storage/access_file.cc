#include "storage/access_file.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "core/mutex.h"
#include "core/status_macros.h"

namespace granite::storage {
namespace {

constexpr char kAccessFile[] = "access.sql";
constexpr char kAccessTempFile[] = "access.sql.tmp";

core::Mutex& AccessFileMutex() {
  static core::Mutex* mu = new core::Mutex("access_file");
  return *mu;
}

}  // namespace

absl::Status WriteAccessFile(FileSystem& fs, const std::string& data_dir, std::string_view text) {
  core::MutexLock lock(AccessFileMutex());
  const std::string temp = JoinPath(data_dir, kAccessTempFile);
  RETURN_IF_ERROR(fs.CreateDirs(data_dir));
  ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, fs.NewWritableFile(temp));
  RETURN_IF_ERROR(file->Append(text));
  RETURN_IF_ERROR(file->Sync());
  RETURN_IF_ERROR(file->Close());
  RETURN_IF_ERROR(fs.Rename(temp, JoinPath(data_dir, kAccessFile)));
  return fs.SyncDir(data_dir);
}

absl::StatusOr<std::string> ReadAccessFile(FileSystem& fs, const std::string& data_dir) {
  core::MutexLock lock(AccessFileMutex());
  ASSIGN_OR_RETURN(std::vector<std::string> names, fs.ListDir(data_dir));
  if (std::find(names.begin(), names.end(), kAccessFile) == names.end()) return std::string();
  return fs.ReadFile(JoinPath(data_dir, kAccessFile));
}

}  // namespace granite::storage
