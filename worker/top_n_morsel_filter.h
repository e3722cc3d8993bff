// TopNMorselFilter: skips whole morsels of an ORDER BY ... LIMIT scan whose rows cannot enter the
// thread's top-N (core/top_n_threshold.h). Once a thread holds LIMIT rows, FragmentExecutor asks it
// before reading a morsel: when every granule's min/max of the first ORDER BY key (kept in the
// part's marks) lies beyond the thread's bound, the morsel is not read at all. This pays on tables
// stored in (or correlated with) the key's order — ORDER BY EventTime DESC LIMIT 10 on a table
// sorted by time reads a few granules. Rows of a morsel that is read are still cut by the same
// bound in FragmentPipeline::Consume before the filter runs.
#pragma once

#include <cstddef>
#include <optional>

#include "core/fragment_pipeline.h"
#include "core/plan/fragment.h"
#include "worker/late_materialized_scan.h"
#include "worker/morsel_source.h"

namespace granite::worker {

// Decides per morsel, from granule bounds alone, whether the scan may skip it.
// Thread-safety: immutable; Skip may run concurrently, each thread with its own state.
class TopNMorselFilter {
 public:
  // Returns the filter for the morsel loop that consumes `scan` (the fragment's pipeline, or the
  // phase-1 pipeline of `late` when not null) over the table of `source`, or nullopt when `scan`
  // has no top-N bound (FragmentPipeline::top_n_threshold).
  static std::optional<TopNMorselFilter> Plan(const core::plan::Fragment& fragment,
                                              const core::FragmentPipeline& scan,
                                              const LateMaterializedScan* late,
                                              const MorselSource& source);

  // Returns true when no row of `morsel` can enter the top-N of `state`: `state` has a bound and
  // every granule of the morsel has known bounds of the key beyond it.
  bool Skip(const Morsel& morsel, const core::FragmentPipeline::LocalState& state) const;

 private:
  TopNMorselFilter(const core::TopNThreshold& threshold, size_t schema_index)
      : threshold_(threshold), schema_index_(schema_index) {}

  // Constant after construction.
  core::TopNThreshold threshold_;
  size_t schema_index_;  // the key's column in the table schema
};

}  // namespace granite::worker
