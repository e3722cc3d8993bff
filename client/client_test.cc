#include "client/client.h"

#include <signal.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "client/fake_clickhouse_server.h"
#include "client/query_runner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace granite::client {
namespace {

using clickhouse::grpc::QueryInfo;
using testing::CannedAnswer;
using testing::ExceptionResult;
using testing::FakeClickHouseServer;
using testing::OutputResult;
using testing::StatsResult;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;

// Runs the client against the fake server with `input` as stdin.
struct ClientRun {
  int status = -1;
  std::string out;
  std::string err;
};

class ClientTest : public ::testing::Test {
 protected:
  ClientTest() {
    options_.port = server_.port();
    server_.service().SetAnswer("SELECT 1", {{OutputResult("1\n"), StatsResult(1)}});
    server_.service().SetAnswer("SELECT 2", {{OutputResult("2\n"), StatsResult(1)}});
    server_.service().SetAnswer("SELECT version()", {{OutputResult("0.1.0\n")}});
    server_.service().SetAnswer(
        "BAD", {{ExceptionResult(62, "SYNTAX_ERROR", "Syntax error: failed at position 1 ('BAD')")}});
  }

  ClientRun Run(const std::string& input, bool terminal) {
    std::istringstream in(input);
    std::ostringstream out;
    std::ostringstream err;
    ClientRun run;
    run.status = RunClient(options_, ClientStreams{&in, terminal, &out, &err});
    run.out = out.str();
    run.err = err.str();
    return run;
  }

  // Returns the query text of every finished call, in order.
  std::vector<std::string> Queries() {
    std::vector<std::string> queries;
    for (const auto& call : server_.service().Calls()) queries.push_back(call.front().query());
    return queries;
  }

  FakeClickHouseServer server_;
  ClientOptions options_;
};

TEST_F(ClientTest, QueryPrintsStreamedOutputAndSucceeds) {
  server_.service().SetAnswer(
      "SELECT number FROM numbers(3)",
      {{OutputResult("0\n"), OutputResult("1\n"), OutputResult("2\n"), StatsResult(3)}});
  options_.query = "SELECT number FROM numbers(3)";
  options_.database = "db1";
  options_.password = "secret";
  options_.settings["max_threads"] = "2";
  ClientRun run = Run("", /*terminal=*/true);
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "0\n1\n2\n");
  EXPECT_EQ(run.err, "");

  auto calls = server_.service().Calls();
  ASSERT_EQ(calls.size(), 1u);
  ASSERT_EQ(calls[0].size(), 1u);
  const QueryInfo& info = calls[0][0];
  EXPECT_EQ(info.user_name(), "default");
  EXPECT_EQ(info.password(), "secret");
  EXPECT_EQ(info.database(), "db1");
  EXPECT_EQ(info.output_format(), "");  // The server's default (TabSeparated) applies.
  EXPECT_EQ(info.settings().at("max_threads"), "2");
  EXPECT_THAT(info.query_id(),
              MatchesRegex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"));
  EXPECT_FALSE(info.session_id().empty());
  EXPECT_FALSE(info.next_query_info());
  EXPECT_TRUE(info.input_data().empty());
}

// Issue 19: `-q "-- comment"` ran stdin as a script. A query of only comments (or an empty one)
// runs nothing, sends nothing and exits 0; stdin stays unread.
TEST_F(ClientTest, QueryOfOnlyCommentsRunsNothingAndLeavesStdinUnread) {
  for (const char* query : {"-- comment", "/* block */ -- and line", "", " ; ;"}) {
    SCOPED_TRACE(query);
    options_.query = query;
    options_.query_given = true;
    ClientRun run = Run("SELECT 1;\nSELECT 2;\n", /*terminal=*/false);
    EXPECT_EQ(run.status, 0);
    EXPECT_EQ(run.out, "");
    EXPECT_EQ(run.err, "");
    EXPECT_TRUE(Queries().empty());
  }
}

TEST_F(ClientTest, FormatOptionIsSent) {
  options_.query = "SELECT 1";
  options_.format = "JSONEachRow";
  ClientRun run = Run("", /*terminal=*/true);
  EXPECT_EQ(run.status, 0);
  auto calls = server_.service().Calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0][0].output_format(), "JSONEachRow");
}

