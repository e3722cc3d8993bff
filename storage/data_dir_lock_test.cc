#include "storage/data_dir_lock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using ::testing::HasSubstr;

// Issue 19: a second `granite local` or `granite worker` on the same data directory started and
// wrote the same parts as the first.
TEST(DataDirLockTest, SecondLockOnTheSameDirectoryFailsNamingTheDirectoryAndHolder) {
  TempDirectory tmp;
  std::string dir = tmp.path() + "/data";
  absl::StatusOr<DataDirLock> first = DataDirLock::Acquire(dir, "granite worker");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(std::filesystem::is_directory(dir));
  EXPECT_EQ(ReadLockHolder(first->path()), getpid());

  absl::StatusOr<DataDirLock> second = DataDirLock::Acquire(dir, "granite local");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), HasSubstr("granite local: data directory " + dir +
                                                   " is in use by another granite process (PID " +
                                                   std::to_string(getpid())));
  EXPECT_THAT(second.status().message(), HasSubstr(first->path()));
}

TEST(DataDirLockTest, ReleasedWhenTheHolderGoesAway) {
  TempDirectory tmp;
  {
    absl::StatusOr<DataDirLock> first = DataDirLock::Acquire(tmp.path(), "test");
    ASSERT_TRUE(first.ok());
    DataDirLock moved = *std::move(first);  // the moved-from object releases nothing
    EXPECT_FALSE(DataDirLock::Acquire(tmp.path(), "test").ok());
  }
  EXPECT_TRUE(DataDirLock::Acquire(tmp.path(), "test").ok());
}

TEST(DataDirLockTest, ReleasedWhenTheHoldingProcessIsKilled) {
  TempDirectory tmp;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    absl::StatusOr<DataDirLock> held = DataDirLock::Acquire(tmp.path(), "child");
    char c = held.ok() ? '1' : '0';
    (void)!write(ready[1], &c, 1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  char c = 0;
  ssize_t got = read(ready[0], &c, 1);
  close(ready[0]);
  if (got != 1) c = 0;
  absl::StatusOr<DataDirLock> blocked = DataDirLock::Acquire(tmp.path(), "parent");
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_EQ(c, '1');
  ASSERT_FALSE(blocked.ok());
  EXPECT_THAT(blocked.status().message(), HasSubstr("PID " + std::to_string(child)));
  EXPECT_TRUE(DataDirLock::Acquire(tmp.path(), "parent").ok());
}

}  // namespace
}  // namespace granite::storage
