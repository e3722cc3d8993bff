// LocalMerger: the end of partial aggregation inside one worker. Merges the thread-local
// Aggregators (one per pool thread) in memory — states are moved or merged, never serialized — and
// cuts the result into kBucketCount partial blocks for the coordinator.
//
// Paths, chosen by the shape of the input:
//   - one thread, or a small result (fewer groups than options.parallel_threshold and fewer
//     bytes of tables and states than parallel_threshold_bytes): the single-level fast path, a
//     serial merge into the first aggregator, so a trivial count() by a few keys never pays for
//     parallelism — while uniq() by 10000 keys, few groups but megabytes of sets, still merges
//     in parallel;
//   - hashed layouts: every thread indexes its groups by bucket (a counting sort of the saved key
//     hashes, in parallel over threads — what ClickHouse's conversion of single-level tables to
//     two-level achieves, without building 256 tables), then bucket b of all threads is merged by
//     one task into a fresh sparse aggregator, 256 tasks in parallel with nothing shared;
//   - direct arrays (1-2 byte keys): the occupied key range [min, max] over all threads is cut
//     into disjoint sub-ranges, one task each, so the merge is parallel without hashing;
//   - no keys with a splittable state (COUNT(DISTINCT x)): every thread splits its sets into 256
//     parts by value hash (in parallel), part p of all threads is merged by one task and travels
//     in bucket p, and the coordinator adds up the disjoint parts.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/aggregation/aggregator.h"
#include "core/block.h"
#include "core/thread_pool.h"

namespace granite::core {

// Merges thread-local Aggregators into bucketed partial blocks.
// Thread-safety: Merge may be called from any thread; it uses `pool` for its parallel phases.
class LocalMerger {
 public:
  struct Options {
    // Below this many groups in total, and below parallel_threshold_bytes of tables, keys and
    // states, merge serially (the single-level fast path).
    size_t parallel_threshold = 20000;
    size_t parallel_threshold_bytes = size_t{16} << 20;
    // Write final-only states: this worker holds the only state of every group (one worker).
    bool final_only = false;
  };

  // Returns kBucketCount partial blocks (PartialTypes() columns). The aggregators are consumed.
  // REQUIRES: aggregators is not empty and all were created with the same keys and specs.
  static std::vector<Block> Merge(std::vector<std::unique_ptr<Aggregator>> aggregators,
                                  ThreadPool* pool, const Options& options);

 private:
  static std::vector<Block> MergeHashed(std::vector<std::unique_ptr<Aggregator>>& aggregators,
                                        ThreadPool* pool, bool final_only);
  static std::vector<Block> MergeDirect(std::vector<std::unique_ptr<Aggregator>>& aggregators,
                                        ThreadPool* pool, bool final_only);
  static std::vector<Block> MergeParts(std::vector<std::unique_ptr<Aggregator>>& aggregators,
                                       ThreadPool* pool, bool final_only);
};

}  // namespace granite::core
