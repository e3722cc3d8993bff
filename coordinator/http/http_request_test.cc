#include "coordinator/http/http_request.h"

#include "core/error.h"
#include "gtest/gtest.h"

namespace granite::coordinator::http {
namespace {

TEST(HttpRequestTest, ParsesQueryString) {
  auto params = ParseQueryString("query=SELECT+1%2C%272%27&x=&flag&session_id=a%20b");
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(params[0], (std::pair<std::string, std::string>("query", "SELECT 1,'2'")));
  EXPECT_EQ(params[1].second, "");
  EXPECT_EQ(params[2].first, "flag");
  EXPECT_EQ(params[3].second, "a b");
}

TEST(HttpRequestTest, PlansParametersHeadersAndSettings) {
  RequestParts request;
  request.method = "POST";
  request.params = {{"query", "SELECT 1"}, {"database", "default"}, {"session_id", "s"},
                    {"use_pruning", "0"}, {"enable_http_compression", "1"},
                    {"param_x", "5"}, {"wait_end_of_query", "1"}};
  request.headers = {{"x-clickhouse-user", "alice"}, {"x-clickhouse-key", "secret"},
                     {"x-clickhouse-format", "JSONEachRow"},
                     {"accept-encoding", "br, zstd;q=0.9, gzip"}};
  absl::StatusOr<RequestPlan> plan = PlanRequest(request);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->has_query_param);
  EXPECT_EQ(plan->info.query(), "SELECT 1");
  EXPECT_EQ(plan->info.user_name(), "alice");
  EXPECT_EQ(plan->info.password(), "secret");
  EXPECT_EQ(plan->info.output_format(), "JSONEachRow");
  EXPECT_EQ(plan->info.session_id(), "s");
  EXPECT_EQ(plan->info.settings().size(), 2u);  // the query setting and the query parameter
  EXPECT_EQ(plan->info.settings().at("use_pruning"), "0");
  EXPECT_EQ(plan->info.settings().at("param_x"), "5");
  EXPECT_EQ(plan->output_compression, "zstd");
}

TEST(HttpRequestTest, BasicAuthorizationAndDefaults) {
  RequestParts request;
  request.headers = {{"authorization", "Basic Ym9iOnB3"}};  // bob:pw
  absl::StatusOr<RequestPlan> plan = PlanRequest(request);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->info.user_name(), "bob");
  EXPECT_EQ(plan->info.password(), "pw");
  EXPECT_EQ(plan->info.output_format(), "TabSeparated");
  EXPECT_FALSE(plan->has_query_param);
  request.headers = {{"content-encoding", "brotli"}};
  EXPECT_EQ(core::CodeOf(PlanRequest(request).status()),
            core::ErrorCode::kUnknownCompressionMethod);
}

TEST(HttpRequestTest, FindsInsertData) {
  EXPECT_TRUE(StartsWithInsert("  -- c\n/* x */ insert INTO t VALUES"));
  EXPECT_FALSE(StartsWithInsert("SELECT 1"));
  EXPECT_FALSE(StartsWithInsert("INSERTED"));
  std::string body = std::string("INSERT INTO t (a) FORMAT Native\n") + std::string("\x01\x02", 2);
  EXPECT_EQ(InsertDataStart(body), body.size() - 2);
  EXPECT_EQ(InsertDataStart("INSERT INTO t format CSV  \r\n1,2\n"), 28u);
  EXPECT_EQ(InsertDataStart("INSERT INTO t VALUES (1)"), std::string_view::npos);
}

TEST(HttpRequestTest, StatusCodesFollowClickHouse) {
  EXPECT_EQ(HttpStatusFor(60), 404);
  EXPECT_EQ(HttpStatusFor(62), 400);
  EXPECT_EQ(HttpStatusFor(516), 403);
  EXPECT_EQ(HttpStatusFor(394), 500);
}

}  // namespace
}  // namespace granite::coordinator::http
