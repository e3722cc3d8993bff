// BucketedMerger: merges partial aggregate states streamed by workers, one hash bucket at a time.
// Every worker sends its non-empty buckets in increasing order (a skipped bucket is empty, and the
// last one it sends says so); bucket b is merged on the pool as soon as every worker has gone past
// it, so merging overlaps with the workers still streaming, and buckets are merged in parallel
// with no shared lock (each bucket's keys are disjoint from every other's). Buckets no worker sent
// cost nothing.
//
// Small results: a worker with few groups sends one single block instead (AddSingle). If every
// worker did, Finish merges the blocks serially on the calling thread — no pool task, no bucket
// bookkeeping, so a trivial count() by a few keys never pays for the parallel merge. If some
// worker sent buckets, each single block is split into buckets by key hash (an Aggregator merge
// and PartialByBucket: the key hash is the same in every process) and joins the bucketed merge.
//
// Bounded memory: a worker may run at most `window` buckets ahead of the slowest one; Add blocks
// its stream-reader thread until the others catch up (gRPC flow control then holds the worker
// back), so at most about window * workers unmerged buckets are held at once. A worker that sends
// bucket b has finished every bucket below b, so the slowest worker never waits.
//
// Without GROUP BY keys, bucket p carries part p of split states (COUNT(DISTINCT x), see
// LocalMerger): parts are merged in parallel like buckets, then added up in Finish, where exact
// distinct counts of disjoint parts are summed instead of unioned. Workers never send split
// states as a single block (LocalMerger::MergeToPartial), so parts never meet unsplit states.
//
// Group limit (LIMIT n without ORDER BY or HAVING: any n complete groups answer it): once merged
// buckets hold `n` groups, enough() turns true, later blocks are dropped, worker progress stops
// advancing (so no bucket missing a dropped block is ever merged), and Finish returns the groups
// of the buckets merged so far — each one complete, since a bucket is merged only after every
// worker has gone past it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/aggregation/aggregator.h"
#include "core/block.h"
#include "core/mutex.h"
#include "core/thread_pool.h"

namespace granite::coordinator {

// Merges and finalizes the buckets of one aggregating query.
// Thread-safety: Add() / TryAdd() run on the workers' stream-reader threads; merges on the pool;
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

  // Takes bucket `bucket` of `worker`; `last`: no bucket of this worker follows. May block while
  // `worker` is `window` buckets ahead of the slowest worker.
  // REQUIRES: a worker's buckets come in increasing order; a worker sends buckets or one single
  // block, not both; every worker's final Add has `last` set (or is bucket kBucketCount - 1).
  void Add(size_t worker, uint32_t bucket, core::Block block, bool last = false) EXCLUDES(mu_);
  // As Add, but never blocks: where Add would wait for the window, returns false leaving
  // `*block` as it was (call again later with the same arguments); otherwise takes `*block`
  // and returns true. For a caller that reads every worker's stream on one thread
  // (coordinator/cluster/stream_set.h): it stops reading that worker instead of waiting.
  bool TryAdd(size_t worker, uint32_t bucket, core::Block* block, bool last = false)
      EXCLUDES(mu_);
  // Takes every group of `worker` as one block (partial states, PartialTypes() columns). Never
  // blocks on the window.
  void AddSingle(size_t worker, core::Block block) EXCLUDES(mu_);
  // Counts `worker` as finished with no groups: a shard the query does not run on
  // (Fragment::shards). REQUIRES: no Add / AddSingle of that worker.
  void SkipWorker(size_t worker) EXCLUDES(mu_);

  // Enables the group limit: enough() once merged buckets hold at least `groups` groups. Keyed
  // bucketed merges only (no effect without keys or when every worker sent a single block).
  // REQUIRES: called before the first Add; groups > 0.
  void SetGroupLimit(size_t groups) { group_limit_ = groups; }
  // Enables the piece cut (keyed merges only): `cut` maps every finalized bucket (and the
  // serially merged or empty result) to what Finish concatenates — for ORDER BY ... LIMIT, the
  // final columns of its top rows (final_stage.h, CutPiece), run on the pool as buckets finish.
  // REQUIRES: called before the first Add; `cut` is thread-safe.
  void SetPieceCut(std::function<absl::StatusOr<core::Block>(const core::Block&)> cut) {
    piece_cut_ = std::move(cut);
  }
  // Replaces Finish's concatenation of the non-empty cut pieces (bucket order) by `combine`
  // (final_stage.h, CombineCutPieces: only the top rows are gathered). Only with a piece cut.
  // REQUIRES: called before Finish.
  void SetPieceCombine(std::function<absl::StatusOr<core::Block>(std::vector<core::Block>)> combine) {
    piece_combine_ = std::move(combine);
  }
  // Replaces the keyed bucket merge (merge, Finalize, piece cut) by `merge`(bucket, blocks,
  // &groups): it returns the bucket's piece for the piece combine (what the piece cut would, or
  // a stand-in when the combine keeps its own per-bucket state: late_finalizer.h) and sets
  // *groups to the bucket's group count. Single blocks merged serially still take the ordinary
  // path. REQUIRES: called before the first Add; thread-safe.
  void SetBucketMerge(std::function<absl::StatusOr<core::Block>(
                          uint32_t, const std::vector<core::Block>&, size_t*)> merge) {
    bucket_merge_ = std::move(merge);
  }
  // Streams the result (keyed merges only, no group limit, no piece combine): each finalized
  // bucket (after the piece cut, if any) goes to `sink` as soon as every bucket below it went,
  // so the groups leave in the order Finish would concatenate them; readers are held within
  // `window` buckets of the last one delivered too, so at most about `window` buckets (received
  // or merged) are held whatever the client's pace; Finish then returns an empty block. `sink` is called by one thread
  // at a time (a merging pool thread, or Finish's); its error fails Finish. It may block (the
  // client's backpressure): the window then holds the readers, flow control the workers.
  // REQUIRES: called before the first Add.
  void SetPieceSink(std::function<absl::Status(core::Block)> sink) { piece_sink_ = std::move(sink); }
  // True once the group limit is reached: readers may stop reading their streams.
  bool enough() const { return enough_.load(std::memory_order_acquire); }

