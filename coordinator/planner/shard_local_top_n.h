// Shard-local HAVING and top-N: when the "skip the final merge" rule fired
// (shard_local_aggregation.h), every group lives on exactly one worker, so a worker may apply
// HAVING and ORDER BY ... LIMIT n OFFSET m to its own finalized groups and ship only the first
// n + m of them: the coordinator's final stage over the concatenated per-worker lists (HAVING,
// ORDER BY, LIMIT / OFFSET again) returns what it would over all groups. GROUP BY ... LIMIT n
// without ORDER BY ships any n + m groups (after HAVING) for the same reason.
#pragma once

#include "coordinator/planner/query_plan.h"

namespace granite::coordinator {

// Copies `plan`'s HAVING, ORDER BY keys and limit + offset into its fragment's local_having /
// local_order / local_order_descending / local_limit (plan.proto) when
// plan->fragment.finalize_on_worker() is set; otherwise (or with LIMIT 0, or with the query's
// SETTINGS shard_local_top_n = 0, which ships every finalized group as before) changes nothing.
// REQUIRES: the plan is fully bound (final_exprs, order, having, limit, offset set).
void PlanShardLocalTopN(QueryPlan* plan);

}  // namespace granite::coordinator
