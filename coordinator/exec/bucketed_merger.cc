#include "coordinator/exec/bucketed_merger.h"

#include <algorithm>
#include <chrono>

#include "core/block_sort.h"
#include "core/hash.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Merge-side aggregators hold one bucket: few keys spread over the key range (no direct arrays).
absl::StatusOr<std::unique_ptr<core::Aggregator>> NewBucketAggregator(
    const std::vector<core::TypeId>& key_types, const std::vector<core::AggregateSpec>& specs) {
  core::AggregatorOptions options;
  options.sparse = true;
  return core::Aggregator::Create(key_types, specs, options);
}

}  // namespace

BucketedMerger::BucketedMerger(std::vector<core::TypeId> key_types,
                               std::vector<core::AggregateSpec> specs, size_t worker_count,
                               core::ThreadPool* pool, std::function<bool()> cancelled,
                               size_t window)
    : key_types_(std::move(key_types)), specs_(std::move(specs)), pool_(pool),
      cancelled_(std::move(cancelled)), window_(std::max<size_t>(1, window)),
      inputs_(core::kBucketCount), received_(worker_count, 0), merged_(core::kBucketCount),
      parts_(core::kBucketCount), settled_(core::kBucketCount, false) {}

BucketedMerger::~BucketedMerger() {
  // Merges in flight reference this object: wait for them even when the query failed.
  core::MutexLock lock(mu_);
  done_cv_.wait(mu_, [this]() NO_THREAD_SAFETY_ANALYSIS { return pending_ == 0; });
}

size_t BucketedMerger::SlowestReceived() const {
  return received_.empty() ? 0 : *std::min_element(received_.begin(), received_.end());
}

void BucketedMerger::CollectReady(std::vector<uint32_t>* ready) {
  size_t slowest = std::min<size_t>(SlowestReceived(), core::kBucketCount);
  while (next_ready_ < slowest) {
    auto bucket = static_cast<uint32_t>(next_ready_++);
    if (inputs_[bucket].empty()) {  // no worker had a group in it: nothing to merge
      settled_[bucket] = true;
      // Delivery passes empty buckets at once: a window held by delivery needs no merge to end.
      while (next_delivered_ < settled_.size() && settled_[next_delivered_] &&
             merged_[next_delivered_].rows() == 0) {
        ++next_delivered_;
      }
      continue;
    }
    ++pending_;
    ready->push_back(bucket);
  }
}

size_t BucketedMerger::WindowBase() const {
  const size_t slowest = SlowestReceived();
  return piece_sink_ ? std::min(slowest, next_delivered_) : slowest;
}

void BucketedMerger::SubmitMerges(const std::vector<uint32_t>& ready) {
  bucket_merges_ += ready.size();
  for (uint32_t bucket : ready) pool_->Submit([this, bucket] { MergeBucket(bucket); });
}

void BucketedMerger::Add(size_t worker, uint32_t bucket, core::Block block, bool last) {
  AddBucket(worker, bucket, &block, last, /*may_wait=*/true);
}

bool BucketedMerger::TryAdd(size_t worker, uint32_t bucket, core::Block* block, bool last) {
  return AddBucket(worker, bucket, block, last, /*may_wait=*/false);
}

