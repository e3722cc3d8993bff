#include "core/metrics/prometheus_exporter.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "core/metrics/events.h"
#include "core/mutex.h"
#include "gtest/gtest.h"

namespace granite::core {
namespace {

bool Contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// Returns the value of the sample line that starts with `series` (name and labels), or -1.
double SampleValue(const std::string& text, const std::string& series) {
  size_t at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

TEST(PrometheusExporterTest, RendersLocksEventsHistogramAndCallbacks) {
  Mutex mu("prometheus_test_lock");
  {
    MutexLock lock(mu);
  }
  CountEvent(Event::kSelectQueriesSucceeded, 2);
  CountEvent(Event::kMergeMicroseconds, 1500000);
  QueryDurationHistogram().ObserveMicroseconds(3000);
  CallbackRegistration registration = RegisterCallbackMetric(
      {"granite_test_worker_up", "TestWorkerUp", "Test gauge", CallbackMetricType::kGauge, 1},
      [] {
        return std::vector<CallbackSample>{{{{"worker", "0"}}, 1}, {{{"worker", "1"}}, 0}};
      });
  std::string text = RenderPrometheusText();
  EXPECT_TRUE(Contains(text, "# TYPE granite_lock_acquisitions_total counter")) << text;
  EXPECT_GE(SampleValue(text, "granite_lock_acquisitions_total{lock=\"prometheus_test_lock\"}"), 1);
  EXPECT_EQ(SampleValue(text, "granite_lock_contended_total{lock=\"prometheus_test_lock\"}"), 0);
  EXPECT_EQ(SampleValue(text, "granite_lock_wait_seconds_total{lock=\"prometheus_test_lock\"}"), 0);
  EXPECT_GE(SampleValue(text, "granite_queries_total{kind=\"select\",status=\"ok\"}"), 2);
  EXPECT_EQ(SampleValue(text, "granite_queries_total{kind=\"insert\",status=\"error\"}"), 0);
  EXPECT_GE(SampleValue(text, "granite_merge_seconds_total"), 1.5);  // microseconds → seconds
  EXPECT_TRUE(Contains(text, "# TYPE granite_query_duration_seconds histogram"));
  EXPECT_GE(SampleValue(text, "granite_query_duration_seconds_bucket{le=\"0.005\"}"), 1);
  EXPECT_GE(SampleValue(text, "granite_query_duration_seconds_count"), 1);
  EXPECT_EQ(SampleValue(text, "granite_test_worker_up{worker=\"0\"}"), 1);
  EXPECT_EQ(SampleValue(text, "granite_test_worker_up{worker=\"1\"}"), 0);
  EXPECT_TRUE(Contains(text, "# TYPE granite_jemalloc_allocated_bytes gauge"));
  EXPECT_TRUE(Contains(text, "# TYPE process_cpu_seconds_total counter"));
  // The family of granite_queries_total appears once, with all its label sets.
  EXPECT_EQ(text.find("# TYPE granite_queries_total"),
            text.rfind("# TYPE granite_queries_total"));
}

TEST(PrometheusExporterTest, UnregisteredCallbacksDisappear) {
  {
    CallbackRegistration registration =
        RegisterGauge("granite_test_transient", "TestTransient", "Test", [] { return 7; });
    EXPECT_EQ(SampleValue(RenderPrometheusText(), "granite_test_transient"), 7);
  }
  EXPECT_FALSE(Contains(RenderPrometheusText(), "granite_test_transient"));
}

std::string HttpGet(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return "";
  }
  std::string request = "GET " + path + " HTTP/1.0\r\nHost: localhost\r\n\r\n";
  send(fd, request.data(), request.size(), 0);
  std::string response;
  char buffer[4096];
  ssize_t n;
  while ((n = recv(fd, buffer, sizeof(buffer), 0)) > 0) response.append(buffer, n);
  close(fd);
  return response;
}

TEST(PrometheusExporterTest, ServesMetricsOverHttp) {
  absl::StatusOr<std::unique_ptr<MetricsServer>> server = MetricsServer::Start("127.0.0.1", 0);
  ASSERT_TRUE(server.ok()) << server.status();
  ASSERT_GT((*server)->port(), 0);
  EXPECT_EQ((*server)->url(), "http://127.0.0.1:" + std::to_string((*server)->port()) + "/metrics");
  CountEvent(Event::kReadRows, 11);
  std::string response = HttpGet((*server)->port(), "/metrics");
  EXPECT_TRUE(Contains(response, "200 OK")) << response;
  EXPECT_TRUE(Contains(response, "granite_rows_read_total ")) << response;
  // A second server on the same port cannot bind: an error naming the address, no exception.
  absl::StatusOr<std::unique_ptr<MetricsServer>> clash =
      MetricsServer::Start("127.0.0.1", (*server)->port());
  EXPECT_FALSE(clash.ok());
  EXPECT_TRUE(Contains(std::string(clash.status().message()),
                       "127.0.0.1:" + std::to_string((*server)->port())));
  // Destroying a server that served a request takes ~2 s (civetweb); the test does not wait.
  MetricsServer::AbandonAtExit(std::move(*server));
}

}  // namespace
}  // namespace granite::core
