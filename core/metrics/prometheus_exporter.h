// The Prometheus endpoint of a granite process: a prometheus-cpp Exposer (civetweb) serving
// /metrics with a custom Collectable, so each scrape reads granite's own counters at that moment
// (MetricsSnapshot) instead of mirroring them into prometheus-cpp's metric objects.
//
// Exported families (all processes): granite_lock_{acquisitions,contended}_total{lock},
// granite_lock_wait_seconds_total{lock}, every event of events.h (by its family and labels), the
// granite_query_duration_seconds histogram, and every callback metric (callback_metrics.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/metrics/metrics_snapshot.h"
#include "prometheus/metric_family.h"

namespace prometheus {
class Exposer;
class Collectable;
}  // namespace prometheus

namespace granite::core {

// Converts a snapshot to Prometheus metric families (base units: seconds, bytes).
std::vector<prometheus::MetricFamily> ToPrometheusFamilies(const MetricsSnapshot& snapshot);

// Renders ToPrometheusFamilies(TakeMetricsSnapshot()) in the text exposition format.
std::string RenderPrometheusText();

// Serves /metrics over HTTP.
// Thread-safety: scrapes run on civetweb's threads; Start and destruction from one thread.
class MetricsServer {
 public:
  // Listens on host:port (port 0 = ephemeral). BAD_ARGUMENTS naming the address if it cannot bind.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(const std::string& host, int port);
  // Stops serving. Takes about 2 s once a request was served (civetweb's shutdown).
  ~MetricsServer();

  int port() const { return port_; }
  // "http://host:port/metrics"
  std::string url() const;

  // Lets a process that is about to exit skip the slow civetweb shutdown: the server keeps serving
  // until the process ends.
  static void AbandonAtExit(std::unique_ptr<MetricsServer> server);

 private:
  MetricsServer() = default;

  std::string host_;
  int port_ = 0;
  std::shared_ptr<prometheus::Collectable> collectable_;
  std::unique_ptr<prometheus::Exposer> exposer_;
};

}  // namespace granite::core
