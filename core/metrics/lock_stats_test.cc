#include <atomic>
#include <chrono>
#include <thread>

#include "core/mutex.h"
#include "gtest/gtest.h"

namespace granite::core {
namespace {

LockTotals TotalsOf(const std::string& name) {
  for (const LockTotals& totals : AllLockTotals()) {
    if (totals.name == name) return totals;
  }
  return {};
}

TEST(LockStatsTest, LocksOfOneNameShareStats) {
  Mutex a("lock_stats_test_shared");
  Mutex b("lock_stats_test_shared");
  EXPECT_EQ(&a.stats(), &b.stats());
  EXPECT_EQ(LockStatsFor("lock_stats_test_shared"), &a.stats());
  Mutex c("lock_stats_test_other");
  EXPECT_NE(&a.stats(), &c.stats());
}

TEST(LockStatsTest, UncontendedAcquisitionsAreCountedWithoutWait) {
  Mutex mu("lock_stats_test_uncontended");
  for (int i = 0; i < 100; ++i) {
    MutexLock lock(mu);
  }
  LockTotals totals = TotalsOf("lock_stats_test_uncontended");
  EXPECT_EQ(totals.acquisitions, 100u);
  EXPECT_EQ(totals.contended, 0u);
  EXPECT_EQ(totals.wait_ns, 0u);
}

TEST(LockStatsTest, ContendedAcquisitionIsTimed) {
  Mutex mu("lock_stats_test_contended");
  std::atomic<bool> held{false};
  std::thread holder([&] {
    MutexLock lock(mu);
    held = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  });
  while (!held) std::this_thread::yield();
  {
    MutexLock lock(mu);  // waits for the holder
  }
  holder.join();
  LockTotals totals = TotalsOf("lock_stats_test_contended");
  EXPECT_EQ(totals.acquisitions, 2u);
  EXPECT_EQ(totals.contended, 1u);
  EXPECT_GE(totals.wait_ns, 20'000'000u);  // most of the holder's 50 ms
}

TEST(LockStatsTest, TryLockBrieflyGivesUpOnAHeldLockAndCountsTheAttempt) {
  Mutex mu("lock_stats_test_briefly");
  std::atomic<bool> held{false};
  std::atomic<bool> release{false};
  std::thread holder([&] {
    MutexLock lock(mu);
    held = true;
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  while (!held) std::this_thread::yield();
  EXPECT_FALSE(mu.try_lock_briefly());  // never blocks behind the holder
  release = true;
  holder.join();
  ASSERT_TRUE(mu.try_lock_briefly());
  {
    MutexLock lock(mu, std::adopt_lock);
  }
  LockTotals totals = TotalsOf("lock_stats_test_briefly");
  EXPECT_EQ(totals.acquisitions, 2u);  // the holder's and the second attempt
  EXPECT_EQ(totals.contended, 1u);     // the attempt that gave up
}

TEST(LockStatsTest, SharedMutexCountsBothModes) {
  SharedMutex mu("lock_stats_test_shared_mutex");
  {
    ReaderLock a(mu);
    std::thread([&] { ReaderLock b(mu); }).join();  // shared holders do not contend
  }
  {
    WriterLock lock(mu);
  }
  std::atomic<bool> reading{false};
  std::thread reader([&] {
    ReaderLock lock(mu);
    reading = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  });
  while (!reading) std::this_thread::yield();
  {
    WriterLock lock(mu);  // waits for the reader
  }
  reader.join();
  LockTotals totals = TotalsOf("lock_stats_test_shared_mutex");
  EXPECT_EQ(totals.acquisitions, 5u);
  EXPECT_EQ(totals.contended, 1u);
  EXPECT_GT(totals.wait_ns, 0u);
}

TEST(LockStatsTest, TryLockCountsOnlySuccess) {
  Mutex mu("lock_stats_test_try");
  if (mu.try_lock()) {
    std::thread([&] {
      bool got = mu.try_lock();
      if (got) mu.unlock();
      EXPECT_FALSE(got);
    }).join();
    mu.unlock();
  } else {
    ADD_FAILURE() << "an unheld mutex refused try_lock";
  }
  EXPECT_EQ(TotalsOf("lock_stats_test_try").acquisitions, 1u);
}

TEST(LockStatsTest, NamesAreListedSorted) {
  Mutex b("lock_stats_test_sort_b");
  Mutex a("lock_stats_test_sort_a");
  std::vector<LockTotals> all = AllLockTotals();
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].name, all[i].name);
}

}  // namespace
}  // namespace granite::core
