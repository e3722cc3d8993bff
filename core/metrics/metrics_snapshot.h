// MetricsSnapshot: everything one process counts, read at one moment — event totals, lock totals,
// callback metrics (gauges) and histograms. The Prometheus endpoint, system.events /
// system.metrics / system.locks and the worker's GetMetrics RPC all render the same snapshot.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/metrics/callback_metrics.h"
#include "core/metrics/events.h"
#include "core/metrics/histogram.h"
#include "core/mutex.h"

namespace granite::core {

struct MetricsSnapshot {
  std::array<uint64_t, kEventCount> events{};  // indexed by Event
  std::vector<LockTotals> locks;                // sorted by name
  std::vector<CallbackMetricValues> callbacks;
  HistogramSnapshot query_duration;
};

// Reads every counter of this process.
MetricsSnapshot TakeMetricsSnapshot();

// One row of system.events or system.metrics.
struct MetricRow {
  std::string name;
  int64_t value = 0;
  std::string description;
};

// Rows for system.events: every declared event, in declaration order.
std::vector<MetricRow> EventRows(const MetricsSnapshot& snapshot);

// Rows for system.metrics: every callback metric sample; a labelled sample is named like
// `WorkerUp{worker="0"}`.
std::vector<MetricRow> CallbackRows(const MetricsSnapshot& snapshot);

// What one process reports to system.events / system.metrics / system.locks: the worker API's
// GetMetrics answer (core/wire/worker_codec.h), and the coordinator's own rows.
struct MetricsReport {
  std::vector<MetricRow> events;   // EventRows
  std::vector<MetricRow> metrics;  // CallbackRows
  std::vector<LockTotals> locks;   // sorted by name
};

// Returns the rows of `snapshot`.
MetricsReport ReportOf(const MetricsSnapshot& snapshot);

}  // namespace granite::core
