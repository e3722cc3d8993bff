#include "worker/top_n_morsel_filter.h"

#include <vector>

namespace granite::worker {

std::optional<TopNMorselFilter> TopNMorselFilter::Plan(const core::plan::Fragment& fragment,
                                                       const core::FragmentPipeline& scan,
                                                       const LateMaterializedScan* late,
                                                       const MorselSource& source) {
  const std::optional<core::TopNThreshold>& threshold = scan.top_n_threshold();
  if (!threshold || !fragment.scan.is_table()) return std::nullopt;
  size_t position = threshold->input_column();
  if (late != nullptr) {
    // Phase 1 reads the early columns, then the row locator.
    const std::vector<size_t>& early = late->early_positions();
    if (position >= early.size()) return std::nullopt;
    position = early[position];
  }
  if (position >= fragment.scan.columns.size()) return std::nullopt;
  return TopNMorselFilter(*threshold, source.schema_index(position));
}

bool TopNMorselFilter::Skip(const Morsel& morsel,
                            const core::FragmentPipeline::LocalState& state) const {
  if (!state.top_n_bound.set || morsel.data == nullptr) return false;
  for (size_t granule = morsel.begin; granule < morsel.end; ++granule) {
    const storage::GranuleBounds& bounds = morsel.data->granule_bounds(schema_index_, granule);
    if (!bounds.present) return false;
    if (threshold_.RangeMayEnter(bounds.min, bounds.max, state.top_n_bound)) return false;
  }
  return true;
}

}  // namespace granite::worker
