#include "core/aggregation/local_finalizer.h"

#include <utility>

#include "core/status_macros.h"

namespace granite::core {
namespace {

// Finalizes `aggregator` (emptying it) and passes the groups through `finish`.
absl::StatusOr<Block> FinalizeAndFinish(Aggregator& aggregator,
                                        const LocalFinalizer::Finish& finish) {
  ASSIGN_OR_RETURN(Block groups, aggregator.Finalize());
  if (groups.rows() == 0) return groups;
  return finish(std::move(groups));
}

}  // namespace

absl::StatusOr<std::vector<Block>> LocalFinalizer::Finalize(
    std::vector<std::unique_ptr<Aggregator>> aggregators, ThreadPool* pool,
    const LocalMerger::Options& options, const Finish& finish, bool in_place) {
  Aggregator& first = *aggregators[0];
  const Aggregator::KeyLayout layout = first.layout();
  // A no-key aggregation has one row even when nothing was added (its split states emit none).
  std::unique_ptr<Aggregator> no_keys;
  if (layout == Aggregator::KeyLayout::kNoKeys) no_keys = first.CloneEmpty(/*sparse=*/true);
  std::vector<absl::StatusOr<Block>> pieces;
  if (!in_place || (layout == Aggregator::KeyLayout::kNoKeys && first.SplitsIntoParts())) {
    pieces = FinalizeFromPartials(std::move(aggregators), pool, options, finish);
  } else if (LocalMerger::MergesSerially(aggregators, options)) {
    // The first may reference the other aggregators' arenas until it is finalized.
    for (size_t t = 1; t < aggregators.size(); ++t) first.MergeAllFrom(*aggregators[t]);
    pieces.push_back(FinalizeAndFinish(first, finish));
  } else if (layout == Aggregator::KeyLayout::kDirect16) {
    pieces = FinalizeFromPartials(std::move(aggregators), pool, options, finish);
  } else {
    pieces = FinalizeHashed(aggregators, pool, finish);
  }
  std::vector<Block> result;
  for (auto& piece : pieces) {
    RETURN_IF_ERROR(piece.status());
    if (piece->rows() > 0) result.push_back(std::move(*piece));
  }
  if (result.empty() && no_keys != nullptr) {
    ASSIGN_OR_RETURN(Block row, FinalizeAndFinish(*no_keys, finish));
    if (row.rows() > 0) result.push_back(std::move(row));
  }
  return result;
}

std::vector<absl::StatusOr<Block>> LocalFinalizer::FinalizeHashed(
    std::vector<std::unique_ptr<Aggregator>>& aggregators, ThreadPool* pool,
    const Finish& finish) {
  const size_t threads = aggregators.size();
  std::vector<std::vector<uint32_t>> orders(threads);
  std::vector<std::vector<uint32_t>> starts(threads);
  ParallelForOrSerial(pool, threads,
               [&](size_t t) { aggregators[t]->BucketOrder(&orders[t], &starts[t]); });
  auto groups_in = [&](size_t t, size_t b) -> size_t { return starts[t][b + 1] - starts[t][b]; };
  std::vector<absl::StatusOr<Block>> pieces(kBucketCount, Block());
  ParallelForOrSerial(pool, kBucketCount, [&](size_t b) {
    size_t total = 0;
    size_t largest = 0;
    for (size_t t = 0; t < threads; ++t) {
      total += groups_in(t, b);
      if (groups_in(t, b) > groups_in(largest, b)) largest = t;
    }
    if (total == 0) return;
    // Sources are only read (their states of bucket b may move): tasks of disjoint buckets
    // share them safely (Aggregator::MergeGroupsFrom).
    std::unique_ptr<Aggregator> merged = aggregators[0]->CloneEmpty(/*sparse=*/true);
    merged->Reserve(total);  // the sum bounds the merged count: the table never grows
    for (size_t i = 0; i < threads; ++i) {
      size_t t = (largest + i) % threads;
      merged->MergeGroupsFrom(*aggregators[t], orders[t].data() + starts[t][b], groups_in(t, b));
    }
    pieces[b] = FinalizeAndFinish(*merged, finish);
  });
  return pieces;
}

std::vector<absl::StatusOr<Block>> LocalFinalizer::FinalizeFromPartials(
    std::vector<std::unique_ptr<Aggregator>> aggregators, ThreadPool* pool,
    const LocalMerger::Options& options, const Finish& finish) {
  LocalMerger::Options final_only = options;
  final_only.final_only = true;
  std::unique_ptr<Aggregator> prototype = aggregators[0]->CloneEmpty(/*sparse=*/true);
  std::vector<Block> buckets = LocalMerger::Merge(std::move(aggregators), pool, final_only);
  // Buckets hold disjoint keys: each is merged into its own sparse aggregator and finalized.
  std::vector<absl::StatusOr<Block>> pieces(buckets.size(), Block());
  ParallelForOrSerial(pool, buckets.size(), [&](size_t b) {
    if (buckets[b].rows() == 0) return;
    std::unique_ptr<Aggregator> merged = prototype->CloneEmpty(/*sparse=*/true);
    absl::Status status = merged->Merge(buckets[b]);
    buckets[b] = Block();
    pieces[b] = status.ok() ? FinalizeAndFinish(*merged, finish) : status;
  });
  return pieces;
}

}  // namespace granite::core
