#include "core/metrics/callback_metrics.h"

#include <sys/resource.h>

#include <map>

#include "core/memory/memory_tracker.h"
#include "core/process.h"

namespace granite::core {
namespace {

struct Entry {
  CallbackMetricInfo info;
  CallbackReader read;
};

// Registered callbacks by id (ids grow, so iteration is in registration order).
struct CallbackRegistry {
  SharedMutex mu{"metrics_registry"};
  uint64_t next_id GUARDED_BY(mu) = 1;
  std::map<uint64_t, Entry> entries GUARDED_BY(mu);
};

CallbackRegistry& Registry() {
  static CallbackRegistry* registry = new CallbackRegistry();
  return *registry;
}

int64_t CpuMicroseconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto micros = [](const timeval& t) { return int64_t{t.tv_sec} * 1000000 + t.tv_usec; };
  return micros(usage.ru_utime) + micros(usage.ru_stime);
}

void AddBuiltin(std::vector<CallbackMetricValues>* out, std::string family, std::string name,
                std::string description, int64_t value,
                CallbackMetricType type = CallbackMetricType::kGauge, double scale = 1) {
  CallbackMetricValues values;
  values.info = {std::move(family), std::move(name), std::move(description), type, scale};
  values.samples.push_back({{}, value});
  out->push_back(std::move(values));
}

}  // namespace

CallbackRegistration& CallbackRegistration::operator=(CallbackRegistration&& other) noexcept {
  if (this != &other) {
    CallbackRegistration dropped(id_);
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

CallbackRegistration::~CallbackRegistration() {
  if (id_ == 0) return;
  CallbackRegistry& registry = Registry();
  WriterLock lock(registry.mu);
  registry.entries.erase(id_);
}

CallbackRegistration RegisterCallbackMetric(CallbackMetricInfo info, CallbackReader read) {
  CallbackRegistry& registry = Registry();
  WriterLock lock(registry.mu);
  uint64_t id = registry.next_id++;
  registry.entries.emplace(id, Entry{std::move(info), std::move(read)});
  return CallbackRegistration(id);
}

CallbackRegistration RegisterGauge(std::string family, std::string system_name,
                                   std::string description, std::function<int64_t()> read) {
  CallbackMetricInfo info{std::move(family), std::move(system_name), std::move(description)};
  return RegisterCallbackMetric(std::move(info), [read = std::move(read)] {
    return std::vector<CallbackSample>{{{}, read()}};
  });
}

std::vector<CallbackMetricValues> ReadCallbackMetrics() {
  std::vector<CallbackMetricValues> out;
  AddBuiltin(&out, "granite_jemalloc_allocated_bytes", "JemallocAllocatedBytes",
             "Bytes in live allocations (jemalloc stats.allocated)",
             static_cast<int64_t>(JemallocStat("stats.allocated")));
  AddBuiltin(&out, "granite_jemalloc_resident_bytes", "JemallocResidentBytes",
             "Bytes in physically resident pages of the allocator (jemalloc stats.resident)",
             static_cast<int64_t>(JemallocStat("stats.resident")));
  AddBuiltin(&out, "granite_jemalloc_mapped_bytes", "JemallocMappedBytes",
             "Bytes in extents mapped by the allocator (jemalloc stats.mapped)",
             static_cast<int64_t>(JemallocStat("stats.mapped")));
  AddBuiltin(&out, "granite_tracked_memory_bytes", "MemoryTracking",
             "Bytes counted by the memory tracker, under max_server_memory_usage "
             "(core/memory/memory_tracker.h)",
             ServerMemoryTracker().current());
  AddBuiltin(&out, "process_cpu_seconds_total", "ProcessCpuMicroseconds",
             "User and system CPU time of this process", CpuMicroseconds(),
             CallbackMetricType::kCounter, 1e-6);
  // Not "counter" in the name: Prometheus reserves type names (promtool check metrics).
  AddBuiltin(&out, "granite_metrics_thread_blocks", "MetricsThreadBlocks",
             "Per-thread counter blocks (the peak number of threads that counted at once)",
             static_cast<int64_t>(ThreadCounters::BlockCount()));
  CallbackRegistry& registry = Registry();
  ReaderLock lock(registry.mu);
  for (const auto& [id, entry] : registry.entries) {
    out.push_back({entry.info, entry.read()});
  }
  return out;
}

}  // namespace granite::core
