#include "core/thread_priority.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
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
  EXPECT_EQ(CodeOf(LowerThreadPriority(21)), ErrorCode::kBadArguments);
  EXPECT_TRUE(LowerThreadPriority(0).ok());
  EXPECT_TRUE(ValidateThreadPriorityDelta(kIdleThreadPriority, "--x").ok());
  EXPECT_TRUE(ValidateThreadPriorityDelta(kAutoThreadPriority, "--x").ok());
  EXPECT_EQ(CodeOf(ValidateThreadPriorityDelta(-2, "--x")), ErrorCode::kBadArguments);
  absl::Status bad = ValidateThreadPriorityDelta(-3, "--query_thread_nice");
  EXPECT_EQ(CodeOf(bad), ErrorCode::kBadArguments);
  EXPECT_NE(bad.message().find("--query_thread_nice"), std::string::npos);
  EXPECT_NE(bad.message().find("-3"), std::string::npos);
}

int ThreadPolicy() { return sched_getscheduler(static_cast<pid_t>(syscall(SYS_gettid))); }

TEST(ThreadPriorityTest, IdleDeltaSwitchesToSchedIdle) {
  int main_policy = ThreadPolicy();
  int policy = -1;
  std::thread([&] {
    ASSERT_TRUE(LowerThreadPriority(kIdleThreadPriority).ok());
    policy = ThreadPolicy();
  }).join();
  EXPECT_EQ(policy, SCHED_IDLE);
  EXPECT_EQ(ThreadPolicy(), main_policy);
}

TEST(ThreadPriorityTest, ScopedIdleRestoresPolicyAndNice) {
  std::thread([] {
    int before_policy = ThreadPolicy();
    int before_nice = ThreadNice();
    {
      ScopedThreadNice idle(kIdleThreadPriority);
      EXPECT_EQ(idle.active(), CanRestoreThreadPriority());
      EXPECT_EQ(ThreadPolicy(), idle.active() ? SCHED_IDLE : before_policy);
    }
    EXPECT_EQ(ThreadPolicy(), before_policy);
    EXPECT_EQ(ThreadNice(), before_nice);
  }).join();
}

TEST(ThreadPriorityTest, ScopedNiceRestoresWhereAllowed) {
  std::thread([] {
    int before = ThreadNice();
    {
      ScopedThreadNice nice(3);
      EXPECT_EQ(nice.active(), CanRestoreThreadPriority());
      EXPECT_EQ(ThreadNice(), nice.active() ? std::min(19, before + 3) : before);
    }
    EXPECT_EQ(ThreadNice(), before);
  }).join();
}

// A query lowered as a whole (coordinator: ClickHouseService) passes through inner scopes (the
// executor's) that must neither lower it further nor restore it early.
TEST(ThreadPriorityTest, NestedScopeKeepsTheOuterPriority) {
  if (!CanRestoreThreadPriority()) GTEST_SKIP() << "cannot restore thread priority here";
  std::thread([] {
    int before_policy = ThreadPolicy();
    {
      ScopedThreadNice outer(kIdleThreadPriority);
      ASSERT_TRUE(outer.active());
      EXPECT_EQ(LoweredThreadPriority(), kIdleThreadPriority);
      {
        ScopedThreadNice inner(kIdleThreadPriority);
        EXPECT_FALSE(inner.active());
      }
      EXPECT_EQ(ThreadPolicy(), SCHED_IDLE);  // still lowered after the inner scope
    }
    EXPECT_EQ(ThreadPolicy(), before_policy);
    EXPECT_EQ(LoweredThreadPriority(), 0);
    int before = ThreadNice();
    {
      ScopedThreadNice outer(5);
      ScopedThreadNice inner(5);
      EXPECT_FALSE(inner.active());
      EXPECT_EQ(ThreadNice(), std::min(19, before + 5));
    }
    EXPECT_EQ(ThreadNice(), before);
    ScopedThreadNice again(2);  // the scopes above ended: a new one applies
    EXPECT_TRUE(again.active());
  }).join();
}

// A lowered SELECT thread calls into gRPC at its normal priority and is lowered again afterwards;
// a thread no scope lowered is left alone.
TEST(ThreadPriorityTest, NormalPriorityScopeUndoesTheLoweringForItsLifetime) {
  std::thread([] {
    int before_policy = ThreadPolicy();
    int before_nice = ThreadNice();
    {
      ScopedNormalPriority not_lowered;
      EXPECT_EQ(ThreadPolicy(), before_policy);
      EXPECT_EQ(ThreadNice(), before_nice);
    }
    {
      ScopedThreadNice idle(kIdleThreadPriority);
      int lowered_policy = idle.active() ? SCHED_IDLE : before_policy;
      EXPECT_EQ(ThreadPolicy(), lowered_policy);
      {
        ScopedNormalPriority grpc_call;
        EXPECT_EQ(ThreadPolicy(), before_policy);
        EXPECT_EQ(ThreadNice(), before_nice);
        EXPECT_EQ(LoweredThreadPriority(), 0);
        ScopedThreadNice reader(kIdleThreadPriority);  // work handed on from here is lowered
        EXPECT_EQ(ThreadPolicy(), lowered_policy);
      }
      EXPECT_EQ(ThreadPolicy(), lowered_policy);
      EXPECT_EQ(LoweredThreadPriority(), idle.active() ? kIdleThreadPriority : 0);
    }
    EXPECT_EQ(ThreadPolicy(), before_policy);
    {
      ScopedThreadNice nice(4);
      int lowered_nice = nice.active() ? std::min(19, before_nice + 4) : before_nice;
      {
        ScopedNormalPriority grpc_call;
        EXPECT_EQ(ThreadNice(), before_nice);
      }
      EXPECT_EQ(ThreadNice(), lowered_nice);
    }
    EXPECT_EQ(ThreadNice(), before_nice);
    EXPECT_EQ(LoweredThreadPriority(), 0);
  }).join();
}

