#include "core/cancellation_poller.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "core/mutex.h"
#include "gtest/gtest.h"

namespace granite::core {
namespace {

bool WaitFor(const std::atomic<int>& value, int expected) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (value.load() != expected) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

TEST(CancellationPollerTest, RunsTheActionOnceWhenTheClientIsGone) {
  std::atomic<bool> gone{false};
  std::atomic<int> fired{0};
  auto registration = CancellationPoller::Global().Watch([&] { return gone.load(); },
                                                         [&] { fired++; });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(fired.load(), 0);
  gone = true;
  EXPECT_TRUE(WaitFor(fired, 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_EQ(fired.load(), 1);  // not again on later rounds
}

TEST(CancellationPollerTest, NothingRunsAfterTheRegistrationEnds) {
  std::atomic<int> fired{0};
  {
    auto registration =
        CancellationPoller::Global().Watch([] { return false; }, [&] { fired++; });
  }
  std::atomic<int> other{0};
  auto probe = CancellationPoller::Global().Watch([] { return true; }, [&] { other++; });
  EXPECT_TRUE(WaitFor(other, 1));
  EXPECT_EQ(fired.load(), 0);
}

// Issue 24: the idle coordinator took the shards' locks ~3,200 times a second.
TEST(CancellationPollerTest, IdlePollerTakesNoLock) {
  auto acquisitions = [] {
    uint64_t total = 0;
    for (const LockTotals& lock : AllLockTotals()) {
      if (lock.name == "cancellation_poller") total += lock.acquisitions;
    }
    return total;
  };
  {  // starts the thread and lets it see one registration come and go
    std::atomic<int> fired{0};
    auto probe = CancellationPoller::Global().Watch([] { return true; }, [&] { fired++; });
    EXPECT_TRUE(WaitFor(fired, 1));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a round in flight ends
  uint64_t before = acquisitions();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // ten polling intervals
  EXPECT_LE(acquisitions() - before, 1u);  // at most a round that had begun
}

TEST(CancellationPollerTest, ManyShortRegistrationsFromManyThreads) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 2000; ++i) {
        auto registration = CancellationPoller::Global().Watch([] { return false; }, [] {});
      }
    });
  }
  for (auto& thread : threads) thread.join();
}

}  // namespace
}  // namespace granite::core