TEST_F(ClientTest, ServerExceptionPrintsClickHouseStyleAndReturnsCode) {
  options_.query = "BAD";
  ClientRun run = Run("", /*terminal=*/true);
  EXPECT_EQ(run.status, 62);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err,
            "Code: 62. DB::Exception: Syntax error: failed at position 1 ('BAD'). (SYNTAX_ERROR)\n");
}

TEST_F(ClientTest, ExitStatusIsCodeModulo256ButNeverZero) {
  server_.service().SetAnswer("Q1024", {{ExceptionResult(1024, "", "Boom.")}});
  server_.service().SetAnswer("Q394", {{ExceptionResult(394, "QUERY_WAS_CANCELLED", "stop")}});
  options_.query = "Q1024";
  ClientRun run = Run("", /*terminal=*/true);
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err, "Code: 1024. DB::Exception: Boom. (UNKNOWN_EXCEPTION)\n");
  options_.query = "Q394";
  EXPECT_EQ(Run("", /*terminal=*/true).status, 394 % 256);
}

TEST_F(ClientTest, MissingNameComesFromGraniteErrorCodes) {
  server_.service().SetAnswer("Q60", {{ExceptionResult(60, "", "Table default.t does not exist")}});
  options_.query = "Q60";
  ClientRun run = Run("", /*terminal=*/true);
  EXPECT_EQ(run.status, 60);
  EXPECT_EQ(run.err, "Code: 60. DB::Exception: Table default.t does not exist. (UNKNOWN_TABLE)\n");
}

TEST_F(ClientTest, ClickHouseFormattedDisplayTextPrintsUnchanged) {
  std::string text = "Code: 47. DB::Exception: Missing columns: 'x'. (UNKNOWN_IDENTIFIER)";
  server_.service().SetAnswer("Q47", {{ExceptionResult(47, "UNKNOWN_IDENTIFIER", text)}});
  options_.query = "Q47";
  ClientRun run = Run("", /*terminal=*/true);
  EXPECT_EQ(run.status, 47);
  EXPECT_EQ(run.err, text + "\n");
}

TEST_F(ClientTest, UnreachableServerReturnsNetworkError) {
  int dead_port;
  {
    FakeClickHouseServer gone;
    dead_port = gone.port();
  }
  options_.port = dead_port;
  options_.query = "SELECT 1";
  ClientRun run = Run("", /*terminal=*/true);
  EXPECT_EQ(run.status, 210);
  EXPECT_EQ(run.out, "");
  EXPECT_THAT(run.err, StartsWith("Code: 210. DB::NetException: Cannot reach granite server at "
                                  "127.0.0.1:" + std::to_string(dead_port) + ": "));
  EXPECT_THAT(run.err, HasSubstr("(NETWORK_ERROR)"));
}

TEST_F(ClientTest, UnreachableServerFailsInteractiveStart) {
  int dead_port;
  {
    FakeClickHouseServer gone;
    dead_port = gone.port();
  }
  options_.port = dead_port;
  ClientRun run = Run("SELECT 1;\n", /*terminal=*/true);
  EXPECT_EQ(run.status, 210);
  EXPECT_THAT(run.err, HasSubstr("127.0.0.1:" + std::to_string(dead_port)));
}

