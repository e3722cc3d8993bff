#include "core/aggregation/hash_table_stats.h"

namespace granite::core {

HashTableStats::HashTableStats(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

HashTableStats& HashTableStats::Global() {
  static HashTableStats* const stats = new HashTableStats();
  return *stats;
}

std::optional<size_t> HashTableStats::Lookup(uint64_t shape) const {
  ReaderLock lock(mu_);
  auto it = groups_.find(shape);
  if (it == groups_.end()) return std::nullopt;
  return it->second;
}

void HashTableStats::Record(uint64_t shape, size_t groups) {
  {
    // Most calls repeat a known shape with a similar size: skip the exclusive lock then.
    ReaderLock lock(mu_);
    auto it = groups_.find(shape);
    if (it != groups_.end() && it->second == groups) return;
  }
  WriterLock lock(mu_);
  auto [it, inserted] = groups_.try_emplace(shape, groups);
  if (!inserted) {
    it->second = groups;
    return;
  }
  order_.push_back(shape);
  while (order_.size() > capacity_) {
    groups_.erase(order_.front());
    order_.pop_front();
  }
}

size_t HashTableStats::size() const {
  ReaderLock lock(mu_);
  return groups_.size();
}

}  // namespace granite::core