bool BucketedMerger::AddBucket(size_t worker, uint32_t bucket, core::Block* block, bool last,
                               bool may_wait) {
  std::vector<std::pair<size_t, core::Block>> to_split;
  {
    core::MutexLock lock(mu_);
    if (!bucketed_) {
      // The first bucket of any worker: single blocks received so far join the bucketed merge.
      bucketed_ = true;
      to_split.swap(singles_);
    }
  }
  for (auto& [from, single] : to_split) AddSplit(from, std::move(single));

  // Stores the block and advances this worker's progress; runs under mu_.
  auto store = [&](std::vector<uint32_t>* ready) NO_THREAD_SAFETY_ANALYSIS {
    // Enough groups: drop the block and keep this worker's progress where it is, so no bucket
    // that misses this block becomes ready.
    if (enough()) return;
    if (block->rows() > 0) {
      inputs_[bucket].push_back(std::move(*block));
      ++held_blocks_;
      peak_blocks_ = std::max(peak_blocks_.load(), held_blocks_);
    }
    if (worker < received_.size()) {
      received_[worker] = last ? core::kBucketCount
                               : std::max<size_t>(received_[worker], bucket + 1);
      window_cv_.notify_all();
    }
    CollectReady(ready);
  };
  std::vector<uint32_t> ready;
  bool stored = false;
  {
    core::MutexLock lock(mu_);
    if (enough()) return true;  // see store()
    if (worker < received_.size() && bucket > received_[worker]) {
      // Every bucket below this one is complete for this worker: skipped buckets are empty.
      received_[worker] = bucket;
      window_cv_.notify_all();
      CollectReady(&ready);
    }
    // An empty block holds no memory: it never waits for the window.
    bool wait = cancelled_ && block->rows() > 0 && bucket >= WindowBase() + window_;
    if (!wait) {
      store(&ready);  // the common case: one critical section
      stored = true;
    }
  }
  // Buckets made ready before a wait are merged during it.
  SubmitMerges(ready);
  if (stored) return true;
  if (!may_wait) return false;  // the progress recorded above stays: it is true either way
  ready.clear();
  {
    core::MutexLock lock(mu_);
    // Hold a worker that runs `window_` buckets ahead of the slowest one. The slowest worker
    // itself never waits (its received count equals `bucket`), so progress is guaranteed; a
    // cancelled query releases everyone. With a piece sink, also `window_` buckets ahead of the
    // last one delivered: the client's pace then holds the workers back, and delivery never
    // waits for a reader (every bucket below the slowest worker is merged without one).
    while (cancelled_ && bucket >= WindowBase() + window_) {
      if (cancelled_() || enough()) return true;
      window_cv_.wait_for(mu_, std::chrono::milliseconds(5));
    }
    store(&ready);
  }
  SubmitMerges(ready);
  return true;
}

void BucketedMerger::AddSingle(size_t worker, core::Block block) {
  {
    core::MutexLock lock(mu_);
    if (!bucketed_) {
      singles_.emplace_back(worker, std::move(block));
      return;
    }
  }
  AddSplit(worker, std::move(block));
}

void BucketedMerger::SkipWorker(size_t worker) {
  std::vector<uint32_t> ready;
  {
    core::MutexLock lock(mu_);
    if (worker >= received_.size()) return;
    received_[worker] = core::kBucketCount;
    window_cv_.notify_all();
    CollectReady(&ready);
  }
  SubmitMerges(ready);
}

void BucketedMerger::AddSplit(size_t worker, core::Block block) {
  int64_t started = NowNs();
  absl::StatusOr<std::vector<core::Block>> buckets =
      [&]() -> absl::StatusOr<std::vector<core::Block>> {
    ASSIGN_OR_RETURN(auto aggregator, NewBucketAggregator(key_types_, specs_));
    if (block.rows() > 0) RETURN_IF_ERROR(aggregator->Merge(block));
    return aggregator->PartialByBucket();
  }();
  merge_ns_ += NowNs() - started;
  std::vector<uint32_t> ready;
  {
    core::MutexLock lock(mu_);
    if (enough()) return;  // dropped, progress kept: as in Add
    if (!buckets.ok()) {
      if (status_.ok()) status_ = buckets.status();
    } else {
      for (uint32_t b = 0; b < buckets->size(); ++b) {
        if ((*buckets)[b].rows() == 0) continue;
        inputs_[b].push_back(std::move((*buckets)[b]));
        ++held_blocks_;
      }
      peak_blocks_ = std::max(peak_blocks_.load(), held_blocks_);
    }
    if (worker < received_.size()) {
      received_[worker] = core::kBucketCount;
      window_cv_.notify_all();
    }
    CollectReady(&ready);
  }
  SubmitMerges(ready);
}

