#include "core/metrics/prometheus_exporter.h"

#include <deque>
#include <iterator>
#include <limits>
#include <map>
#include <stdexcept>

#include "absl/strings/str_split.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "prometheus/collectable.h"
#include "prometheus/exposer.h"
#include "prometheus/text_serializer.h"

namespace granite::core {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

// Collects families by name, keeping the order in which they first appear. References returned by
// Get() stay valid (a deque never moves its elements on push_back).
class FamilyList {
 public:
  MetricFamily& Get(const std::string& name, const std::string& help, MetricType type) {
    auto [it, inserted] = index_.emplace(name, families_.size());
    if (inserted) families_.push_back({name, help, type, {}});
    return families_[it->second];
  }
  std::vector<MetricFamily> Take() {
    return std::vector<MetricFamily>(std::make_move_iterator(families_.begin()),
                                     std::make_move_iterator(families_.end()));
  }

 private:
  std::map<std::string, size_t> index_;
  std::deque<MetricFamily> families_;
};

std::vector<ClientMetric::Label> ParseLabels(std::string_view labels) {
  std::vector<ClientMetric::Label> out;
  if (labels.empty()) return out;
  for (absl::string_view pair : absl::StrSplit(ToAbsl(labels), ',')) {
    std::pair<std::string, std::string> kv = absl::StrSplit(pair, absl::MaxSplits('=', 1));
    out.push_back({kv.first, kv.second});
  }
  return out;
}

void AddLockFamilies(const MetricsSnapshot& snapshot, FamilyList* families) {
  MetricFamily& acquisitions =
      families->Get("granite_lock_acquisitions_total",
                    "Acquisitions of each named lock (shared and exclusive)", MetricType::Counter);
  MetricFamily& contended = families->Get(
      "granite_lock_contended_total", "Acquisitions of each named lock that had to wait",
      MetricType::Counter);
  MetricFamily& wait = families->Get("granite_lock_wait_seconds_total",
                                     "Time threads spent waiting for each named lock",
                                     MetricType::Counter);
  for (const LockTotals& lock : snapshot.locks) {
    std::vector<ClientMetric::Label> labels = {{"lock", lock.name}};
    ClientMetric metric;
    metric.label = labels;
    metric.counter.value = static_cast<double>(lock.acquisitions);
    acquisitions.metric.push_back(metric);
    metric.counter.value = static_cast<double>(lock.contended);
    contended.metric.push_back(metric);
    metric.counter.value = static_cast<double>(lock.wait_ns) / 1e9;
    wait.metric.push_back(metric);
  }
}

// Returns the help text of a family whose events differ by labels (events.h).
std::string LabelledFamilyHelp(std::string_view family) {
  if (family == "granite_queries_total") {
    return "Client queries that ended on the coordinator, by kind (select, insert, ddl, other) "
           "and status (ok, error, cancelled)";
  }
  return "Events of " + std::string(family) + ", one sample per label set";
}

void AddEventFamilies(const MetricsSnapshot& snapshot, FamilyList* families) {
  const auto& events = AllEvents();
  for (size_t i = 0; i < kEventCount; ++i) {
    const EventInfo& event = events[i];
    // A family shared by several labelled events says what its samples count and by which labels.
    std::string help = event.labels.empty() ? std::string(event.description)
                                            : LabelledFamilyHelp(event.family);
    MetricFamily& family = families->Get(std::string(event.family), help, MetricType::Counter);
    ClientMetric metric;
    metric.label = ParseLabels(event.labels);
    double value = static_cast<double>(snapshot.events[i]);
    metric.counter.value = event.unit == EventUnit::kMicroseconds ? value / 1e6 : value;
    family.metric.push_back(std::move(metric));
  }
}

void AddHistogram(const std::string& name, const std::string& help,
                  const HistogramSnapshot& histogram, FamilyList* families) {
  MetricFamily& family = families->Get(name, help, MetricType::Histogram);
  ClientMetric metric;
  metric.histogram.sample_count = histogram.count;
  metric.histogram.sample_sum = histogram.sum_seconds;
  for (size_t i = 0; i < histogram.upper_bounds_seconds.size(); ++i) {
    metric.histogram.bucket.push_back(
        {histogram.cumulative_counts[i], histogram.upper_bounds_seconds[i]});
  }
  metric.histogram.bucket.push_back(
      {histogram.count, std::numeric_limits<double>::infinity()});
  family.metric.push_back(std::move(metric));
}

void AddCallbackFamilies(const MetricsSnapshot& snapshot, FamilyList* families) {
  for (const CallbackMetricValues& values : snapshot.callbacks) {
    bool counter = values.info.type == CallbackMetricType::kCounter;
    MetricFamily& family = families->Get(values.info.family, values.info.description,
                                         counter ? MetricType::Counter : MetricType::Gauge);
    for (const CallbackSample& sample : values.samples) {
      ClientMetric metric;
      for (const auto& [name, value] : sample.labels) metric.label.push_back({name, value});
      double value = static_cast<double>(sample.value) * values.info.prometheus_scale;
      if (counter) {
        metric.counter.value = value;
      } else {
        metric.gauge.value = value;
      }
      family.metric.push_back(std::move(metric));
    }
  }
}

class SnapshotCollectable : public prometheus::Collectable {
 public:
  std::vector<MetricFamily> Collect() const override {
    return ToPrometheusFamilies(TakeMetricsSnapshot());
  }
};

}  // namespace

std::vector<MetricFamily> ToPrometheusFamilies(const MetricsSnapshot& snapshot) {
  FamilyList families;
  AddLockFamilies(snapshot, &families);
  AddEventFamilies(snapshot, &families);
  AddHistogram("granite_query_duration_seconds", "Duration of client queries on the coordinator",
               snapshot.query_duration, &families);
  AddCallbackFamilies(snapshot, &families);
  return families.Take();
}

std::string RenderPrometheusText() {
  return prometheus::TextSerializer().Serialize(ToPrometheusFamilies(TakeMetricsSnapshot()));
}

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(const std::string& host,
                                                                    int port) {
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  server->host_ = host;
  std::string bind_host = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  std::string address = bind_host + ":" + std::to_string(port);
  // civetweb reports a failed bind by throwing; this is the one place granite catches.
  try {
    server->exposer_ = std::make_unique<prometheus::Exposer>(address, 2);
  } catch (const std::exception& e) {
    return Error(ErrorCode::kBadArguments,
                 "Cannot serve metrics on " + address + ": " + std::string(e.what()));
  }
  server->collectable_ = std::make_shared<SnapshotCollectable>();
  server->exposer_->RegisterCollectable(server->collectable_);
  std::vector<int> ports = server->exposer_->GetListeningPorts();
  server->port_ = ports.empty() ? port : ports[0];
  return server;
}

MetricsServer::~MetricsServer() = default;

std::string MetricsServer::url() const {
  std::string host = host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_;
  return "http://" + host + ":" + std::to_string(port_) + "/metrics";
}

void MetricsServer::AbandonAtExit(std::unique_ptr<MetricsServer> server) {
  // Kept reachable (so leak checkers stay quiet) and never destroyed: the process exit ends
  // civetweb's threads.
  static Mutex* mu = new Mutex("metrics_server_abandoned");
  static std::vector<MetricsServer*>* abandoned = new std::vector<MetricsServer*>();
  MutexLock lock(*mu);
  abandoned->push_back(server.release());
}

}  // namespace granite::core
