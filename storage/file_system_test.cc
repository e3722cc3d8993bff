#include "storage/file_system.h"

#include <filesystem>
#include <string>
#include <thread>
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

// Two removers of one tree (a part directory removed by two cleanups): the one whose walk
// finds entries already gone still succeeds, since the tree is gone afterwards.
TEST(FileSystemTest, ConcurrentRemoveAllOfOneTreeBothSucceed) {
  TempDirectory dir;
  const std::shared_ptr<FileSystem> fs = Posix();
  for (int round = 0; round < 20; ++round) {
    const std::string tree = JoinPath(dir.path(), "tree" + std::to_string(round));
    for (int d = 0; d < 50; ++d) {
      const std::string sub = JoinPath(tree, "d" + std::to_string(d));
      ASSERT_TRUE(fs->CreateDirs(sub).ok());
      WriteFiles(*fs, sub, 4);
    }
    absl::Status first, second;
    std::thread other([&] { second = fs->RemoveAll(tree); });
    first = fs->RemoveAll(tree);
    other.join();
    EXPECT_TRUE(first.ok()) << first;
    EXPECT_TRUE(second.ok()) << second;
    EXPECT_FALSE(std::filesystem::exists(tree));
  }
}

}  // namespace
}  // namespace granite::storage