TEST_F(ClientTest, InsertStreamsStdinAsOneMebibyteChunks) {
  server_.service().SetAnswer("INSERT INTO t FORMAT CSV", {{StatsResult(0)}});
  std::string data;
  for (int i = 0; data.size() < 2 * kInputChunkSize + kInputChunkSize / 2; ++i) {
    data += std::to_string(i) + ",row\n";
  }
  options_.query = "INSERT INTO t FORMAT CSV";
  ClientRun run = Run(data, /*terminal=*/false);
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.err, "");

  auto calls = server_.service().Calls();
  ASSERT_EQ(calls.size(), 1u);
  const std::vector<QueryInfo>& messages = calls[0];
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0].query(), "INSERT INTO t FORMAT CSV");
  std::string received;
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(messages[i].next_query_info()) << i;
    EXPECT_EQ(messages[i].input_data().size(), i < 2 ? kInputChunkSize : data.size() % kInputChunkSize);
    received += messages[i].input_data();
  }
  EXPECT_EQ(received, data);
  EXPECT_EQ(messages[3].query(), "");
  EXPECT_TRUE(messages[3].input_data().empty());
  EXPECT_FALSE(messages[3].next_query_info());
}

TEST_F(ClientTest, InsertWithEmptyStdinSendsOneMessage) {
  server_.service().SetAnswer("INSERT INTO t VALUES (1)", {{StatsResult(0)}});
  options_.query = "INSERT INTO t VALUES (1)";
  EXPECT_EQ(Run("", /*terminal=*/false).status, 0);
  auto calls = server_.service().Calls();
  ASSERT_EQ(calls.size(), 1u);
  ASSERT_EQ(calls[0].size(), 1u);
  EXPECT_FALSE(calls[0][0].next_query_info());
}

TEST_F(ClientTest, SelectDoesNotConsumeStdin) {
  options_.query = "SELECT 1";
  ClientRun run = Run("1,2\n", /*terminal=*/false);
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "1\n");
  auto calls = server_.service().Calls();
  ASSERT_EQ(calls.size(), 1u);
  ASSERT_EQ(calls[0].size(), 1u);
  EXPECT_TRUE(calls[0][0].input_data().empty());
}

TEST_F(ClientTest, QueryWithSeveralStatementsRunsThemAll) {
  options_.query = "SELECT 1; SELECT 2;";
  ClientRun run = Run("", /*terminal=*/true);
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "1\n2\n");
  EXPECT_THAT(Queries(), ElementsAre("SELECT 1", "SELECT 2"));
  auto calls = server_.service().Calls();
  EXPECT_EQ(calls[0][0].session_id(), calls[1][0].session_id());
  EXPECT_NE(calls[0][0].query_id(), calls[1][0].query_id());
}

TEST_F(ClientTest, BatchModeRunsStatementsInOrderAndStopsAtFirstError) {
  server_.service().SetAnswer("-- a comment; still a comment\nBAD",
                              {{ExceptionResult(62, "SYNTAX_ERROR", "Syntax error")}});
  ClientRun run = Run("SELECT 1;\n-- a comment; still a comment\nBAD;\nSELECT 2;\n", false);
  EXPECT_EQ(run.status, 62);
  EXPECT_EQ(run.out, "1\n");
  EXPECT_THAT(run.err, HasSubstr("(SYNTAX_ERROR)"));
  EXPECT_THAT(Queries(), ElementsAre("SELECT 1", "-- a comment; still a comment\nBAD"));
}

TEST_F(ClientTest, BatchModeRunsTrailingStatementWithoutSemicolon) {
  server_.service().SetAnswer("SELECT 'a;b'", {{OutputResult("a;b\n")}});
  ClientRun run = Run("SELECT 1;\nSELECT 'a;b'\n", /*terminal=*/false);
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "1\na;b\n");
  EXPECT_THAT(Queries(), ElementsAre("SELECT 1", "SELECT 'a;b'"));
}

