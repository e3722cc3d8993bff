// PartBoundsScan: answers min(c) / max(c) with no WHERE and no GROUP BY (SELECT MIN(EventDate),
// MAX(EventDate) FROM hits) from the per-part, per-column bounds that every part keeps in memory
// (storage/part.h, Part::column_bounds), instead of decompressing the column. It sits in
// FragmentExecutor in place of the morsel loop: the fragment's pipeline consumes one block that
// holds, per part, its minimum and its maximum of each source column, and min / max over those
// rows equal min / max over the part's rows.
//
// Applies when the fragment aggregates without keys or filter, every aggregate is min or max of a
// bare source column, every source column is such an argument, every column is an integer, Date
// or DateTime (floats may hold NaN and signed zeros, strings are kept truncated), and every part
// has the bounds of every source column. Turned off with SETTINGS use_part_bounds_for_min_max = 0.
#pragma once

#include <optional>

#include "core/block.h"
#include "core/plan/fragment.h"
#include "worker/morsel_source.h"

namespace granite::worker {

// Returns the bounds block for `fragment` over the parts of `source`'s morsels, or nullopt when
// the fragment does not qualify (see above).
// REQUIRES: `source` was opened for `fragment`.
std::optional<core::Block> PartBoundsBlock(const core::plan::Fragment& fragment,
                                           const MorselSource& source);

}  // namespace granite::worker
