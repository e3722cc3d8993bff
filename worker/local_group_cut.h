// The worker's half of shard-local HAVING and top-N (coordinator/planner/rules/shard_local_top_n.h): cuts the
// groups a worker finalized itself (Aggregate::finalize_on_worker) to those it must ship.
#pragma once

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/plan/fragment.h"

namespace granite::worker {

// Returns the rows of `groups` (group keys then finalized aggregates) for which cut.having is true
// (all if unset), then, with cut.limit > 0, the first cut.limit of them ordered by cut.order (ties
// keep input order; no order: the first ones). Errors: those of evaluating the expressions;
// INCORRECT_DATA when cut.order and cut.descending differ in length.
absl::StatusOr<core::Block> CutLocalGroups(const core::plan::LocalCut& cut, core::Block groups);

}  // namespace granite::worker