// The automatic priority: heavy work at SCHED_IDLE within kSmallWriteWindow of a small write,
// normal otherwise; fixed values stay what they are.
TEST(ThreadPriorityTest, AutomaticPriorityFollowsSmallWrites) {
  EXPECT_EQ(HeavyWorkPriority(0), 0);
  EXPECT_EQ(HeavyWorkPriority(7), 7);
  // Wait out a write marked by an earlier test of this process.
  while (RecentSmallWrites()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(HeavyWorkPriority(kAutoThreadPriority), 0);
  MarkSmallWrite();
  EXPECT_TRUE(RecentSmallWrites());
  EXPECT_EQ(HeavyWorkPriority(kAutoThreadPriority), kAutoIdleThreadPriority);
  EXPECT_EQ(HeavyWorkPriority(7), 7);
  std::this_thread::sleep_for(kSmallWriteWindow + std::chrono::milliseconds(50));
  EXPECT_FALSE(RecentSmallWrites());
  EXPECT_EQ(HeavyWorkPriority(kAutoThreadPriority), 0);
}

// Work lowered by the automatic priority (SCHED_IDLE while small writes arrive) returns to normal
// once they stop: a scope's thread at RelaxAutomaticPriority, a pool thread at its next task
// (AdoptThreadPriority); SCHED_IDLE chosen explicitly stays. A query started during a burst of
// INSERTs used to keep SCHED_IDLE to its end and starve beside any busy process.
TEST(ThreadPriorityTest, AutomaticIdleEndsWhenSmallWritesStop) {
  if (!CanRestoreThreadPriority()) GTEST_SKIP() << "cannot restore thread priority here";
  std::thread([] {
    const int before_policy = ThreadPolicy();
    MarkSmallWrite();
    {
      ScopedThreadNice scope(HeavyWorkPriority(kAutoThreadPriority));
      EXPECT_EQ(ThreadPolicy(), SCHED_IDLE);
      RelaxAutomaticPriority();  // writes still recent: stays
      EXPECT_EQ(ThreadPolicy(), SCHED_IDLE);
      std::this_thread::sleep_for(kSmallWriteWindow + std::chrono::milliseconds(50));
      RelaxAutomaticPriority();
      EXPECT_EQ(ThreadPolicy(), before_policy);
      EXPECT_EQ(LoweredThreadPriority(), 0);
    }
    EXPECT_EQ(ThreadPolicy(), before_policy);
    // A pool thread adopting a task lowered automatically: normal once writes stopped.
    AdoptThreadPriority(kAutoIdleThreadPriority);
    EXPECT_EQ(ThreadPolicy(), before_policy);
    MarkSmallWrite();
    AdoptThreadPriority(kAutoIdleThreadPriority);
    EXPECT_EQ(ThreadPolicy(), SCHED_IDLE);
    std::this_thread::sleep_for(kSmallWriteWindow + std::chrono::milliseconds(50));
    RelaxAutomaticPriority();
    EXPECT_EQ(ThreadPolicy(), before_policy);
    // Chosen explicitly, SCHED_IDLE is kept.
    AdoptThreadPriority(kIdleThreadPriority);
    RelaxAutomaticPriority();
    EXPECT_EQ(ThreadPolicy(), SCHED_IDLE);
    AdoptThreadPriority(0);
    EXPECT_EQ(ThreadPolicy(), before_policy);
  }).join();
}

// AdoptThreadPriority switches a thread between priorities and back, but leaves a thread lowered
// for good and one inside a ScopedThreadNice alone.
TEST(ThreadPriorityTest, AdoptSwitchesUnlessLoweredOtherwise) {
  if (!CanRestoreThreadPriority()) GTEST_SKIP() << "cannot restore thread priority here";
  std::thread([] {
    int before_policy = ThreadPolicy();
    int before_nice = ThreadNice();
    AdoptThreadPriority(kIdleThreadPriority);
    EXPECT_EQ(ThreadPolicy(), SCHED_IDLE);
    EXPECT_EQ(LoweredThreadPriority(), kIdleThreadPriority);
    AdoptThreadPriority(4);
    EXPECT_EQ(ThreadPolicy(), before_policy);
    EXPECT_EQ(ThreadNice(), std::min(19, before_nice + 4));
    EXPECT_EQ(LoweredThreadPriority(), 4);
    AdoptThreadPriority(0);
    EXPECT_EQ(ThreadNice(), before_nice);
    EXPECT_EQ(LoweredThreadPriority(), 0);
    {
      ScopedThreadNice scope(3);
      AdoptThreadPriority(kIdleThreadPriority);  // inside a scope: left alone
      EXPECT_EQ(ThreadPolicy(), before_policy);
      EXPECT_EQ(LoweredThreadPriority(), 3);
    }
    EXPECT_EQ(ThreadNice(), before_nice);
  }).join();
  std::thread([] {
    ASSERT_TRUE(LowerThreadPriority(kIdleThreadPriority).ok());
    AdoptThreadPriority(0);  // lowered for good: stays
    EXPECT_EQ(ThreadPolicy(), SCHED_IDLE);
  }).join();
}

}  // namespace
}  // namespace granite::core
