#include "core/thread_priority.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "core/error.h"

namespace granite::core {
namespace {

int ThreadNice() { return getpriority(PRIO_PROCESS, static_cast<pid_t>(syscall(SYS_gettid))); }

TEST(ThreadPriorityTest, LowerThreadPriorityChangesOnlyTheCallingThread) {
  int main_before = ThreadNice();
  int raised = 0;
  int expected = 0;
  std::thread([&] {
    int before = ThreadNice();
    expected = std::min(19, before + 5) - before;
    ASSERT_TRUE(LowerThreadPriority(5).ok());
    raised = ThreadNice() - before;
  }).join();
  EXPECT_EQ(raised, expected);
  EXPECT_EQ(ThreadNice(), main_before);
}

TEST(ThreadPriorityTest, RejectsOutOfRangeDelta) {
  EXPECT_EQ(CodeOf(LowerThreadPriority(-1)), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(LowerThreadPriority(20)), ErrorCode::kBadArguments);
  EXPECT_TRUE(LowerThreadPriority(0).ok());
}

TEST(ThreadPriorityTest, ScopedNiceRestoresWhereAllowed) {
  std::thread([] {
    int before = ThreadNice();
    {
      ScopedThreadNice nice(3);
      EXPECT_EQ(nice.active(), CanRestoreThreadPriority());
      if (nice.active()) EXPECT_EQ(ThreadNice(), std::min(19, before + 3));
      if (!nice.active()) EXPECT_EQ(ThreadNice(), before);
    }
    EXPECT_EQ(ThreadNice(), before);
  }).join();
}

}  // namespace
}  // namespace granite::core
