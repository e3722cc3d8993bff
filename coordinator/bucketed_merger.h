// BucketedMerger: merges partial aggregate states streamed by workers, one hash bucket at a time.
// Every worker sends buckets 0..255 in increasing order; bucket b is merged on the pool as soon as
// all workers have sent it, so merging overlaps with the workers still streaming, and buckets are
// merged in parallel with no shared lock (each bucket's keys are disjoint from every other's).
//
// Bounded memory: a worker may run at most `window` buckets ahead of the slowest one; Add blocks
// its stream-reader thread until the others catch up (gRPC flow control then holds the worker
// back), so at most about window * workers unmerged buckets are held at once.
//
// Without GROUP BY keys, bucket p carries part p of split states (COUNT(DISTINCT x), see
// LocalMerger): parts are merged in parallel like buckets, then added up in Finish, where exact
// distinct counts of disjoint parts are summed instead of unioned.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/aggregation/aggregator.h"
#include "core/block.h"
#include "core/mutex.h"
#include "core/thread_pool.h"

namespace granite::coordinator {

// Merges and finalizes the buckets of one aggregating query.
// Thread-safety: Add() runs on the workers' stream-reader threads; merges run on the pool;
// Finish() once, after every Add().
class BucketedMerger {
 public:
  static constexpr size_t kDefaultWindow = 32;

  // `cancelled`, when set, is polled while Add waits for the window: a failed query must not leave
  // a reader blocked (its slow peer will never catch up). Without it the window is not enforced.
  BucketedMerger(std::vector<core::TypeId> key_types, std::vector<core::AggregateSpec> specs,
                 size_t worker_count, core::ThreadPool* pool,
                 std::function<bool()> cancelled = nullptr, size_t window = kDefaultWindow);
  ~BucketedMerger();

  // Takes bucket `bucket` of `worker`. May block while `worker` is `window` buckets ahead.
  void Add(size_t worker, uint32_t bucket, core::Block block) EXCLUDES(mu_);

  // Waits for all merges and returns the stage block: keys, then finalized aggregates.
  absl::StatusOr<core::Block> Finish() EXCLUDES(mu_);

  // Time spent merging, summed over buckets (CPU-side work, for query stats).
  uint64_t merge_ns() const { return merge_ns_.load(); }
  // Wall time from the first merge task's start to the end of Finish.
  uint64_t merge_wall_ns() const { return merge_wall_ns_.load(); }
  // The most unmerged bucket blocks held at once.
  size_t peak_pending_blocks() const { return peak_blocks_.load(); }

 private:
  void MergeBucket(uint32_t bucket) EXCLUDES(mu_);
  // Returns the fewest buckets received from any worker.
  size_t SlowestReceived() const REQUIRES(mu_);

  // Constant after construction.
  const std::vector<core::TypeId> key_types_;
  const std::vector<core::AggregateSpec> specs_;
  const size_t worker_count_;
  core::ThreadPool* pool_;
  const std::function<bool()> cancelled_;
  const size_t window_;

  core::Mutex mu_{"bucketed_merger"};
  std::condition_variable_any done_cv_;    // a merge finished
  std::condition_variable_any window_cv_;  // a worker's received count grew
  // Protected by mu_.
  std::vector<std::vector<core::Block>> inputs_ GUARDED_BY(mu_);  // per bucket, one per worker
  std::vector<size_t> received_ GUARDED_BY(mu_);                  // per worker
  size_t held_blocks_ GUARDED_BY(mu_) = 0;
  std::vector<core::Block> merged_ GUARDED_BY(mu_);                // keyed: finalized buckets
  std::vector<std::unique_ptr<core::Aggregator>> parts_ GUARDED_BY(mu_);  // no keys: per part
  size_t pending_ GUARDED_BY(mu_) = 0;  // merges submitted and not yet finished
  absl::Status status_ GUARDED_BY(mu_);
  std::atomic<uint64_t> merge_ns_{0};
  std::atomic<uint64_t> merge_wall_ns_{0};
  std::atomic<int64_t> first_merge_ns_{-1};
  std::atomic<size_t> peak_blocks_{0};
};

}  // namespace granite::coordinator
