#include "coordinator/server/query_registry.h"

#include <thread>

#include "core/error.h"
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
  ASSERT_TRUE(registry.Start(&a).ok());
  ASSERT_TRUE(registry.Start(&b).ok());
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

TEST(QueryRegistryTest, CancelReachesTheQueryWithTheId) {
  QueryRegistry registry;
  QueryContext a("same", "SELECT 1");
  QueryContext c("other", "SELECT 3");
  ASSERT_TRUE(registry.Start(&a).ok());
  ASSERT_TRUE(registry.Start(&c).ok());
  EXPECT_EQ(registry.Cancel("same").size(), 1u);
  EXPECT_TRUE(a.cancelled());
  EXPECT_FALSE(c.cancelled());
  EXPECT_TRUE(registry.Cancel("missing").empty());
  registry.Finish(&a, EntryFor(a));
  registry.Finish(&c, EntryFor(c));
}

// Issue 19: a second query with a running query's id was accepted; ClickHouse refuses it.
TEST(QueryRegistryTest, RefusesASecondQueryWithARunningQuerysId) {
  QueryRegistry registry;
  QueryContext first("same", "SELECT 1");
  QueryContext second("same", "SELECT 2");
  ASSERT_TRUE(registry.Start(&first).ok());
  absl::Status refused = registry.Start(&second);
  EXPECT_EQ(core::CodeOf(refused), core::ErrorCode::kQueryWithSameIdIsAlreadyRunning);
  EXPECT_NE(refused.message().find("same"), std::string::npos) << refused;
  EXPECT_EQ(registry.RunningCount(), 1u);
  // The refused query is not running: finishing it only logs it, and the first still runs.
  registry.Finish(&second, EntryFor(second));
  EXPECT_TRUE(registry.IsRunning("same"));
  registry.Finish(&first, EntryFor(first));
  // Once the first has finished the id is free again.
  QueryContext third("same", "SELECT 3");
  EXPECT_TRUE(registry.Start(&third).ok());
  registry.Finish(&third, EntryFor(third));
}

TEST(QueryRegistryTest, LogKeepsAboutTheCapacity) {
  QueryRegistry registry(32);
  for (int i = 0; i < 500; ++i) {
    QueryContext query("q" + std::to_string(i));
    ASSERT_TRUE(registry.Start(&query).ok());
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
        EXPECT_TRUE(registry.Start(&query).ok());
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
