// LocalMerger: the end of partial aggregation inside one worker. Merges the thread-local
// Aggregators (one per pool thread) in memory — states are moved or merged, never serialized — and
// cuts the result into kBucketCount partial blocks for the coordinator.
//
// What is sent (MergeToPartial): a small result — small enough for the serial path, every thread
// table single-level, fewer groups than options.single_threshold once merged — travels as ONE
// block holding every group (the coordinator merges such blocks serially, no per-bucket tasks); a bigger
// one travels as its non-empty buckets only. A no-key split state (COUNT(DISTINCT x)) always
// travels as parts: its parts must not meet an unsplit copy of the same state.
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
//     one task into a fresh sparse aggregator, 256 tasks in parallel with nothing shared.
//     Unless the merge would not reduce the data (worker_merge, kAuto): the first kProbeBuckets
//     buckets are merged first, and if they hold more than kSkipRatio of the threads' groups
//     (threads share few keys: WatchID, UserID x SearchPhrase), every other bucket is sent
//     unmerged — each thread's groups of the bucket, one after the other in one block, possibly
//     the same key more than once — and the coordinator's merge, which runs anyway, merges them.
//     That saves one full hash aggregation of every group for a few more rows on the wire;
//   - direct arrays (1-2 byte keys): the occupied key range [min, max] over all threads is cut
//     into disjoint sub-ranges, one task each, so the merge is parallel without hashing;
//   - no keys with a splittable state (COUNT(DISTINCT x)): every thread splits its sets into 256
//     parts by value hash (in parallel), part p of all threads is merged by one task and travels
//     in bucket p, and the coordinator adds up the disjoint parts.
#pragma once

#include <cstdint>
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
    // MergeToPartial: on the serial path with no thread table two-level, a result of fewer
    // groups than this (after the merge) is sent as one single block. 0 = always buckets.
    size_t single_threshold = 4096;
    // Parallel merge of hashed layouts (setting group_by_worker_merge): kAuto probes whether
    // merging reduces the data (file comment), kAlways merges every bucket, kNever sends every
    // thread's groups unmerged. final_only always merges (the receiver does not).
    enum class WorkerMerge { kAuto, kAlways, kNever };
    WorkerMerge worker_merge = WorkerMerge::kAuto;
  };

  // kAuto: buckets merged to probe the reduction, and the merged / thread groups ratio of the
  // probe above which the other buckets are sent unmerged.
  static constexpr size_t kProbeBuckets = 8;
  static constexpr double kSkipRatio = 0.7;

  // One worker's partial result as it is sent to the coordinator.
  struct PartialResult {
    // true: `blocks` holds exactly one block with every group, unsplit (bucket_ids is empty).
    bool single = false;
    // !single: the non-empty buckets in increasing id order (blocks[i] is bucket bucket_ids[i]),
    // or only the empty bucket kBucketCount - 1 when every bucket is empty; never nothing.
    std::vector<uint32_t> bucket_ids;
    std::vector<Block> blocks;
  };

  // Returns kBucketCount partial blocks (PartialTypes() columns). The aggregators are consumed.
  // REQUIRES: aggregators is not empty and all were created with the same keys and specs.
  static std::vector<Block> Merge(std::vector<std::unique_ptr<Aggregator>> aggregators,
                                  ThreadPool* pool, const Options& options);

  // Merges like Merge but returns what a worker sends: one single block for a small result (see
  // the file comment), else only the non-empty buckets. The aggregators are consumed.
  // REQUIRES: as for Merge.
  static PartialResult MergeToPartial(std::vector<std::unique_ptr<Aggregator>> aggregators,
                                      ThreadPool* pool, const Options& options);
  // Returns true if Merge takes the serial path for `aggregators` (one aggregator, no keys, or an
  // input below both thresholds).
  static bool MergesSerially(const std::vector<std::unique_ptr<Aggregator>>& aggregators,
                             const Options& options) {
    return Serial(aggregators, ShapeOf(aggregators), options);
  }

 private:
  // Sizes the input decides the path by.
  struct Shape {
    size_t groups = 0;
    size_t bytes = 0;  // tables, keys and states
    bool any_two_level = false;
  };
  static Shape ShapeOf(const std::vector<std::unique_ptr<Aggregator>>& aggregators);
  // Returns true if the serial (single-level fast) path merges this input.
  static bool Serial(const std::vector<std::unique_ptr<Aggregator>>& aggregators,
                     const Shape& shape, const Options& options);
  // Merges every aggregator into the first, serially.
  static void MergeSerially(std::vector<std::unique_ptr<Aggregator>>& aggregators);
  static std::vector<Block> MergeBuckets(std::vector<std::unique_ptr<Aggregator>>& aggregators,
                                         ThreadPool* pool, const Options& options, bool serial);
  static std::vector<Block> MergeHashed(std::vector<std::unique_ptr<Aggregator>>& aggregators,
                                        ThreadPool* pool, const Options& options);
  static std::vector<Block> MergeDirect(std::vector<std::unique_ptr<Aggregator>>& aggregators,
                                        ThreadPool* pool, bool final_only);
  static std::vector<Block> MergeParts(std::vector<std::unique_ptr<Aggregator>>& aggregators,
                                       ThreadPool* pool, bool final_only);
};

}  // namespace granite::core
