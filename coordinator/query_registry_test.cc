#include "coordinator/query_registry.h"

#include <thread>

#include "gtest/gtest.h"

namespace granite::coordinator {
namespace {

QueryLogEntry EntryFor(const QueryContext& query) {
  QueryLogEntry entry;
  entry.query_id = query.query_id();
  entry.query = query.query();
  entry.finish_time = std::chrono::system_clock::now();
  return entry;
}

TEST(QueryRegistryTest, TracksRunningQueriesAndLogsFinishedOnes) {
  QueryRegistry registry;
  QueryContext a("id-a", "SELECT 1");
  QueryContext b("id-b", "SELECT 2");
  a.set_kind(QueryKind::kSelect);
  registry.Start(&a);
  registry.Start(&b);
  EXPECT_EQ(registry.RunningCount(), 2u);
  EXPECT_TRUE(registry.IsRunning("id-a"));
  std::vector<RunningQuery> running = registry.Running();
  ASSERT_EQ(running.size(), 2u);
  registry.Finish(&a, EntryFor(a));
  EXPECT_FALSE(registry.IsRunning("id-a"));
  EXPECT_EQ(registry.RunningCount(), 1u);
  registry.Finish(&b, EntryFor(b));
  std::vector<QueryLogEntry> log = registry.Log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].query_id, "id-a");  // oldest first
  EXPECT_EQ(log[1].query, "SELECT 2");
}

TEST(QueryRegistryTest, CancelReachesEveryQueryWithTheId) {
  QueryRegistry registry;
  QueryContext a("same", "SELECT 1");
  QueryContext b("same", "SELECT 2");
  QueryContext c("other", "SELECT 3");
  registry.Start(&a);
  registry.Start(&b);
  registry.Start(&c);
  EXPECT_EQ(registry.Cancel("same").size(), 2u);
  EXPECT_TRUE(a.cancelled());
  EXPECT_TRUE(b.cancelled());
  EXPECT_FALSE(c.cancelled());
  EXPECT_TRUE(registry.Cancel("missing").empty());
  registry.Finish(&a, EntryFor(a));
  registry.Finish(&b, EntryFor(b));
  registry.Finish(&c, EntryFor(c));
}

TEST(QueryRegistryTest, LogKeepsAboutTheCapacity) {
  QueryRegistry registry(32);
  for (int i = 0; i < 500; ++i) {
    QueryContext query("q" + std::to_string(i));
    registry.Start(&query);
    registry.Finish(&query, EntryFor(query));
  }
  std::vector<QueryLogEntry> log = registry.Log();
  EXPECT_LE(log.size(), 32u);
  EXPECT_GE(log.size(), 16u);
  EXPECT_EQ(log.back().query_id, "q499");
}

TEST(QueryRegistryTest, ConcurrentQueries) {
  QueryRegistry registry;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) {
        QueryContext query("t" + std::to_string(t) + "-" + std::to_string(i));
        registry.Start(&query);
        registry.Running();
        registry.Finish(&query, EntryFor(query));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(registry.RunningCount(), 0u);
}

TEST(QueryContextTest, RecordsPerWorkerTimeAndPeakMemory) {
  QueryContext query("id");
  query.RecordWorkerElapsed(2, 30);
  query.RecordWorkerElapsed(0, 10);
  EXPECT_EQ(query.WorkerElapsed(), (std::vector<uint64_t>{10, 0, 30}));
  query.NoteMemory(100);
  query.NoteMemory(50);
  EXPECT_EQ(query.peak_memory(), 100u);
  EXPECT_EQ(QueryKindName(QueryKind::kDdl), "ddl");
}

}  // namespace
}  // namespace granite::coordinator
