#include "client/query_runner.h"

#include <atomic>
#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "client/fake_clickhouse_server.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace granite::client {
namespace {

using clickhouse::grpc::QueryInfo;
using clickhouse::grpc::Result;
using testing::CannedAnswer;
using testing::ExceptionResult;
using testing::FakeClickHouseServer;
using testing::OutputResult;
using testing::StatsResult;
using ::testing::ElementsAre;

QueryInfo Query(const std::string& text) {
  QueryInfo info;
  info.set_query(text);
  return info;
}

Result ProgressResult(uint64_t read_rows, uint64_t read_bytes) {
  Result result;
  result.mutable_progress()->set_read_rows(read_rows);
  result.mutable_progress()->set_read_bytes(read_bytes);
  return result;
}

class QueryRunnerTest : public ::testing::Test {
 protected:
  QueryRunnerTest() : channel_(MakeChannel("127.0.0.1", server_.port())) {}

  FakeClickHouseServer server_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(QueryRunnerTest, CollectsOutputSumsProgressAndKeepsLastStats) {
  Result last = OutputResult("c");
  last.mutable_stats()->set_rows(3);
  last.set_query_id("q-1");
  last.set_totals("t");
  server_.service().SetAnswer(
      "SELECT x", {{OutputResult("a"), ProgressResult(2, 20), StatsResult(1), OutputResult("b"),
                    ProgressResult(1, 10), last}});
  absl::StatusOr<QueryResult> result = ExecuteQuery(channel_, Query("SELECT x"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->output, "abc");
  EXPECT_EQ(result->totals, "t");
  EXPECT_EQ(result->progress.read_rows(), 3u);
  EXPECT_EQ(result->progress.read_bytes(), 30u);
  EXPECT_EQ(result->stats.rows(), 3u);
  EXPECT_EQ(result->query_id, "q-1");
  EXPECT_FALSE(result->exception.has_value());
  EXPECT_FALSE(result->cancelled);
}

TEST_F(QueryRunnerTest, StreamsOutputAndProgressToCallbacks) {
  server_.service().SetAnswer("SELECT x", {{OutputResult("a"), ProgressResult(5, 0),
                                            OutputResult("b")}});
  std::vector<std::string> pieces;
  uint64_t rows = 0;
  ExecuteOptions options;
  options.on_output = [&pieces](std::string_view bytes) { pieces.emplace_back(bytes); };
  options.on_progress = [&rows](const clickhouse::grpc::Progress& p) { rows += p.read_rows(); };
  absl::StatusOr<QueryResult> result = ExecuteQuery(channel_, Query("SELECT x"), options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(pieces, ElementsAre("a", "b"));
  EXPECT_EQ(result->output, "");
  EXPECT_EQ(rows, 5u);
}

TEST_F(QueryRunnerTest, ServerExceptionIsAResultNotAFailedStatus) {
  server_.service().SetAnswer("BAD", {{ExceptionResult(62, "SYNTAX_ERROR", "Syntax error")}});
  absl::StatusOr<QueryResult> result = ExecuteQuery(channel_, Query("BAD"));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->exception.has_value());
  EXPECT_EQ(result->exception->code(), 62);
  EXPECT_EQ(result->exception->name(), "SYNTAX_ERROR");
}

TEST_F(QueryRunnerTest, InputReaderChunksBecomeMessages) {
  server_.service().SetAnswer("INSERT", {{StatsResult(0)}});
  std::istringstream in("abcdefg");
  ExecuteOptions options;
  options.input = StreamInputReader(in, 3);
  ASSERT_TRUE(ExecuteQuery(channel_, Query("INSERT"), options).ok());
  auto calls = server_.service().Calls();
  ASSERT_EQ(calls.size(), 1u);
  std::vector<std::string> chunks;
  std::vector<bool> more;
  for (const QueryInfo& info : calls[0]) {
    chunks.push_back(info.input_data());
    more.push_back(info.next_query_info());
  }
  EXPECT_THAT(chunks, ElementsAre("abc", "def", "g", ""));
  EXPECT_THAT(more, ElementsAre(true, true, true, false));
  EXPECT_EQ(calls[0][0].query(), "INSERT");
  EXPECT_EQ(calls[0][1].query(), "");
}

TEST_F(QueryRunnerTest, CancelRequestSendsCancelAndServerConfirms) {
  CannedAnswer slow{{OutputResult("partial")}, /*wait_for_cancel=*/true};
  server_.service().SetAnswer("SLOW", slow);
  ExecuteOptions options;
  std::atomic<bool> cancel{false};
  options.on_output = [&cancel](std::string_view) { cancel = true; };
  options.cancel_requested = [&cancel] { return cancel.load(); };
  absl::StatusOr<QueryResult> result = ExecuteQuery(channel_, Query("SLOW"), options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->cancelled);
  EXPECT_TRUE(result->cancel_sent);
  auto calls = server_.service().Calls();
  ASSERT_EQ(calls.size(), 1u);
  ASSERT_EQ(calls[0].size(), 2u);
  EXPECT_TRUE(calls[0][1].cancel());
}

TEST_F(QueryRunnerTest, IgnoredCancelCutsTheCallAfterGrace) {
  CannedAnswer stubborn{{OutputResult("partial")}, /*wait_for_cancel=*/true,
                        /*ignore_cancel=*/true};
  server_.service().SetAnswer("STUBBORN", stubborn);
  ExecuteOptions options;
  options.cancel_requested = [] { return true; };
  options.cancel_grace = std::chrono::milliseconds(100);
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<QueryResult> result = ExecuteQuery(channel_, Query("STUBBORN"), options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->cancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(QueryRunnerTest, TimeoutFailsTheCall) {
  CannedAnswer stubborn{{}, /*wait_for_cancel=*/true, /*ignore_cancel=*/true};
  server_.service().SetAnswer("HANG", stubborn);
  ExecuteOptions options;
  options.timeout = std::chrono::milliseconds(100);
  absl::StatusOr<QueryResult> result = ExecuteQuery(channel_, Query("HANG"), options);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST(QueryRunnerHelpersTest, HostPortBracketsIpv6) {
  EXPECT_EQ(HostPort("127.0.0.1", 9100), "127.0.0.1:9100");
  EXPECT_EQ(HostPort("::1", 9100), "[::1]:9100");
  EXPECT_EQ(HostPort("[::1]", 9100), "[::1]:9100");
  EXPECT_EQ(HostPort("db.example", 1), "db.example:1");
}

TEST(QueryRunnerHelpersTest, RandomUuidsAreVersion4AndDistinct) {
  std::string a = RandomUuid();
  std::string b = RandomUuid();
  EXPECT_NE(a, b);
  EXPECT_THAT(a, ::testing::MatchesRegex(
                     "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"));
}

}  // namespace
}  // namespace granite::client