void BucketedMerger::MergeBucket(uint32_t bucket) {
  int64_t started = NowNs();
  int64_t expected = -1;
  first_merge_ns_.compare_exchange_strong(expected, started);
  std::vector<core::Block> inputs;
  {
    core::MutexLock lock(mu_);
    inputs.swap(inputs_[bucket]);
  }
  std::unique_ptr<core::Aggregator> part;
  size_t groups = 0;  // before the piece cut
  // Runs under mu_ (held above); the analysis cannot see into the lambda.
  absl::StatusOr<core::Block> result =
      [&]() NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<core::Block> {
    if (bucket_merge_ && !key_types_.empty()) return bucket_merge_(bucket, inputs, &groups);
    ASSIGN_OR_RETURN(auto aggregator, NewBucketAggregator(key_types_, specs_));
    // The workers' rows bound the bucket's groups: one table size, no growth while merging.
    size_t rows = 0;
    for (const core::Block& input : inputs) rows += input.rows();
    if (!key_types_.empty()) aggregator->Reserve(rows);
    for (const core::Block& input : inputs) {
      if (input.rows() > 0) RETURN_IF_ERROR(aggregator->Merge(input));
    }
    if (key_types_.empty()) {
      part = std::move(aggregator);  // combined with the other parts in Finish
      return core::Block();
    }
    ASSIGN_OR_RETURN(core::Block finalized, aggregator->Finalize());
    groups = finalized.rows();
    if (!piece_cut_) return finalized;
    aggregator.reset();
    return piece_cut_(finalized);
  }();
  merge_ns_ += NowNs() - started;
  const bool deliver = piece_sink_ && !key_types_.empty();
  {
    core::MutexLock lock(mu_);
    held_blocks_ -= inputs.size();
    if (!result.ok()) {
      if (status_.ok()) status_ = result.status();
    } else if (key_types_.empty()) {
      parts_[bucket] = std::move(part);
    } else {
      merged_groups_ += groups;
      merged_[bucket] = std::move(*result);
      if (group_limit_ > 0 && merged_groups_ >= group_limit_ && !enough()) {
        enough_.store(true, std::memory_order_release);
        window_cv_.notify_all();  // readers held by the window stop waiting
      }
    }
    if (!deliver) {
      --pending_;
      done_cv_.notify_all();
      return;
    }
  }
  // Counted done only after delivering: Finish then never returns while a piece is in the sink.
  Deliver(bucket);
  core::MutexLock lock(mu_);
  --pending_;
  done_cv_.notify_all();
}

void BucketedMerger::Deliver(uint32_t bucket) {
  {
    core::MutexLock lock(mu_);
    settled_[bucket] = true;
    if (delivering_) return;  // that thread takes this bucket too, in its turn
    delivering_ = true;
  }
  absl::Status delivered;
  while (true) {
    std::vector<core::Block> batch;
    {
      core::MutexLock lock(mu_);
      if (!delivered.ok() && status_.ok()) status_ = delivered;
      while (next_delivered_ < settled_.size() && settled_[next_delivered_]) {
        core::Block& block = merged_[next_delivered_++];
        if (block.rows() > 0) batch.push_back(std::move(block));
        block = core::Block();
      }
      window_cv_.notify_all();  // readers held by the delivery window
      // Checked and cleared in one critical section: a bucket settled meanwhile is seen here.
      if (batch.empty()) {
        delivering_ = false;
        return;
      }
    }
    for (core::Block& piece : batch) {
      if (delivered.ok()) delivered = piece_sink_(std::move(piece));
    }
  }
}

