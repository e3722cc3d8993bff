// LateMaterializedScan: the two-phase scan of a projecting fragment with a small LIMIT (a top-N
// such as SELECT * ... WHERE URL LIKE '%google%' ORDER BY EventTime LIMIT 10). It sits between
// MorselSource (reading) and FragmentPipeline (filter, projection, top-N) in FragmentExecutor.
//
// Phase 1 reads, per morsel, only the "early" columns — those the filter and the ORDER BY keys
// read — plus a synthetic row locator (part index and row number), and runs a rewritten fragment
// over them: the same filter, the ORDER BY keys and the locator as projections, the same LIMIT.
// Its result names the at most `limit` rows per thread that can reach this worker's top-N.
// Phase 2 reads every source column only for the granules holding those rows, takes the rows, and
// runs the original fragment without its filter (the rows already passed it) to project and sort
// them. A query whose other 100 columns would otherwise be decompressed for every row then reads
// them for at most `limit` granules per thread.
//
// Applies when the planner set Fragment::late_materialization (a table, no aggregation, 0 < LIMIT
// <= late_materialization_max_limit: coordinator/planner/rules/merge_rules.h) and the fragment
// reads some source column that neither the filter nor the ORDER BY keys read.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/fragment_pipeline.h"
#include "core/thread_pool.h"
#include "core/plan/fragment.h"
#include "worker/morsel_source.h"

namespace granite::worker {

using LocalStates = std::vector<std::unique_ptr<core::FragmentPipeline::LocalState>>;

// Plans and runs the two phases for one fragment.
// Thread-safety: ReadEarly and the phase-1 pipeline's const methods may run on many threads;
// Materialize once, after every phase-1 Consume.
class LateMaterializedScan {
 public:
  // Returns the scan for `fragment`, or nullptr when late materialization does not apply.
  // Errors: those of compiling the rewritten fragments, and a bad setting value.
  static absl::StatusOr<std::unique_ptr<LateMaterializedScan>> Plan(
      const core::plan::Fragment& fragment);

  // The phase-1 pipeline: Consume it over ReadEarly blocks with its own local states.
  const core::FragmentPipeline& early_pipeline() const { return *early_; }
  // The source column positions phase 1 reads, in the order of its input columns.
  const std::vector<size_t>& early_positions() const { return early_positions_; }

  // Reads the early columns of `morsel` and appends the row locator column.
  absl::StatusOr<core::Block> ReadEarly(const MorselSource& source, const Morsel& morsel) const;

  // Reads the rows phase 1 selected (from `states` of early_pipeline()) with every source column,
  // reading granules in parallel on `pool`, and returns the fragment's result rows — what
  // FragmentPipeline::FinishRows of the original fragment would return.
  absl::StatusOr<core::Block> Materialize(const MorselSource& source, LocalStates states,
                                          core::ThreadPool* pool) const;

 private:
  LateMaterializedScan() = default;

  // Constant after construction.
  std::vector<size_t> early_positions_;  // source column positions read in phase 1
  std::unique_ptr<core::FragmentPipeline> early_;
  std::unique_ptr<core::FragmentPipeline> late_;  // the original fragment without its filter
};

}  // namespace granite::worker
