// Callback metrics: values computed when read — gauges such as running queries, active parts,
// jemalloc's allocated bytes, or whether each worker is up — registered by the component that owns
// the state. They show in system.metrics and on the Prometheus endpoint.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/mutex.h"

namespace granite::core {

enum class CallbackMetricType { kGauge, kCounter };

struct CallbackMetricInfo {
  std::string family;       // Prometheus family, e.g. "granite_running_queries"
  std::string system_name;  // system.metrics name, e.g. "RunningQueries"
  std::string description;
  CallbackMetricType type = CallbackMetricType::kGauge;
  double prometheus_scale = 1;  // multiplies the value on export (microseconds → seconds: 1e-6)
};

// One sample of a callback metric: its labels (may be empty) and value.
struct CallbackSample {
  std::vector<std::pair<std::string, std::string>> labels;
  int64_t value = 0;
};

using CallbackReader = std::function<std::vector<CallbackSample>()>;

// The values of one callback metric at the time of the read.
struct CallbackMetricValues {
  CallbackMetricInfo info;
  std::vector<CallbackSample> samples;
};

// Keeps a callback registered while alive; destroying it unregisters the callback and waits for
// reads in flight, so the callback may refer to state that dies right after the registration.
class CallbackRegistration {
 public:
  CallbackRegistration() = default;
  explicit CallbackRegistration(uint64_t id) : id_(id) {}
  CallbackRegistration(CallbackRegistration&& other) noexcept : id_(std::exchange(other.id_, 0)) {}
  CallbackRegistration& operator=(CallbackRegistration&& other) noexcept;
  ~CallbackRegistration();

 private:
  uint64_t id_ = 0;
};

// Registers `read`, called (under the registry's shared lock) on every scrape and system.metrics
// read. REQUIRES: `read` never registers or unregisters callbacks itself.
[[nodiscard]] CallbackRegistration RegisterCallbackMetric(CallbackMetricInfo info,
                                                          CallbackReader read);

// Shorthand for a gauge with one unlabelled sample.
[[nodiscard]] CallbackRegistration RegisterGauge(std::string family, std::string system_name,
                                                 std::string description,
                                                 std::function<int64_t()> read);

// Reads every registered callback metric, plus the built-in process metrics (jemalloc bytes, CPU
// seconds, counter blocks), in registration order.
std::vector<CallbackMetricValues> ReadCallbackMetrics();

}  // namespace granite::core
