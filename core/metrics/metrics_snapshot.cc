#include "core/metrics/metrics_snapshot.h"

namespace granite::core {

MetricsSnapshot TakeMetricsSnapshot() {
  MetricsSnapshot snapshot;
  snapshot.events = EventTotals();
  snapshot.locks = AllLockTotals();
  snapshot.callbacks = ReadCallbackMetrics();
  snapshot.query_duration = QueryDurationHistogram().Snapshot();
  return snapshot;
}

std::vector<MetricRow> EventRows(const MetricsSnapshot& snapshot) {
  std::vector<MetricRow> rows;
  const auto& events = AllEvents();
  for (size_t i = 0; i < kEventCount; ++i) {
    rows.push_back({std::string(events[i].name), static_cast<int64_t>(snapshot.events[i]),
                    std::string(events[i].description)});
  }
  return rows;
}

std::vector<MetricRow> CallbackRows(const MetricsSnapshot& snapshot) {
  std::vector<MetricRow> rows;
  for (const CallbackMetricValues& metric : snapshot.callbacks) {
    for (const CallbackSample& sample : metric.samples) {
      std::string name = metric.info.system_name;
      if (!sample.labels.empty()) {
        name += '{';
        for (size_t i = 0; i < sample.labels.size(); ++i) {
          if (i > 0) name += ',';
          name += sample.labels[i].first + "=\"" + sample.labels[i].second + "\"";
        }
        name += '}';
      }
      rows.push_back({std::move(name), sample.value, metric.info.description});
    }
  }
  return rows;
}

MetricsReport ReportOf(const MetricsSnapshot& snapshot) {
  MetricsReport report;
  report.events = EventRows(snapshot);
  report.metrics = CallbackRows(snapshot);
  report.locks = snapshot.locks;
  return report;
}

}  // namespace granite::core
