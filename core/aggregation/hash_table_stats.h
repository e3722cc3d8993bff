// HashTableStats: remembers, per query shape, how many groups the largest per-thread GROUP BY
// table reached, so the next run of that shape creates its tables at their final size
// (ClickHouse's HashTablesStatistics, setting collect_hash_table_stats_during_aggregation).
//
// Why: a thread's table of a high-cardinality GROUP BY (two integer keys, 10M rows: ~2.5M groups a
// thread) grew 4 -> 16 -> ... slots, then converted to two-level (a second full copy), and every
// new array was memset on fresh pages: perf of a worker put ~30% in the kernel's clear_page,
// 7% in ConvertToTwoLevel and 6% in Grow. A table presized from the last run's size
// (Aggregator::Presize) is allocated once, two-level from the start when that size is past the
// conversion threshold, and its sub-tables are small enough for jemalloc to reuse across queries.
//
// The key (ShapeKey) is a hash of everything that decides the table's size: the source table and
// columns, the filter, the GROUP BY keys and the aggregates. Each worker process has its own cache
// (Global()), so each records the sizes of its own data.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "core/mutex.h"
#include "core/thread_annotations.h"

namespace granite::core {

// A bounded map from query-shape hash to the largest per-thread group count of its last run.
// Thread-safety: thread-safe; lookups take a shared lock (read-mostly), updates an exclusive one.
class HashTableStats {
 public:
  static constexpr size_t kDefaultCapacity = 1000;

  // Keeps at most `capacity` shapes; past it the oldest recorded shape is dropped (FIFO).
  explicit HashTableStats(size_t capacity = kDefaultCapacity);
  HashTableStats(const HashTableStats&) = delete;
  HashTableStats& operator=(const HashTableStats&) = delete;

  // The process-wide cache used by FragmentPipeline.
  static HashTableStats& Global();

  // Returns the groups recorded for `shape`, if any.
  std::optional<size_t> Lookup(uint64_t shape) const;
  // Records `groups` for `shape` (replacing an older value, so a shrinking input shrinks it).
  void Record(uint64_t shape, size_t groups);

  size_t size() const;
  size_t capacity() const { return capacity_; }

 private:
  const size_t capacity_;
  mutable SharedMutex mu_{"hash_table_stats"};
  absl::flat_hash_map<uint64_t, size_t> groups_ GUARDED_BY(mu_);
  std::deque<uint64_t> order_ GUARDED_BY(mu_);  // shapes in insertion order
};

}  // namespace granite::core
