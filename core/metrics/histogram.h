// Histogram: a latency distribution kept in per-thread counter slots (thread_counters.h), so an
// observation is a few compares and two plain adds on the observing thread's own cache lines.
// Readers sum the slots into Prometheus-style cumulative buckets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace granite::core {

struct HistogramSnapshot {
  std::vector<double> upper_bounds_seconds;  // ascending, without +Inf
  std::vector<uint64_t> cumulative_counts;   // one per bound, then one for +Inf (= count)
  uint64_t count = 0;
  double sum_seconds = 0;
};

// Counts observations into fixed buckets.
// Thread-safety: Observe() from any thread; Snapshot() from any thread.
// Invariants: the histogram owns slots [slot_base, slot_base + bounds + 2) of kHistogramSlots.
class Histogram {
 public:
  // REQUIRES: `upper_bounds_us` ascending and alive for the program's lifetime; slots in range.
  Histogram(std::string_view family, std::string_view description, const uint64_t* upper_bounds_us,
            size_t bound_count, size_t slot_base);

  void ObserveMicroseconds(uint64_t micros) const;
  HistogramSnapshot Snapshot() const;

  std::string_view family() const { return family_; }  // e.g. granite_query_duration_seconds
  std::string_view description() const { return description_; }

 private:
  std::string_view family_;
  std::string_view description_;
  const uint64_t* bounds_us_;
  size_t bound_count_;
  size_t slot_base_;  // absolute slot of bucket 0; then the +Inf bucket, then the sum
};

// The duration of client queries on the coordinator, from arrival to the last result byte.
const Histogram& QueryDurationHistogram();

}  // namespace granite::core
