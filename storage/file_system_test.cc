#include "storage/file_system.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "gtest/gtest.h"
#include "storage/fault_injection_file_system.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

// More files than SyncFiles runs at once, so some threads sync several.
std::vector<std::string> WriteFiles(FileSystem& fs, const std::string& dir, int n) {
  std::vector<std::string> paths;
  for (int i = 0; i < n; ++i) {
    paths.push_back(JoinPath(dir, "f" + std::to_string(i)));
    EXPECT_TRUE(WriteFile(fs, paths.back(), std::string(100 + i, 'x')).ok());
  }
  return paths;
}

TEST(FileSystemTest, SyncFilesSyncsEveryFile) {
  TempDirectory dir;
  auto fs = std::make_shared<FaultInjectionFileSystem>(Posix());
  std::vector<std::string> paths = WriteFiles(*fs, dir.path(), 40);
  EXPECT_TRUE(SyncFiles(*fs, paths).ok());
  EXPECT_EQ(fs->Count(FaultOp::kSync), 40);
  EXPECT_TRUE(SyncFiles(*fs, {}).ok());
}

TEST(FileSystemTest, SyncFilesReportsAFailedSyncAfterAllReturned) {
  TempDirectory dir;
  auto fs = std::make_shared<FaultInjectionFileSystem>(Posix());
  std::vector<std::string> paths = WriteFiles(*fs, dir.path(), 40);
  fs->FailNth(FaultOp::kSync, 7);
  absl::Status status = SyncFiles(*fs, paths);
  EXPECT_EQ(core::CodeOf(status), core::ErrorCode::kCannotWriteToFile);
  EXPECT_NE(std::string(status.message()).find("Injected fault"), std::string::npos);
  EXPECT_EQ(fs->Count(FaultOp::kSync), 40);  // the others were still synced
}

}  // namespace
}  // namespace granite::storage
