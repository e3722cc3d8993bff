#include "coordinator/cluster/reader_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "core/thread_priority.h"

namespace granite::coordinator {
namespace {

// Waits (bounded) until `threads` has `parked` idle threads.
bool WaitParked(const ReaderThreads& threads, size_t parked) {
  for (int i = 0; i < 2000 && threads.parked() != parked; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return threads.parked() == parked;
}

// Blocks (bounded) until `count` callers have arrived, so each runs on its own thread.
void Barrier(std::atomic<int>* arrived, int count) {
  arrived->fetch_add(1);
  for (int i = 0; i < 2000 && arrived->load() < count; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST(ReaderThreadsTest, RunsEveryIndexOnceAndReusesParkedThreads) {
  ReaderThreads& threads = *new ReaderThreads(8);  // outlives its threads: never destroyed
  std::mutex mu;
  std::vector<int> calls(4, 0);
  std::set<std::thread::id> first;
  std::atomic<int> arrived{0};
  threads.RunAll(4, [&](size_t i) {
    if (i + 1 < 4) Barrier(&arrived, 3);
    std::lock_guard<std::mutex> guard(mu);
    ++calls[i];
    if (i + 1 < 4) first.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(calls, (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(first.size(), 3u);
  EXPECT_EQ(first.count(std::this_thread::get_id()), 0u);  // the caller ran the last index
  ASSERT_TRUE(WaitParked(threads, 3));
  // The next call takes the parked threads instead of starting new ones.
  std::set<std::thread::id> second;
  arrived = 0;
  threads.RunAll(4, [&](size_t i) {
    if (i + 1 < 4) Barrier(&arrived, 3);
    std::lock_guard<std::mutex> guard(mu);
    if (i + 1 < 4) second.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(second, first);
  threads.RunAll(0, [&](size_t) { ADD_FAILURE() << "no index to run"; });
}

TEST(ReaderThreadsTest, ManyCallersAtOnceAndAParkingCap) {
  ReaderThreads& threads = *new ReaderThreads(2);  // outlives its threads: never destroyed
  std::atomic<size_t> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 8; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        threads.RunAll(3, [&](size_t) { total.fetch_add(1); });
      }
    });
  }
  for (auto& caller : callers) caller.join();
  EXPECT_EQ(total.load(), 8u * 50 * 3);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_LE(threads.parked(), 2u);
}

// A SELECT lowered by --query_thread_nice keeps its priority on the reader threads, and a reader
// thread that served it is back at normal priority for the next caller.
TEST(ReaderThreadsTest, ReadersRunAtTheCallersPriority) {
  if (!core::CanRestoreThreadPriority()) GTEST_SKIP() << "cannot restore thread priority here";
  ReaderThreads& threads = *new ReaderThreads(4);  // outlives its threads: never destroyed
  std::vector<int> seen(2, -1);
  std::thread([&] {
    core::ScopedThreadNice nice(5);
    ASSERT_TRUE(nice.active());
    threads.RunAll(2, [&](size_t i) { seen[i] = core::LoweredThreadPriority(); });
  }).join();
  EXPECT_EQ(seen[0], 5);  // the reader thread
  EXPECT_EQ(seen[1], 5);  // the caller
  ASSERT_TRUE(WaitParked(threads, 1));
  threads.RunAll(2, [&](size_t i) { seen[i] = core::LoweredThreadPriority(); });
  EXPECT_EQ(seen[0], 0);
  EXPECT_EQ(seen[1], 0);
}

}  // namespace
}  // namespace granite::coordinator
