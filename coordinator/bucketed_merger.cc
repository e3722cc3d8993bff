#include "coordinator/bucketed_merger.h"

#include <chrono>

#include "core/block_sort.h"
#include "core/hash.h"
#include "core/status_macros.h"

namespace granite::coordinator {

BucketedMerger::BucketedMerger(std::vector<core::TypeId> key_types,
                               std::vector<core::AggregateSpec> specs, size_t worker_count,
                               core::ThreadPool* pool)
    : key_types_(std::move(key_types)), specs_(std::move(specs)), worker_count_(worker_count),
      pool_(pool), inputs_(core::kBucketCount), merged_(core::kBucketCount) {}

BucketedMerger::~BucketedMerger() {
  // Merges in flight reference this object: wait for them even when the query failed.
  core::MutexLock lock(mu_);
  done_cv_.wait(mu_, [this]() NO_THREAD_SAFETY_ANALYSIS { return pending_ == 0; });
}

void BucketedMerger::Add(size_t worker, uint32_t bucket, core::Block block) {
  bool ready = false;
  {
    core::MutexLock lock(mu_);
    inputs_[bucket].push_back(std::move(block));
    ready = inputs_[bucket].size() == worker_count_;
    // Without keys every group lands in one bucket and the result is one row, so all buckets are
    // merged together in Finish().
    if (ready && !key_types_.empty()) {
      ++pending_;
    } else {
      ready = false;
    }
  }
  if (ready) pool_->Submit([this, bucket] { MergeBucket(bucket); });
}

void BucketedMerger::MergeBucket(uint32_t bucket) {
  auto started = std::chrono::steady_clock::now();
  std::vector<core::Block> inputs;
  {
    core::MutexLock lock(mu_);
    inputs.swap(inputs_[bucket]);
  }
  absl::StatusOr<core::Block> result = [&]() -> absl::StatusOr<core::Block> {
    ASSIGN_OR_RETURN(auto aggregator, core::Aggregator::Create(key_types_, specs_));
    for (const core::Block& input : inputs) {
      if (input.rows() > 0) RETURN_IF_ERROR(aggregator->Merge(input));
    }
    return aggregator->Finalize();
  }();
  merge_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now() - started).count();
  core::MutexLock lock(mu_);
  if (result.ok()) {
    merged_[bucket] = std::move(*result);
  } else if (status_.ok()) {
    status_ = result.status();
  }
  --pending_;
  done_cv_.notify_all();
}

absl::StatusOr<core::Block> BucketedMerger::Finish() {
  if (key_types_.empty()) {
    ASSIGN_OR_RETURN(auto aggregator, core::Aggregator::Create(key_types_, specs_));
    core::MutexLock lock(mu_);
    for (auto& bucket : inputs_) {
      for (const core::Block& input : bucket) {
        if (input.rows() > 0) RETURN_IF_ERROR(aggregator->Merge(input));
      }
    }
    return aggregator->Finalize();
  }
  core::MutexLock lock(mu_);
  done_cv_.wait(mu_, [this]() NO_THREAD_SAFETY_ANALYSIS { return pending_ == 0; });
  RETURN_IF_ERROR(status_);
  std::vector<core::Block> parts;
  for (auto& block : merged_) {
    if (block.rows() > 0) parts.push_back(std::move(block));
  }
  if (parts.empty()) {
    // No groups at all: an empty block with the right column types.
    ASSIGN_OR_RETURN(auto aggregator, core::Aggregator::Create(key_types_, specs_));
    return aggregator->Finalize();
  }
  return core::ConcatBlocks(parts);
}

}  // namespace granite::coordinator
