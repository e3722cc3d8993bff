#include "coordinator/bucketed_merger.h"

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
    : key_types_(std::move(key_types)), specs_(std::move(specs)), worker_count_(worker_count),
      pool_(pool), cancelled_(std::move(cancelled)), window_(std::max<size_t>(1, window)),
      inputs_(core::kBucketCount), received_(worker_count, 0), merged_(core::kBucketCount),
      parts_(core::kBucketCount) {}

BucketedMerger::~BucketedMerger() {
  // Merges in flight reference this object: wait for them even when the query failed.
  core::MutexLock lock(mu_);
  done_cv_.wait(mu_, [this]() NO_THREAD_SAFETY_ANALYSIS { return pending_ == 0; });
}

size_t BucketedMerger::SlowestReceived() const {
  return received_.empty() ? 0 : *std::min_element(received_.begin(), received_.end());
}

void BucketedMerger::Add(size_t worker, uint32_t bucket, core::Block block) {
  bool ready = false;
  {
    core::MutexLock lock(mu_);
    // Hold a worker that runs `window_` buckets ahead of the slowest one. The slowest worker
    // itself never waits, so progress is guaranteed; a cancelled query releases everyone.
    while (cancelled_ && bucket >= SlowestReceived() + window_) {
      if (cancelled_()) return;
      window_cv_.wait_for(mu_, std::chrono::milliseconds(5));
    }
    inputs_[bucket].push_back(std::move(block));
    ++held_blocks_;
    peak_blocks_ = std::max(peak_blocks_.load(), held_blocks_);
    if (worker < received_.size()) {
      received_[worker] = std::max<size_t>(received_[worker], bucket + 1);
      window_cv_.notify_all();
    }
    ready = inputs_[bucket].size() == worker_count_;
    if (ready) ++pending_;
  }
  if (ready) pool_->Submit([this, bucket] { MergeBucket(bucket); });
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
  // Runs under mu_ (held above); the analysis cannot see into the lambda.
  absl::StatusOr<core::Block> result =
      [&]() NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<core::Block> {
    ASSIGN_OR_RETURN(auto aggregator, NewBucketAggregator(key_types_, specs_));
    for (const core::Block& input : inputs) {
      if (input.rows() > 0) RETURN_IF_ERROR(aggregator->Merge(input));
    }
    if (key_types_.empty()) {
      part = std::move(aggregator);  // combined with the other parts in Finish
      return core::Block();
    }
    return aggregator->Finalize();
  }();
  merge_ns_ += NowNs() - started;
  core::MutexLock lock(mu_);
  held_blocks_ -= inputs.size();
  if (!result.ok()) {
    if (status_.ok()) status_ = result.status();
  } else if (key_types_.empty()) {
    parts_[bucket] = std::move(part);
  } else {
    merged_[bucket] = std::move(*result);
  }
  --pending_;
  done_cv_.notify_all();
}

absl::StatusOr<core::Block> BucketedMerger::Finish() {
  core::MutexLock lock(mu_);
  done_cv_.wait(mu_, [this]() NO_THREAD_SAFETY_ANALYSIS { return pending_ == 0; });
  RETURN_IF_ERROR(status_);
  // Runs under mu_ (held above); the analysis cannot see into the lambda.
  absl::StatusOr<core::Block> result =
      [&]() NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<core::Block> {
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
      return aggregator->Finalize();
    }
    return core::ConcatBlocks(pieces);
  }();
  int64_t first = first_merge_ns_.load();
  if (first >= 0) merge_wall_ns_ = NowNs() - first;
  return result;
}

}  // namespace granite::coordinator
