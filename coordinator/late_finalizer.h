// LateFinalizer: the per-bucket merge of an ORDER BY ... LIMIT n aggregation whose ORDER BY needs
// only some of the aggregates (ClickBench Q33: GROUP BY WatchID, ClientIP ORDER BY count() DESC
// LIMIT 10, with sum() and avg() beside it). A bucket of nearly unique keys holds hundreds of
// thousands of groups and keeps 10 of them: merging and finalizing every other aggregate of every
// group (the avg state vector growing during the merge, avg's 128-bit division in Finalize,
// computing every final column) is wasted on all but those 10.
//
// Algorithm (MergeAndCut, one bucket, run on the merge pool by BucketedMerger::SetBucketMerge):
//   1. Merges the keys and the "early" aggregates only (those the ORDER BY references) of every
//      input block, keeping each input row's group id (Aggregator::merged_groups).
//   2. Finalizes them, evaluates the ORDER BY expressions (column references remapped to the
//      narrower block) and picks the top limit + offset groups with the same stable partial sort
//      as CutPiece, so ties fall the same way.
//   3. Gathers the input rows of those groups (every state column), in rank order and input
//      order within a group, merges them into a full aggregator, finalizes it and computes the
//      final columns (ComputeFinalColumns).
// The result has the rows and row order of CutPiece(plan, Finalize(merge of every input)).
// Small buckets (at most 4 (limit + offset) input rows) take that direct path instead.
// When the ORDER BY references no key column (ClickBench Q34: GROUP BY URL ORDER BY count()),
// step 2 finalizes without keys: key values (2.2M URL strings) are built in step 3, for the
// survivors only, even when every aggregate is early.
//
// Applies when CanCutByPiece(plan), the merge has keys, there is no HAVING (it may drop groups by
// a late aggregate), and the ORDER BY expressions reference a strict subset of the aggregates or
// no key column; SETTINGS late_aggregate_finalization = 0 turns it off.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/query_plan.h"
#include "core/aggregation/aggregate_function.h"
#include "core/block.h"
#include "core/types.h"

namespace granite::coordinator {

inline constexpr char kLateAggregateFinalizationSetting[] = "late_aggregate_finalization";

// Merges, finalizes and cuts one bucket of partial states, finalizing late aggregates only for
// the groups that survive the ORDER BY ... LIMIT cut.
// Thread-safety: MergeAndCut is const and may run on many threads at once.
class LateFinalizer {
 public:
  // Returns a finalizer for `plan` if late finalization applies to it (file comment), nullptr if
  // not. `key_types` and `specs` are the bucketed merge's. Fails like Aggregator::Create or
  // Expression::FromProto. `plan` must outlive the finalizer.
  static absl::StatusOr<std::unique_ptr<LateFinalizer>> Create(
      const QueryPlan& plan, std::vector<core::TypeId> key_types,
      std::vector<core::AggregateSpec> specs);

  // Returns CutPiece(plan, Finalize(merge of `inputs`)) (partial blocks of one bucket, keys then
  // state columns) and sets *groups to the bucket's group count. Fails like Aggregator::Merge.
  absl::StatusOr<core::Block> MergeAndCut(const std::vector<core::Block>& inputs,
                                          size_t* groups) const;

  // The aggregates (indexes into the specs) merged for every group; the others are merged only
  // for the survivors.
  const std::vector<size_t>& early_aggregates() const { return early_; }

 private:
  LateFinalizer(const QueryPlan& plan, std::vector<core::TypeId> key_types,
                std::vector<core::AggregateSpec> specs)
      : plan_(plan), key_types_(std::move(key_types)), specs_(std::move(specs)) {}

  // The direct path: merges every aggregate of every group, finalizes and cuts.
  absl::StatusOr<core::Block> MergeAllAndCut(const std::vector<core::Block>& inputs,
                                             size_t* groups) const;

  // Constant after construction.
  const QueryPlan& plan_;
  const std::vector<core::TypeId> key_types_;
  const std::vector<core::AggregateSpec> specs_;
  std::vector<size_t> early_;            // aggregates the ORDER BY references, ascending
  std::vector<core::AggregateSpec> early_specs_;
  std::vector<size_t> state_begin_;      // per aggregate: its first state column in a partial block
  std::vector<size_t> state_count_;      // per aggregate: its state column count
  std::vector<worker::v1::Expr> order_exprs_;  // plan.order's expressions over the early block
  size_t keep_ = 0;                      // limit + offset
  bool order_keys_ = false;              // the ORDER BY references a key column
};

}  // namespace granite::coordinator
