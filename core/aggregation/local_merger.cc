#include "core/aggregation/local_merger.h"

#include <algorithm>

#include "core/block_sort.h"
#include "core/hash.h"

namespace granite::core {
namespace {

// Runs fn(i) for i < n on the pool when there is one, else serially.
void ForEachIndex(ThreadPool* pool, size_t n, const std::function<void(size_t)>& fn) {
  if (pool != nullptr && pool->size() > 1 && n > 1) {
    pool->ParallelFor(n, fn);
  } else {
    for (size_t i = 0; i < n; ++i) fn(i);
  }
}

}  // namespace

std::vector<Block> LocalMerger::Merge(std::vector<std::unique_ptr<Aggregator>> aggregators,
                                      ThreadPool* pool, const Options& options) {
  Aggregator& first = *aggregators[0];
  if (first.layout() == Aggregator::KeyLayout::kNoKeys && first.SplitsIntoParts()) {
    return MergeParts(aggregators, pool, options.final_only);
  }
  size_t groups = 0;
  size_t bytes = 0;
  for (const auto& aggregator : aggregators) {
    groups += aggregator->size();
    bytes += aggregator->MemoryBytes() + aggregator->StateBytes();
  }
  bool small = groups < options.parallel_threshold && bytes < options.parallel_threshold_bytes;
  if (aggregators.size() == 1 || small || first.layout() == Aggregator::KeyLayout::kNoKeys) {
    for (size_t t = 1; t < aggregators.size(); ++t) first.MergeAllFrom(*aggregators[t]);
    // first may reference the other aggregators' arenas until its states are written out.
    return first.PartialByBucket(options.final_only);
  }
  if (first.layout() == Aggregator::KeyLayout::kDirect16) {
    return MergeDirect(aggregators, pool, options.final_only);
  }
  return MergeHashed(aggregators, pool, options.final_only);
}

std::vector<Block> LocalMerger::MergeHashed(std::vector<std::unique_ptr<Aggregator>>& aggregators,
                                            ThreadPool* pool, bool final_only) {
  size_t threads = aggregators.size();
  std::vector<std::vector<uint32_t>> orders(threads);
  std::vector<std::vector<uint32_t>> starts(threads);
  ForEachIndex(pool, threads, [&](size_t t) { aggregators[t]->BucketOrder(&orders[t], &starts[t]); });
  std::vector<Block> result(kBucketCount);
  ForEachIndex(pool, kBucketCount, [&](size_t b) {
    std::unique_ptr<Aggregator> merged = aggregators[0]->CloneEmpty(/*sparse=*/true);
    size_t most = 0;
    for (size_t t = 0; t < threads; ++t) most = std::max<size_t>(most, starts[t][b + 1] - starts[t][b]);
    merged->Reserve(most);
    // Start from the thread with the most groups in this bucket: its states move, the others merge.
    size_t largest = 0;
    for (size_t t = 1; t < threads; ++t) {
      if (starts[t][b + 1] - starts[t][b] > starts[largest][b + 1] - starts[largest][b]) largest = t;
    }
    for (size_t i = 0; i < threads; ++i) {
      size_t t = (largest + i) % threads;
      const uint32_t* groups = orders[t].data() + starts[t][b];
      merged->MergeGroupsFrom(*aggregators[t], groups, starts[t][b + 1] - starts[t][b]);
    }
    result[b] = merged->Partial(final_only);
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
  ForEachIndex(pool, ranges, [&](size_t r) {
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
  ForEachIndex(pool, kBucketCount, [&](size_t b) {
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
  ForEachIndex(pool, aggregators.size(), [&](size_t t) { aggregators[t]->PrepareParts(); });
  std::vector<Block> result(kBucketCount);
  ForEachIndex(pool, kBucketCount, [&](size_t part) {
    std::unique_ptr<Aggregator> merged = aggregators[0]->CloneEmpty(/*sparse=*/true);
    for (auto& aggregator : aggregators) {
      merged->MergePartFrom(*aggregator, static_cast<uint32_t>(part));
    }
    result[part] = merged->Partial(final_only);
  });
  return result;
}

}  // namespace granite::core