TEST_F(ClientTest, InteractiveLoopRunsMultiLineStatementsAndSurvivesErrors) {
  server_.service().SetAnswer("SELECT\n1", {{OutputResult("┌─1─┐\n│ 1 │\n└───┘\n"), StatsResult(1)}});
  server_.service().SetAnswer("CREATE TABLE t", {{StatsResult(0)}});
  ClientRun run = Run("SELECT\n1;\n\nBAD;\nSELECT 2; CREATE TABLE t;\nexit\nSELECT 1;\n", true);
  EXPECT_EQ(run.status, 0);
  EXPECT_THAT(Queries(), ElementsAre("SELECT version()", "SELECT\n1", "BAD", "SELECT 2",
                                     "CREATE TABLE t"));
  auto calls = server_.service().Calls();
  EXPECT_EQ(calls[0][0].output_format(), "TabSeparated");
  EXPECT_EQ(calls[1][0].output_format(), "PrettyCompact");

  EXPECT_THAT(run.out, StartsWith("Connecting to 127.0.0.1:" + std::to_string(server_.port()) +
                                  " as user default.\nConnected to granite server version 0.1.0."));
  EXPECT_THAT(run.out, HasSubstr("granite :) granite :-] ┌─1─┐\n│ 1 │\n└───┘\n"));
  EXPECT_THAT(run.out, HasSubstr("granite :) 2\nOk.\ngranite :) "));
  EXPECT_THAT(run.out, HasSubstr("\nBye.\n"));
  EXPECT_THAT(run.err, HasSubstr("1 row in set. Elapsed: "));
  EXPECT_THAT(run.err, HasSubstr("0 rows in set. Elapsed: "));
  EXPECT_THAT(run.err, HasSubstr("Received exception from server:\nCode: 62. DB::Exception: "
                                 "Syntax error: failed at position 1 ('BAD'). (SYNTAX_ERROR)\n"));
}

TEST_F(ClientTest, InteractiveLoopEndsAtEofAndUsesGivenFormat) {
  options_.format = "TSV";
  ClientRun run = Run("SELECT 1;\nquit;", /*terminal=*/true);
  EXPECT_EQ(run.status, 0);
  EXPECT_THAT(Queries(), ElementsAre("SELECT version()", "SELECT 1"));
  EXPECT_EQ(server_.service().Calls()[1][0].output_format(), "TSV");
  options_.format = "";
  run = Run("SELECT 2;", /*terminal=*/true);  // EOF without exit.
  EXPECT_EQ(run.status, 0);
  EXPECT_THAT(run.out, HasSubstr("\nBye.\n"));
}

TEST_F(ClientTest, InteractiveFlagRunsQueryThenLoop) {
  options_.query = "SELECT 1";
  options_.interactive = true;
  ClientRun run = Run("SELECT 2;\n", /*terminal=*/true);
  EXPECT_EQ(run.status, 0);
  EXPECT_THAT(Queries(), ElementsAre("SELECT 1", "SELECT version()", "SELECT 2"));
}

TEST_F(ClientTest, CtrlCCancelsRunningInteractiveQuery) {
  absl::Notification waiting;
  CannedAnswer slow{{OutputResult("partial\n")}, /*wait_for_cancel=*/true};
  slow.before_wait = [&waiting] { waiting.Notify(); };
  server_.service().SetAnswer("SELECT sleep(100)", slow);
  std::thread presser([&waiting] {
    waiting.WaitForNotification();
    kill(getpid(), SIGINT);
  });
  ClientRun run = Run("SELECT sleep(100);\nSELECT 1;\n", /*terminal=*/true);
  presser.join();
  EXPECT_EQ(run.status, 0);
  EXPECT_THAT(run.out, HasSubstr("partial\n"));
  EXPECT_THAT(run.err, HasSubstr("Query was cancelled.\n"));
  EXPECT_THAT(Queries(), ElementsAre("SELECT version()", "SELECT sleep(100)", "SELECT 1"));
  auto calls = server_.service().Calls();
  ASSERT_EQ(calls[1].size(), 2u);
  EXPECT_TRUE(calls[1][1].cancel());
  // Only SELECT 1 reports its rows; the cancelled query does not.
  EXPECT_THAT(run.err, HasSubstr("1 row in set."));
  EXPECT_THAT(run.err, Not(HasSubstr("rows in set")));
}

}  // namespace
}  // namespace granite::client
