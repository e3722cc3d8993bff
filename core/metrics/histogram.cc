#include "core/metrics/histogram.h"

#include "core/metrics/thread_counters.h"

namespace granite::core {

Histogram::Histogram(std::string_view family, std::string_view description,
                     const uint64_t* upper_bounds_us, size_t bound_count, size_t slot_base)
    : family_(family),
      description_(description),
      bounds_us_(upper_bounds_us),
      bound_count_(bound_count),
      slot_base_(kHistogramSlotBase + slot_base) {}

void Histogram::ObserveMicroseconds(uint64_t micros) const {
  size_t bucket = 0;
  while (bucket < bound_count_ && micros > bounds_us_[bucket]) ++bucket;
  ThreadCounters& counters = ThreadCounters::Local();
  counters.Add(slot_base_ + bucket, 1);
  counters.Add(slot_base_ + bound_count_ + 1, micros);
}

HistogramSnapshot Histogram::Snapshot() const {
  std::vector<uint64_t> slots(bound_count_ + 2);
  ThreadCounters::SumRange(slot_base_, slots.size(), slots.data());
  HistogramSnapshot snapshot;
  uint64_t running = 0;
  for (size_t i = 0; i <= bound_count_; ++i) {
    running += slots[i];
    snapshot.cumulative_counts.push_back(running);
    if (i < bound_count_) snapshot.upper_bounds_seconds.push_back(bounds_us_[i] / 1e6);
  }
  snapshot.count = running;
  snapshot.sum_seconds = slots[bound_count_ + 1] / 1e6;
  return snapshot;
}

const Histogram& QueryDurationHistogram() {
  static constexpr uint64_t kBoundsUs[] = {500,     1000,    2000,    5000,     10000,    20000,
                                           50000,   100000,  200000,  500000,   1000000,  2000000,
                                           5000000, 10000000, 30000000, 60000000};
  static constexpr size_t kBoundCount = sizeof(kBoundsUs) / sizeof(kBoundsUs[0]);
  static_assert(kBoundCount + 2 <= kHistogramSlots);
  static const Histogram histogram("granite_query_duration_seconds",
                                   "Duration of client queries on the coordinator", kBoundsUs,
                                   kBoundCount, 0);
  return histogram;
}

}  // namespace granite::core
