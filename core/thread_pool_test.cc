#include "core/thread_pool.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "core/metrics/events.h"
#include "core/thread_priority.h"
#include "gtest/gtest.h"

namespace granite::core {
namespace {

TEST(ThreadPoolTest, RunsTasksSubmittedFromManyThreads) {
  std::atomic<int> done{0};
  uint64_t tasks_before = EventTotal(Event::kThreadPoolTasks);
  {
    ThreadPool pool(3);
    std::vector<std::thread> submitters;
    for (int t = 0; t < 4; ++t) {
      submitters.emplace_back([&] {
        for (int i = 0; i < 500; ++i) pool.Submit([&] { done++; });
      });
    }
    for (auto& thread : submitters) thread.join();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (done.load() < 2000 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  EXPECT_EQ(done.load(), 2000);
  EXPECT_EQ(EventTotal(Event::kThreadPoolTasks) - tasks_before, 2000u);
}

TEST(ThreadPoolTest, IdleThreadsWakeForLateTasks) {
  ThreadPool pool(2);
  // Let both threads go idle, then submit: each task must still run.
  for (int round = 0; round < 20; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::atomic<bool> ran{false};
    pool.Submit([&] { ran = true; });
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!ran.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    ASSERT_TRUE(ran.load()) << "round " << round;
  }
}

TEST(ThreadPoolTest, DestructionRunsQueuedTasks) {
  std::atomic<int> done{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 1000; ++i) {
      pool.Submit([&] {
        done++;
        std::this_thread::yield();
      });
    }
  }
  EXPECT_EQ(done.load(), 1000);
}

TEST(ThreadPoolTest, BurstsFromManyThreadsAfterIdlePeriodsAllRun) {
  ThreadPool pool(2);
  std::atomic<int> done{0};
  int expected = 0;
  for (int round = 0; round < 30; ++round) {
    std::this_thread::sleep_for(std::chrono::microseconds(300));  // threads go idle
    std::vector<std::thread> submitters;
    for (int t = 0; t < 3; ++t) {
      submitters.emplace_back([&] {
        for (int i = 0; i < 5; ++i) pool.Submit([&] { done++; });
      });
    }
    for (auto& thread : submitters) thread.join();
    expected += 15;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (done.load() < expected && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    ASSERT_EQ(done.load(), expected) << "round " << round;
  }
}

TEST(ThreadPoolTest, NestedParallelForCompletes) {
  ThreadPool pool(2);
  std::atomic<int> sum{0};
  pool.ParallelFor(8, [&](size_t i) {
    pool.ParallelFor(8, [&](size_t j) { sum += static_cast<int>(i * 8 + j); });
  });
  EXPECT_EQ(sum.load(), 63 * 64 / 2);
}

// A task runs at its submitter's priority; a pool lowered for good at its start keeps its own.
TEST(ThreadPoolTest, TasksRunAtTheirSubmittersPriority) {
  if (!CanRestoreThreadPriority()) GTEST_SKIP() << "cannot restore thread priority here";
  auto seen_in = [](ThreadPool& pool, int submitter) {
    std::atomic<int> seen{-1};
    std::thread([&] {
      ScopedThreadNice scope(submitter);
      pool.Submit([&] { seen = LoweredThreadPriority(); });
    }).join();
    while (seen.load() < 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return seen.load();
  };
  ThreadPool pool(1);
  EXPECT_EQ(seen_in(pool, kIdleThreadPriority), kIdleThreadPriority);
  EXPECT_EQ(seen_in(pool, 0), 0);
  EXPECT_EQ(seen_in(pool, 5), 5);
  ThreadPool lowered(1, [](size_t) { (void)LowerThreadPriority(kIdleThreadPriority); });
  EXPECT_EQ(seen_in(lowered, 0), kIdleThreadPriority);
  ThreadPool own(1, nullptr, ThreadPool::kDefaultYieldsBeforeSleep, "own", /*adopt_priority=*/false);
  EXPECT_EQ(seen_in(own, kIdleThreadPriority), 0);
}

}  // namespace
}  // namespace granite::core
