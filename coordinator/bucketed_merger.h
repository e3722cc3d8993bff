// BucketedMerger: merges partial aggregate states streamed by workers, one hash bucket at a time.
// Every worker sends buckets 0..255 in increasing order; bucket b is merged on the pool as soon as
// all workers have sent it, so merging overlaps with the workers still streaming, and buckets are
// merged in parallel with no shared lock (each bucket's keys are disjoint from every other's).
#pragma once

#include <atomic>
#include <condition_variable>
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
  BucketedMerger(std::vector<core::TypeId> key_types, std::vector<core::AggregateSpec> specs,
                 size_t worker_count, core::ThreadPool* pool);
  ~BucketedMerger();

  // Takes bucket `bucket` of `worker`.
  void Add(size_t worker, uint32_t bucket, core::Block block) EXCLUDES(mu_);

  // Waits for all merges and returns the stage block: keys, then finalized aggregates.
  absl::StatusOr<core::Block> Finish() EXCLUDES(mu_);

  // Wall time spent merging (summed over buckets), for query stats.
  uint64_t merge_ns() const { return merge_ns_.load(); }

 private:
  void MergeBucket(uint32_t bucket) EXCLUDES(mu_);

  // Constant after construction.
  const std::vector<core::TypeId> key_types_;
  const std::vector<core::AggregateSpec> specs_;
  const size_t worker_count_;
  core::ThreadPool* pool_;

  core::Mutex mu_{"bucketed_merger"};
  std::condition_variable_any done_cv_;
  // Protected by mu_.
  std::vector<std::vector<core::Block>> inputs_ GUARDED_BY(mu_);  // per bucket, one per worker
  std::vector<core::Block> merged_ GUARDED_BY(mu_);
  size_t pending_ GUARDED_BY(mu_) = 0;  // merges submitted and not yet finished
  absl::Status status_ GUARDED_BY(mu_);
  std::atomic<uint64_t> merge_ns_{0};
};

}  // namespace granite::coordinator
