#include "core/memory/memory_tracker.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/memory/tracked_malloc.h"
#include "core/memory/transport_memory_scope.h"
#include "core/thread_pool.h"
#include "gtest/gtest.h"

namespace granite::core {
namespace {

TEST(MemoryTrackerTest, CountsPeakAndGivesBackToParentWhenDestroyed) {
  const int64_t before = ServerMemoryTracker().current();
  {
    std::shared_ptr<MemoryTracker> query = MemoryTracker::ForQuery(0);
    query->Add(1000);
    query->Add(-400);
    EXPECT_EQ(query->current(), 600);
    EXPECT_EQ(query->peak(), 1000);
    EXPECT_FALSE(query->exceeded());
  }
  // Other threads may allocate meanwhile; the query's own 600 bytes left with it.
  EXPECT_LT(ServerMemoryTracker().current() - before, 600 + (int64_t{64} << 20));
}

TEST(MemoryTrackerTest, OverItsLimitRecordsTheFirstExcessAndRaisesTheCancelFlag) {
  std::atomic<bool> cancelled{false};
  std::shared_ptr<MemoryTracker> query = MemoryTracker::ForQuery(1 << 20);
  query->set_cancel_flag(&cancelled);
  query->Add(1 << 19);
  EXPECT_FALSE(query->exceeded());
  query->Add(1 << 20);
  query->Add(1 << 22);  // a second excess does not overwrite the first
  EXPECT_TRUE(query->exceeded());
  EXPECT_TRUE(cancelled.load());
  absl::Status status = query->ExceededStatus();
  EXPECT_EQ(CodeOf(status), ErrorCode::kMemoryLimitExceeded);
  EXPECT_EQ(std::string(status.message()),
            "Memory limit (for query) exceeded: would use 1.50 MiB (attempt to allocate chunk of "
            "1048576 bytes), maximum: 1.00 MiB (max_memory_usage)");
  query->Add(-(1 << 19) - (1 << 20) - (1 << 22));
}

TEST(MemoryTrackerTest, ServerLimitFailsTheQueryThatAllocates) {
  MemoryTracker& server = ServerMemoryTracker();
  const int64_t saved = server.limit();
  std::shared_ptr<MemoryTracker> query = MemoryTracker::ForQuery(0);
  server.set_limit(server.current() + (int64_t{256} << 20));
  query->Add(int64_t{512} << 20);
  server.set_limit(saved);
  EXPECT_TRUE(query->exceeded());
  EXPECT_NE(std::string(query->ExceededStatus().message()).find("Memory limit (total) exceeded"),
            std::string::npos);
  query->Add(-(int64_t{512} << 20));
}

TEST(MemoryTrackerTest, ThreadBalanceReachesTheScopedTrackerInBatches) {
  std::shared_ptr<MemoryTracker> query = MemoryTracker::ForQuery(0);
  {
    MemoryTrackerScope scope(query.get());
    EXPECT_EQ(CurrentMemoryTracker(), query.get());
    TrackAlloc(1000);
    EXPECT_EQ(query->current(), 0);  // still in the thread's batch
    TrackAlloc(memory_internal::kBatchBytes);
    EXPECT_GE(query->current(), memory_internal::kBatchBytes);
    TrackFree(memory_internal::kBatchBytes + 1000);
  }
  EXPECT_EQ(CurrentMemoryTracker(), nullptr);
  EXPECT_EQ(query->current(), 0);  // the scope handed the rest over when it ended
}

TEST(MemoryTrackerTest, TrackedMallocChargesTheQueryOfTheThread) {
  std::shared_ptr<MemoryTracker> query = MemoryTracker::ForQuery(0);
  MemoryTrackerScope scope(query.get());
  void* big = TrackedMalloc(8 << 20);
  ASSERT_NE(big, nullptr);
  EXPECT_GE(query->current(), 7 << 20);
  TrackedFree(big);
  EXPECT_LT(query->current(), 2 << 20);
}

TEST(MemoryTrackerTest, PoolTasksChargeTheirSubmittersTracker) {
  ThreadPool pool(2);
  std::shared_ptr<MemoryTracker> query = MemoryTracker::ForQuery(0);
  std::vector<void*> arrays(8, nullptr);
  {
    MemoryTrackerScope scope(query.get());
    pool.ParallelFor(arrays.size(), [&](size_t i) { arrays[i] = TrackedMalloc(4 << 20); });
  }
  EXPECT_GE(query->current(), int64_t{30} << 20);
  {
    MemoryTrackerScope scope(query.get());
    for (void* array : arrays) TrackedFree(array);
  }
  EXPECT_LT(query->current(), 4 << 20);
}

// gRPC serializes a message on the calling thread and frees its buffer on one of its own threads:
// the query's tracker is charged and never credited (issue 23) unless the call runs in a
// TransportMemoryScope.
TEST(MemoryTrackerTest, BuffersFreedOnAnotherThreadStayChargedToTheQuery) {
  std::shared_ptr<MemoryTracker> query = MemoryTracker::ForQuery(0);
  MemoryTrackerScope scope(query.get());
  void* buffer = TrackedMalloc(8 << 20);
  ASSERT_NE(buffer, nullptr);
  std::thread([buffer] { TrackedFree(buffer); }).join();
  EXPECT_GE(query->current(), 7 << 20);
  query->Add(-query->current());
}

TEST(MemoryTrackerTest, TransportMemoryScopeChargesTheServerNotTheQuery) {
  std::shared_ptr<MemoryTracker> query = MemoryTracker::ForQuery(0);
  MemoryTrackerScope scope(query.get());
  TrackAlloc(1000);  // the query's pending balance
  for (int message = 0; message < 16; ++message) {
    const int64_t pending = memory_internal::thread_memory.untracked;
    void* buffer = nullptr;
    {
      TransportMemoryScope transport;
      EXPECT_EQ(CurrentMemoryTracker(), nullptr);
      buffer = TrackedMalloc(8 << 20);
      ASSERT_NE(buffer, nullptr);
    }
    // The query's balance was set aside, not flushed, and comes back as it was.
    EXPECT_EQ(CurrentMemoryTracker(), query.get());
    EXPECT_EQ(memory_internal::thread_memory.untracked, pending);
    std::thread([buffer] { TrackedFree(buffer); }).join();
  }
  EXPECT_EQ(query->current(), 0);
  TrackFree(1000);
}

}  // namespace
}  // namespace granite::core