  // Waits for all merges and returns the stage block: keys, then finalized aggregates (with a
  // piece cut: the concatenation of the cut pieces).
  absl::StatusOr<core::Block> Finish() EXCLUDES(mu_);

  // Time spent merging, summed over buckets (CPU-side work, for query stats).
  uint64_t merge_ns() const { return merge_ns_.load(); }
  // Wall time from the first merge task's start to the end of Finish.
  uint64_t merge_wall_ns() const { return merge_wall_ns_.load(); }
  // The most unmerged bucket blocks held at once.
  size_t peak_pending_blocks() const { return peak_blocks_.load(); }
  // Bucket merges run on the pool (0 when every worker sent a single block).
  size_t bucket_merges() const { return bucket_merges_.load(); }

 private:
  void MergeBucket(uint32_t bucket) EXCLUDES(mu_);
  // Add (may_wait) and TryAdd (not): false when the block was left for a later call.
  bool AddBucket(size_t worker, uint32_t bucket, core::Block* block, bool last, bool may_wait)
      EXCLUDES(mu_);
  // Returns the fewest buckets received from any worker.
  size_t SlowestReceived() const REQUIRES(mu_);
  // Returns the bucket the window counts from: the slowest worker's, or with a piece sink the
  // first bucket not yet delivered if that is lower.
  size_t WindowBase() const REQUIRES(mu_);
  // Marks every bucket below the slowest worker's progress as ready: non-empty ones are appended
  // to `ready` (and counted in pending_), empty ones are skipped.
  void CollectReady(std::vector<uint32_t>* ready) REQUIRES(mu_);
  // Submits the merges of `ready` buckets to the pool.
  void SubmitMerges(const std::vector<uint32_t>& ready) EXCLUDES(mu_);
  // Splits a worker's single block into buckets and adds them as that worker's (mixed inputs).
  void AddSplit(size_t worker, core::Block block) EXCLUDES(mu_);
  // Marks `bucket` merged or empty and, unless another thread is delivering, gives `sink` every
  // settled bucket in order (SetPieceSink). Returns with no delivery in progress by this thread.
  void Deliver(uint32_t bucket) EXCLUDES(mu_);
  // Merges the single blocks serially on the calling thread (every worker sent one).
  absl::StatusOr<core::Block> MergeSingles(std::vector<core::Block> singles);

  // Constant after construction.
  const std::vector<core::TypeId> key_types_;
  const std::vector<core::AggregateSpec> specs_;
  core::ThreadPool* pool_;
  const std::function<bool()> cancelled_;
  const size_t window_;
  size_t group_limit_ = 0;  // set before the first Add; 0 = none
  std::function<absl::StatusOr<core::Block>(const core::Block&)> piece_cut_;  // idem; may be empty
  std::function<absl::StatusOr<core::Block>(std::vector<core::Block>)> piece_combine_;  // idem
  std::function<absl::StatusOr<core::Block>(uint32_t, const std::vector<core::Block>&, size_t*)>
      bucket_merge_;  // idem
  std::function<absl::Status(core::Block)> piece_sink_;  // idem; may be empty

  core::Mutex mu_{"bucketed_merger"};
  std::condition_variable_any done_cv_;    // a merge finished
  std::condition_variable_any window_cv_;  // a worker's received count grew
  // Protected by mu_.
  std::vector<std::vector<core::Block>> inputs_ GUARDED_BY(mu_);  // per bucket, one per worker
  std::vector<size_t> received_ GUARDED_BY(mu_);  // per worker: buckets below are complete
  size_t next_ready_ GUARDED_BY(mu_) = 0;         // buckets below are submitted or skipped
  bool bucketed_ GUARDED_BY(mu_) = false;         // some worker sent buckets
  std::vector<std::pair<size_t, core::Block>> singles_ GUARDED_BY(mu_);  // (worker, block)
  size_t held_blocks_ GUARDED_BY(mu_) = 0;
  std::vector<core::Block> merged_ GUARDED_BY(mu_);                // keyed: finalized buckets
  std::vector<std::unique_ptr<core::Aggregator>> parts_ GUARDED_BY(mu_);  // no keys: per part
  size_t pending_ GUARDED_BY(mu_) = 0;  // merges submitted and not yet finished
  size_t merged_groups_ GUARDED_BY(mu_) = 0;  // rows of merged_ so far
  // With a piece sink: buckets merged or found empty, and the first not yet given to the sink.
  std::vector<bool> settled_ GUARDED_BY(mu_);
  size_t next_delivered_ GUARDED_BY(mu_) = 0;
  bool delivering_ GUARDED_BY(mu_) = false;  // a thread is running the sink
  std::atomic<bool> enough_{false};           // set under mu_: merged_groups_ >= group_limit_
  absl::Status status_ GUARDED_BY(mu_);
  std::atomic<uint64_t> merge_ns_{0};
  std::atomic<uint64_t> merge_wall_ns_{0};
  std::atomic<int64_t> first_merge_ns_{-1};
  std::atomic<size_t> peak_blocks_{0};
  std::atomic<size_t> bucket_merges_{0};
};

}  // namespace granite::coordinator
