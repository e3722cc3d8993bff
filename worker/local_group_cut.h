// The worker's half of shard-local HAVING and top-N (coordinator/planner/shard_local_top_n.h): cuts the
// groups a worker finalized itself (Fragment.finalize_on_worker) to those it must ship.
#pragma once

#include "absl/status/statusor.h"
#include "core/block.h"
#include "granite/worker/v1/plan.pb.h"

namespace granite::worker {

// True when `fragment` asks for a cut (local_having set or local_limit > 0).
bool WantsLocalGroupCut(const granite::worker::v1::Fragment& fragment);

// Returns the rows of `groups` (group keys then finalized aggregates) for which
// fragment.local_having is true (all if unset), then, with local_limit > 0, the first local_limit
// of them ordered by fragment.local_order (ties keep input order; no order: the first ones).
// Errors: those of evaluating the expressions; INCORRECT_DATA when local_order and
// local_order_descending differ in length.
absl::StatusOr<core::Block> CutLocalGroups(const granite::worker::v1::Fragment& fragment,
                                           core::Block groups);

}  // namespace granite::worker
