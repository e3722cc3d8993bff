// LateFinalizer: the bucket merge of an ORDER BY ... LIMIT n aggregation whose ORDER BY needs
// only some of the aggregates (e.g. GROUP BY two high-cardinality keys ORDER BY count() DESC
// LIMIT 10, with sum() and avg() beside it). A bucket of nearly unique keys holds hundreds of
// thousands of groups and keeps 10 of them: merging and finalizing every other aggregate of every
// group (the avg state vector growing during the merge, avg's 128-bit division in Finalize,
// computing every final column) is wasted on all but those 10.
//
// Algorithm, in two phases so that the top limit + offset rows are chosen across every bucket
// before any late aggregate or key is built:
//   MergeBucket (one bucket, on the merge pool, BucketedMerger::SetBucketMerge):
//     1. Merges the keys and the "early" aggregates only (those the ORDER BY references) of every
//        input block, keeping each input row's group id (Aggregator::merged_groups). With a
//        String key and no key in the ORDER BY (ORDER BY count()), rows are grouped by reference
//        instead (key_ref_grouper.h: no key serialized or copied) and the early states merged
//        by group id; SETTINGS late_aggregate_finalization_by_ref = 0 uses the Aggregator.
//     2. Finalizes them (without keys when the ORDER BY references none), evaluates the ORDER BY
//        expressions (column references remapped to the narrower block) and keeps the bucket's
//        candidates: its top limit + offset groups with the same stable partial sort as CutPiece
//        (all its groups, in group order, if it has no more), with their ORDER BY values.
//     3. A large bucket (more than 4 (limit + offset) input rows) gathers the input rows of its
//        candidates now and drops the rest; a small one keeps its input blocks (shared columns,
//        no copy) and row -> group ids.
//   Combine (once, after every bucket; BucketedMerger::SetPieceCombine):
//     4. Picks the top limit + offset candidates over all buckets (concatenated in bucket order,
//        stable sort: ties fall as in CombineCutPieces over CutPiece pieces).
//     5. Gathers the input rows of only those groups, in rank order (input order within a group),
//        merges them in full (every aggregate, keys), finalizes and computes the final columns.
// A String-keyed GROUP BY with LIMIT 10 OFFSET 1000 over 256 buckets of ~900 groups so builds
// 1010 String key pairs instead of 236K, and sorts 1010 rows' final columns, not every group's.
// The result has the rows and row order of CombineCutPieces over the CutPiece of every bucket.
// MergeAndCut(inputs) runs both phases over one bucket: CutPiece(plan, Finalize(merge)).
// Applies when CanCutByPiece(plan), the merge has keys, there is no HAVING (it may drop groups by
// a late aggregate), and the ORDER BY expressions reference a strict subset of the aggregates or
// no key column; SETTINGS late_aggregate_finalization = 0 turns it off.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/exec/bucketed_merger.h"
#include "coordinator/planner/query_plan.h"
#include "core/aggregation/aggregate_function.h"
#include "core/block.h"
#include "core/types.h"

namespace granite::coordinator {

// Merges, finalizes and cuts the buckets of partial states, finalizing late aggregates and
// building keys only for the groups that survive the ORDER BY ... LIMIT cut.
// Thread-safety: MergeAndCut is const and may run on many threads at once. MergeBucket may run
// on many threads at once for distinct buckets; Combine after every MergeBucket has returned
// (with a happens-before edge, e.g. BucketedMerger's mutex).
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

  // Phases 1-3 for bucket `bucket` (< core::kBucketCount): keeps its candidates for Combine and
  // returns their count (0 for no groups); sets *groups to the bucket's group count.
  // REQUIRES: each bucket merged at most once. Fails like Aggregator::Merge.
  absl::StatusOr<size_t> MergeBucket(uint32_t bucket, const std::vector<core::Block>& inputs,
                                     size_t* groups);
  // Makes `merger` merge its buckets with MergeBucket and combine them with Combine (its piece
  // cut stays for single blocks merged serially). REQUIRES: `merger` has a piece cut, no Add yet;
  // this finalizer outlives it.
  void Attach(BucketedMerger* merger);
  // Phases 4-5 over the buckets merged so far: equals CombineCutPieces(plan, the CutPiece of
  // every bucket's Finalize, bucket order). With no candidates at all: the final columns of an
  // empty stage. Releases the buckets' candidates.
  absl::StatusOr<core::Block> Combine();

  // The aggregates (indexes into the specs) merged for every group; the others are merged only
  // for the survivors.
  const std::vector<size_t>& early_aggregates() const { return early_; }

 private:
  LateFinalizer(const QueryPlan& plan, std::vector<core::TypeId> key_types,
                std::vector<core::AggregateSpec> specs)
      : plan_(plan), key_types_(std::move(key_types)), specs_(std::move(specs)) {}

  // A bucket's candidates: the groups that may be in the final top (phase 2) and where their
  // input rows are.
  struct Candidates {
    std::vector<core::Block> inputs;                // partial blocks holding the groups' rows
    std::vector<std::vector<uint32_t>> row_groups;  // per input, per row: its group id
    std::vector<uint32_t> groups;                   // candidate i's group id, best first
    core::Block order;                              // candidate i's ORDER BY values (row i)
  };

  // Phases 1-3 over one bucket's inputs.
  absl::StatusOr<Candidates> MergeCandidates(const std::vector<core::Block>& inputs,
                                             size_t* groups) const;
  // True if `input`'s columns have the partial block's types. REQUIRES: as many columns.
  bool TypesMatch(const core::Block& input) const;
  // Phases 4-5 over buckets' candidates, in bucket order.
  absl::StatusOr<core::Block> CombineCandidates(const std::vector<const Candidates*>& buckets) const;

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
  bool group_by_ref_ = false;            // phase 1 groups with a KeyRefGrouper
  std::vector<core::TypeId> partial_types_;  // the column types of a partial block
  // Per bucket, written by its MergeBucket only, read by Combine.
  std::vector<std::optional<Candidates>> buckets_;
};

}  // namespace granite::coordinator
