#include "core/metrics/thread_counters.h"

#include <thread>
#include <vector>

#include "core/metrics/events.h"
#include "core/metrics/histogram.h"
#include "gtest/gtest.h"

namespace granite::core {
namespace {

TEST(ThreadCountersTest, SumsIncrementsOfManyThreads) {
  uint64_t before = EventTotal(Event::kInsertedRows);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 10000; ++i) CountEvent(Event::kInsertedRows, 3);
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(EventTotal(Event::kInsertedRows) - before, 8u * 10000 * 3);
}

TEST(ThreadCountersTest, ReadersSeeMonotonicTotalsWhileThreadsCount) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> writers;
  for (int t = 0; t < 2; ++t) {
    writers.emplace_back([&] {
      while (!stop.load()) CountEvent(Event::kGrpcSentMessages);
    });
  }
  uint64_t last = 0;
  for (int i = 0; i < 200; ++i) {
    uint64_t now = EventTotal(Event::kGrpcSentMessages);
    EXPECT_GE(now, last);
    last = now;
  }
  stop = true;
  for (auto& thread : writers) thread.join();
}

TEST(ThreadCountersTest, CountsSurviveThreadExitAndBlocksAreReused) {
  uint64_t before = EventTotal(Event::kKilledQueries);
  std::thread([] { CountEvent(Event::kKilledQueries, 5); }).join();
  size_t blocks = ThreadCounters::BlockCount();
  // Sequential short-lived threads reuse the freed block instead of allocating new ones.
  for (int i = 0; i < 20; ++i) std::thread([] { CountEvent(Event::kKilledQueries, 1); }).join();
  EXPECT_EQ(EventTotal(Event::kKilledQueries) - before, 25u);
  EXPECT_EQ(ThreadCounters::BlockCount(), blocks);
}

TEST(ThreadCountersTest, BlocksDoNotShareCacheLines) {
  ThreadCounters* a = nullptr;
  ThreadCounters* b = nullptr;
  std::thread first([&] {
    a = &ThreadCounters::Local();
    std::thread second([&] { b = &ThreadCounters::Local(); });
    second.join();
  });
  first.join();
  EXPECT_NE(a, b);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u);
}

TEST(ThreadCountersTest, EventsAreDeclaredOnceWithPrometheusNames) {
  const auto& events = AllEvents();
  ASSERT_EQ(events.size(), kEventCount);
  EXPECT_EQ(events[static_cast<size_t>(Event::kReadRows)].name, "ReadRows");
  EXPECT_EQ(events[static_cast<size_t>(Event::kReadRows)].family, "granite_rows_read_total");
  for (const EventInfo& event : events) {
    EXPECT_FALSE(event.description.empty()) << event.name;
    EXPECT_TRUE(event.family.starts_with("granite_")) << event.family;
    EXPECT_TRUE(event.family.ends_with("_total")) << event.family;
    if (event.unit == EventUnit::kMicroseconds) {
      EXPECT_TRUE(event.family.ends_with("_seconds_total")) << event.family;
    }
  }
}

TEST(HistogramTest, CountsIntoCumulativeBuckets) {
  static constexpr uint64_t kBounds[] = {10, 100, 1000};
  Histogram histogram("test_seconds", "test", kBounds, 3, 40);
  histogram.ObserveMicroseconds(5);
  histogram.ObserveMicroseconds(10);    // on the bound: le="1e-05"
  histogram.ObserveMicroseconds(50);
  std::thread([&] { histogram.ObserveMicroseconds(5000); }).join();  // +Inf
  HistogramSnapshot snapshot = histogram.Snapshot();
  EXPECT_EQ(snapshot.count, 4u);
  EXPECT_EQ(snapshot.cumulative_counts, (std::vector<uint64_t>{2, 3, 3, 4}));
  EXPECT_EQ(snapshot.upper_bounds_seconds, (std::vector<double>{10e-6, 100e-6, 1000e-6}));
  EXPECT_DOUBLE_EQ(snapshot.sum_seconds, 5065e-6);
}

}  // namespace
}  // namespace granite::core
