// The coordinator's last step of a SELECT over the merged stage block: HAVING, output
// expressions, ORDER BY, OFFSET / LIMIT.
#pragma once

#include "absl/status/statusor.h"
#include "coordinator/query_plan.h"
#include "core/block.h"

namespace granite::coordinator {

// Returns the result block (plan.visible columns) computed from `stage`.
absl::StatusOr<core::Block> RunFinalStage(const QueryPlan& plan, const core::Block& stage);

}  // namespace granite::coordinator
