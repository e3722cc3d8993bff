#include "storage/dir_sync_group.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.h"
#include "storage/forwarding_file_system.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

// Counts SyncDir calls; the first one waits until Release(), and a failing one can be armed.
class GatedFileSystem : public ForwardingFileSystem {
 public:
  GatedFileSystem() : ForwardingFileSystem(Posix()) {}

  absl::Status SyncDir(const std::string& path) override {
    const int n = ++calls_;
    if (n == 1) {
      std::unique_lock<std::mutex> lock(mu_);
      entered_ = true;
      cv_.notify_all();
      cv_.wait(lock, [&] { return released_; });
    }
    if (n == fail_call_) return core::Error(core::ErrorCode::kCannotWriteToFile, "fsync failed");
    return ForwardingFileSystem::SyncDir(path);
  }
  void AwaitFirst() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return entered_; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

  std::atomic<int> calls_{0};
  int fail_call_ = 0;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool entered_ = false;
  bool released_ = false;
};

// Callers that arrive while an fsync of the directory runs are answered by one later fsync,
// never by the one that was already running.
TEST(DirSyncGroupTest, CallersDuringAnFsyncShareTheNextOne) {
  TempDirectory dir;
  auto fs = std::make_shared<GatedFileSystem>();
  DirSyncGroup group(fs);
  std::thread first([&] { EXPECT_TRUE(group.Sync(dir.path()).ok()); });
  fs->AwaitFirst();
  std::atomic<int> returned{0};
  std::vector<std::thread> later;
  for (int i = 0; i < 4; ++i) {
    later.emplace_back([&] {
      EXPECT_TRUE(group.Sync(dir.path()).ok());
      // Answered by an fsync that started after the call: the second one.
      EXPECT_EQ(fs->calls_.load(), 2);
      ++returned;
    });
  }
  while (group.Waiting(dir.path()) < 4) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(returned.load(), 0);  // the running fsync does not answer them
  fs->Release();
  first.join();
  for (std::thread& t : later) t.join();
  EXPECT_EQ(returned.load(), 4);
  EXPECT_EQ(fs->calls_.load(), 2);
  // Alone, a caller runs its own fsync.
  EXPECT_TRUE(group.Sync(dir.path()).ok());
  EXPECT_EQ(fs->calls_.load(), 3);
}

TEST(DirSyncGroupTest, AFailedFsyncFailsItsCallersOnly) {
  TempDirectory dir;
  auto fs = std::make_shared<GatedFileSystem>();
  fs->fail_call_ = 2;
  DirSyncGroup group(fs);
  std::thread first([&] { EXPECT_TRUE(group.Sync(dir.path()).ok()); });
  fs->AwaitFirst();
  std::vector<std::thread> later;
  std::atomic<int> failed{0};
  for (int i = 0; i < 3; ++i) {
    later.emplace_back([&] { failed += !group.Sync(dir.path()).ok(); });
  }
  while (group.Waiting(dir.path()) < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  fs->Release();
  first.join();
  for (std::thread& t : later) t.join();
  EXPECT_EQ(failed.load(), 3);
  EXPECT_TRUE(group.Sync(dir.path()).ok());  // the next round succeeds
}

}  // namespace
}  // namespace granite::storage
