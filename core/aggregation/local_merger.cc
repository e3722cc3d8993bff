#include "core/aggregation/local_merger.h"

#include <algorithm>

#include "core/block_sort.h"
#include "core/hash.h"

namespace granite::core {

LocalMerger::Shape LocalMerger::ShapeOf(
    const std::vector<std::unique_ptr<Aggregator>>& aggregators) {
  Shape shape;
  for (const auto& aggregator : aggregators) {
    shape.groups += aggregator->size();
    shape.bytes += aggregator->MemoryBytes() + aggregator->StateBytes();
    shape.any_two_level = shape.any_two_level || aggregator->two_level();
  }
  return shape;
}

bool LocalMerger::Serial(const std::vector<std::unique_ptr<Aggregator>>& aggregators,
                         const Shape& shape, const Options& options) {
  bool small = shape.groups < options.parallel_threshold &&
               shape.bytes < options.parallel_threshold_bytes;
  return aggregators.size() == 1 || small ||
         aggregators[0]->layout() == Aggregator::KeyLayout::kNoKeys;
}

void LocalMerger::MergeSerially(std::vector<std::unique_ptr<Aggregator>>& aggregators) {
  // The first may reference the other aggregators' arenas until its states are written out.
  for (size_t t = 1; t < aggregators.size(); ++t) aggregators[0]->MergeAllFrom(*aggregators[t]);
}

std::vector<Block> LocalMerger::Merge(std::vector<std::unique_ptr<Aggregator>> aggregators,
                                      ThreadPool* pool, const Options& options) {
  Aggregator& first = *aggregators[0];
  if (first.layout() == Aggregator::KeyLayout::kNoKeys && first.SplitsIntoParts()) {
    return MergeParts(aggregators, pool, options.final_only);
  }
  bool serial = Serial(aggregators, ShapeOf(aggregators), options);
  return MergeBuckets(aggregators, pool, options, serial);
}

std::vector<Block> LocalMerger::MergeBuckets(std::vector<std::unique_ptr<Aggregator>>& aggregators,
                                             ThreadPool* pool, const Options& options,
                                             bool serial) {
  Aggregator& first = *aggregators[0];
  if (serial) {
    MergeSerially(aggregators);
    return first.PartialByBucket(options.final_only);
  }
  if (first.layout() == Aggregator::KeyLayout::kDirect16) {
    return MergeDirect(aggregators, pool, options.final_only);
  }
  return MergeHashed(aggregators, pool, options);
}

LocalMerger::PartialResult LocalMerger::MergeToPartial(
    std::vector<std::unique_ptr<Aggregator>> aggregators, ThreadPool* pool,
    const Options& options) {
  PartialResult result;
  Aggregator& first = *aggregators[0];
  std::vector<Block> buckets;
  if (first.layout() == Aggregator::KeyLayout::kNoKeys && first.SplitsIntoParts()) {
    buckets = MergeParts(aggregators, pool, options.final_only);
  } else {
    Shape shape = ShapeOf(aggregators);
    bool serial = Serial(aggregators, shape, options);
    if (serial && !shape.any_two_level) {
      // Merged first: the threshold applies to distinct groups, not the sum over threads.
      MergeSerially(aggregators);
      if (first.size() < options.single_threshold) {
        result.single = true;
        result.blocks.push_back(first.Partial(options.final_only));
        return result;
      }
      buckets = first.PartialByBucket(options.final_only);
    } else {
      buckets = MergeBuckets(aggregators, pool, options, serial);
    }
  }
  for (uint32_t b = 0; b < buckets.size(); ++b) {
    // The last bucket stays when all are empty: the receiver still learns the column types.
    if (buckets[b].rows() == 0 && !(b + 1 == buckets.size() && result.blocks.empty())) continue;
    result.bucket_ids.push_back(b);
    result.blocks.push_back(std::move(buckets[b]));
  }
  return result;
}

std::vector<Block> LocalMerger::MergeHashed(std::vector<std::unique_ptr<Aggregator>>& aggregators,
                                            ThreadPool* pool, const Options& options) {
  bool final_only = options.final_only;
  size_t threads = aggregators.size();
  std::vector<std::vector<uint32_t>> orders(threads);
  std::vector<std::vector<uint32_t>> starts(threads);
  ParallelForOrSerial(pool, threads, [&](size_t t) { aggregators[t]->BucketOrder(&orders[t], &starts[t]); });
  auto groups_in = [&](size_t t, size_t b) -> size_t { return starts[t][b + 1] - starts[t][b]; };
  std::vector<Block> result(kBucketCount);
  // Merges bucket b of every thread; returns its merged group count.
  auto merge = [&](size_t b) -> size_t {
    std::unique_ptr<Aggregator> merged = aggregators[0]->CloneEmpty(/*sparse=*/true);
    // The sum of the threads' groups bounds the merged count: reserving it never grows the table
    // (reserving the largest alone grew most buckets once, by 4x, when threads share few keys).
    size_t total = 0;
    for (size_t t = 0; t < threads; ++t) total += groups_in(t, b);
    merged->Reserve(total);
    // Start from the thread with the most groups in this bucket: its states move, the others merge.
    size_t largest = 0;
    for (size_t t = 1; t < threads; ++t) {
      if (groups_in(t, b) > groups_in(largest, b)) largest = t;
    }
    for (size_t i = 0; i < threads; ++i) {
      size_t t = (largest + i) % threads;
      merged->MergeGroupsFrom(*aggregators[t], orders[t].data() + starts[t][b], groups_in(t, b));
    }
    size_t groups = merged->size();
    result[b] = merged->Partial(final_only);
    return groups;
  };
  // Sends bucket b unmerged: every thread's groups of it, concatenated (copies; sources are only
  // read, so tasks of disjoint buckets share them safely).
  auto concatenate = [&](size_t b) {
    std::vector<Block> pieces;
    for (size_t t = 0; t < threads; ++t) {
      if (groups_in(t, b) == 0) continue;
      pieces.push_back(aggregators[t]->PartialOfGroups(orders[t].data() + starts[t][b],
                                                       groups_in(t, b)));
    }
    if (pieces.empty()) {
      result[b] = aggregators[0]->PartialOfGroups(nullptr, 0);
    } else {
      result[b] = pieces.size() == 1 ? std::move(pieces[0]) : ConcatBlocks(pieces);
    }
  };
  Options::WorkerMerge mode = final_only ? Options::WorkerMerge::kAlways : options.worker_merge;
  size_t probe = mode == Options::WorkerMerge::kAuto    ? kProbeBuckets
                 : mode == Options::WorkerMerge::kNever ? 0
                                                        : kBucketCount;
  std::vector<size_t> probe_groups(probe, 0);
  ParallelForOrSerial(pool, probe, [&](size_t b) { probe_groups[b] = merge(b); });
  bool skip = mode == Options::WorkerMerge::kNever;
  if (mode == Options::WorkerMerge::kAuto) {
    size_t merged = 0;
    size_t total = 0;
    for (size_t b = 0; b < probe; ++b) {
      merged += probe_groups[b];
      for (size_t t = 0; t < threads; ++t) total += groups_in(t, b);
    }
    skip = total > 0 && static_cast<double>(merged) > kSkipRatio * static_cast<double>(total);
  }
  ParallelForOrSerial(pool, kBucketCount - probe, [&](size_t i) {
    if (skip) {
      concatenate(probe + i);
    } else {
      merge(probe + i);
    }
  });
  return result;
}

std::vector<Block> LocalMerger::MergeDirect(std::vector<std::unique_ptr<Aggregator>>& aggregators,
                                            ThreadPool* pool, bool final_only) {
  uint32_t lo = UINT32_MAX;
  uint32_t hi = 0;
  for (const auto& aggregator : aggregators) {
    const FixedHashMap& map = aggregator->direct_map();
    if (map.empty()) continue;
    lo = std::min(lo, map.min());
    hi = std::max(hi, map.max() + 1);
  }
  if (lo >= hi) return aggregators[0]->PartialByBucket(final_only);
  size_t workers = pool == nullptr ? 1 : pool->size();
  size_t ranges = std::max<size_t>(1, std::min<size_t>(workers * 4, hi - lo));
  size_t width = (hi - lo + ranges - 1) / ranges;
  std::vector<std::vector<Block>> per_range(ranges);
  ParallelForOrSerial(pool, ranges, [&](size_t r) {
    uint32_t from = lo + static_cast<uint32_t>(r * width);
    uint32_t to = std::min<uint32_t>(hi, from + static_cast<uint32_t>(width));
    std::unique_ptr<Aggregator> merged = aggregators[0]->CloneEmpty(/*sparse=*/false);
    std::vector<uint32_t> groups;
    for (const auto& aggregator : aggregators) {
      groups.clear();
      aggregator->GroupsInKeyRange(from, to, &groups);
      merged->MergeGroupsFrom(*aggregator, groups.data(), groups.size());
    }
    per_range[r] = merged->PartialByBucket(final_only);
  });
  // Key ranges are disjoint, so a bucket is the concatenation of its pieces.
  std::vector<Block> result(kBucketCount);
  ParallelForOrSerial(pool, kBucketCount, [&](size_t b) {
    std::vector<Block> pieces;
    for (auto& range : per_range) {
      if (range[b].rows() > 0) pieces.push_back(std::move(range[b]));
    }
    result[b] = pieces.empty() ? std::move(per_range[0][b]) : ConcatBlocks(pieces);
  });
  return result;
}

std::vector<Block> LocalMerger::MergeParts(std::vector<std::unique_ptr<Aggregator>>& aggregators,
                                           ThreadPool* pool, bool final_only) {
  ParallelForOrSerial(pool, aggregators.size(), [&](size_t t) { aggregators[t]->PrepareParts(); });
  std::vector<Block> result(kBucketCount);
  ParallelForOrSerial(pool, kBucketCount, [&](size_t part) {
    std::unique_ptr<Aggregator> merged = aggregators[0]->CloneEmpty(/*sparse=*/true);
    for (auto& aggregator : aggregators) {
      merged->MergePartFrom(*aggregator, static_cast<uint32_t>(part));
    }
    result[part] = merged->Partial(final_only);
  });
  return result;
}

}  // namespace granite::core
