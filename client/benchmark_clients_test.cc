#include "client/benchmark_clients.h"

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "client/fake_clickhouse_server.h"
#include "gtest/gtest.h"

namespace granite::client {
namespace {

using clickhouse::grpc::Result;
using testing::FakeClickHouseServer;
using testing::OutputResult;

Result ProgressResult(uint64_t read_rows) {
  Result result;
  result.mutable_progress()->set_read_rows(read_rows);
  return result;
}

class BenchmarkClientsTest : public ::testing::Test {
 protected:
  BenchmarkClientsOptions Options(int concurrency, int threads) {
    BenchmarkClientsOptions options;
    options.port = server_.port();
    options.concurrency = concurrency;
    options.threads = threads;
    return options;
  }

  FakeClickHouseServer server_;
};

TEST_F(BenchmarkClientsTest, RunsExactlyTheIterationsAcrossClientsAndSumsProgress) {
  server_.service().SetAnswer("SELECT a", {{ProgressResult(2), OutputResult("1\n"),
                                            ProgressResult(3)}});
  server_.service().SetAnswer("SELECT b", {{ProgressResult(7), OutputResult("2\n")}});
  BenchmarkClientsOptions options = Options(8, 2);
  options.queries = {"SELECT a", "SELECT b"};
  options.iterations = 100;
  std::vector<ClientResult> results = RunBenchmarkClients(options);
  ASSERT_EQ(results.size(), 8u);
  size_t queries = 0;
  uint64_t rows = 0;
  for (const ClientResult& result : results) {
    queries += result.latencies_ms.size();
    rows += result.rows_read;
    EXPECT_EQ(result.errors, 0u) << result.first_error;
    for (double ms : result.latencies_ms) EXPECT_GT(ms, 0);
  }
  EXPECT_EQ(queries, 100u);
  EXPECT_EQ(rows, 50u * 5 + 50u * 7);  // queries are taken in turn: 50 of each
  // Every call sent its query in one message, with the user and format of the sync client.
  auto calls = server_.service().Calls();
  ASSERT_EQ(calls.size(), 100u);
  std::set<std::string> seen;
  for (const auto& call : calls) {
    ASSERT_EQ(call.size(), 1u);
    EXPECT_FALSE(call[0].next_query_info());
    EXPECT_EQ(call[0].user_name(), "default");
    EXPECT_EQ(call[0].output_format(), "TabSeparated");
    seen.insert(call[0].query());
  }
  EXPECT_EQ(seen, (std::set<std::string>{"SELECT a", "SELECT b"}));
}

TEST_F(BenchmarkClientsTest, CountsServerExceptionsAndTransportErrors) {
  BenchmarkClientsOptions options = Options(3, 1);
  options.queries = {"SELECT unknown"};  // the fake answers with exception 1001
  options.iterations = 9;
  std::vector<ClientResult> results = RunBenchmarkClients(options);
  uint64_t errors = 0;
  for (const ClientResult& result : results) {
    errors += result.errors;
    if (result.errors > 0) {
      EXPECT_EQ(result.first_error, "Code: 1001. No canned answer for: SELECT unknown");
    }
    EXPECT_EQ(result.rows_read, 0u);
  }
  EXPECT_EQ(errors, 9u);

  BenchmarkClientsOptions dead = options;
  dead.port = 1;  // nothing listens there
  dead.iterations = 4;
  results = RunBenchmarkClients(dead);
  errors = 0;
  for (const ClientResult& result : results) {
    errors += result.errors;
    if (result.errors > 0) {
      EXPECT_FALSE(result.first_error.empty());
    }
  }
  EXPECT_EQ(errors, 4u);
}

TEST_F(BenchmarkClientsTest, StopsAtTheDeadlineAndOnStop) {
  server_.service().SetAnswer("SELECT 1", {{OutputResult("1\n")}});
  BenchmarkClientsOptions options = Options(4, 2);
  options.queries = {"SELECT 1"};
  auto start = std::chrono::steady_clock::now();
  options.deadline = start + std::chrono::milliseconds(200);
  std::vector<ClientResult> results = RunBenchmarkClients(options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t queries = 0;
  for (const ClientResult& result : results) queries += result.latencies_ms.size();
  EXPECT_GT(queries, 4u);
  EXPECT_LT(seconds, 5.0);

  std::atomic<bool> stop{true};
  options.deadline = std::chrono::steady_clock::time_point::max();
  options.stop = &stop;
  results = RunBenchmarkClients(options);
  for (const ClientResult& result : results) EXPECT_TRUE(result.latencies_ms.empty());
}

}  // namespace
}  // namespace granite::client
