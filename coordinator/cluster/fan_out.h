// FanOut: sends one fragment to every worker at once and routes what comes back — column blocks
// to the caller, partial-aggregate buckets to the BucketedMerger. The first failure cancels every
// other worker's stream, so a failed or cancelled query stops everywhere at once.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/exec/bucketed_merger.h"
#include "coordinator/server/query_context.h"
#include "coordinator/cluster/worker_set.h"
#include "core/block.h"
#include "granite/worker/v1/plan.pb.h"

namespace granite::coordinator {

// Runs `fragment` on every worker (worker_index / worker_count filled in per worker).
// Aggregating fragments feed `merger` (REQUIRES: merger != null); others return blocks grouped
// per worker, in worker order.
absl::StatusOr<std::vector<std::vector<core::Block>>> FanOut(
    const WorkerSet& workers, const granite::worker::v1::Fragment& fragment, QueryContext* query,
    BucketedMerger* merger);

}  // namespace granite::coordinator