absl::StatusOr<core::Block> BucketedMerger::MergeSingles(std::vector<core::Block> singles) {
  int64_t started = NowNs();
  int64_t expected = -1;
  first_merge_ns_.compare_exchange_strong(expected, started);
  absl::StatusOr<core::Block> result = [&]() -> absl::StatusOr<core::Block> {
    // The whole key range: direct arrays for 1-2 byte keys pay off here.
    ASSIGN_OR_RETURN(auto aggregator, core::Aggregator::Create(key_types_, specs_));
    size_t largest = 0;
    for (const core::Block& single : singles) largest = std::max(largest, single.rows());
    aggregator->Reserve(largest);
    for (const core::Block& single : singles) {
      if (single.rows() > 0) RETURN_IF_ERROR(aggregator->Merge(single));
    }
    return aggregator->Finalize();
  }();
  merge_ns_ += NowNs() - started;
  merge_wall_ns_ = NowNs() - started;
  return result;
}

absl::StatusOr<core::Block> BucketedMerger::Finish() {
  std::vector<core::Block> singles;
  std::vector<uint32_t> ready;
  bool serial = false;
  {
    core::MutexLock lock(mu_);
    serial = !bucketed_;
    if (serial) {
      for (auto& [worker, block] : singles_) singles.push_back(std::move(block));
      singles_.clear();
    } else {
      // Every Add is over: whatever a worker did not send is empty — unless readers stopped at
      // the group limit, when unmerged buckets may miss blocks: only merged ones count.
      if (!enough()) {
        for (size_t& received : received_) received = core::kBucketCount;
        CollectReady(&ready);
      }
    }
  }
  if (serial) {  // no pool task at all
    ASSIGN_OR_RETURN(core::Block merged, MergeSingles(std::move(singles)));
    if (piece_cut_ && !key_types_.empty()) {
      ASSIGN_OR_RETURN(merged, piece_cut_(merged));
    }
    if (!piece_sink_ || key_types_.empty()) return merged;
    if (merged.rows() > 0) RETURN_IF_ERROR(piece_sink_(std::move(merged)));
    return core::Block();
  }
  SubmitMerges(ready);
  core::MutexLock lock(mu_);
  done_cv_.wait(mu_, [this]() NO_THREAD_SAFETY_ANALYSIS { return pending_ == 0; });
  RETURN_IF_ERROR(status_);
  // Runs under mu_ (held above); the analysis cannot see into the lambda.
  absl::StatusOr<core::Block> result =
      [&]() NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<core::Block> {
    if (piece_sink_ && !key_types_.empty()) return core::Block();  // every piece went there
    if (key_types_.empty()) {
      // Parts hold disjoint values of split states (and bucket 0 every other state): add them up.
      std::unique_ptr<core::Aggregator> total;
      for (auto& part : parts_) {
        if (!part) continue;
        if (!total) {
          total = std::move(part);
        } else {
          total->MergeDisjointFrom(*part);
        }
      }
      if (!total) {
        ASSIGN_OR_RETURN(total, NewBucketAggregator(key_types_, specs_));
      }
      // The parts stay until the merger is destroyed: total may hold their memory.
      return total->Finalize();
    }
    std::vector<core::Block> pieces;
    for (auto& block : merged_) {
      if (block.rows() > 0) pieces.push_back(std::move(block));
    }
    if (pieces.empty()) {
      // No groups at all: an empty block with the right column types.
      ASSIGN_OR_RETURN(auto aggregator, NewBucketAggregator(key_types_, specs_));
      ASSIGN_OR_RETURN(core::Block empty, aggregator->Finalize());
      if (piece_cut_) return piece_cut_(empty);
      return empty;
    }
    if (piece_cut_ && piece_combine_) return piece_combine_(std::move(pieces));
    return core::ConcatBlocks(pieces);
  }();
  int64_t first = first_merge_ns_.load();
  if (first >= 0) merge_wall_ns_ = NowNs() - first;
  return result;
}

}  // namespace granite::coordinator
