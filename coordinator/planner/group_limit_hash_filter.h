// The "GROUP BY ... LIMIT without ORDER BY" planner rule and its final-stage half. Any L = limit +
// offset complete groups answer such a query, so workers aggregate only the rows of keys whose
// hash may be among the L smallest (core/aggregation/hash_limit_filter.h explains the algorithm
// and why it is exact), and the coordinator, after merging every bucket (a few hundred groups),
// keeps the L smallest (hash, key) groups before the final stage applies LIMIT / OFFSET.
//
// The rule fires (Fragment.group_limit_hash_filter = L) only when all of these hold:
//   - the fragment aggregates and has GROUP BY keys (or SELECT DISTINCT keys);
//   - the query has LIMIT n with n > 0, and no ORDER BY and no HAVING — the final stage then only
//     computes output expressions row by row, never dropping or reordering groups;
//   - the workers do not finalize their groups themselves (finalize_on_worker);
//   - L <= the setting group_by_limit_hash_filter (default kDefaultMaxLimit; 0 turns the rule
//     off), which bounds each thread's filter and the groups that travel.
// When it does not fire, BucketedMerger's group limit still ends the merge early.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "coordinator/planner/query_plan.h"

namespace granite::coordinator {

// Returns the L to set in plan.fragment.group_limit_hash_filter (0: the rule does not fire).
// The largest L it applies to is the setting group_by_limit_hash_filter.
absl::StatusOr<uint64_t> DecideGroupLimitHashFilter(const QueryPlan& plan);

// Returns the plan.fragment.group_limit_hash_filter groups of `stage` (keys, then finalized
// aggregates) smallest in (key hash, key) order; `stage` itself when the rule did not fire or it
// holds no more groups than that.
core::Block KeepBottomGroups(const QueryPlan& plan, core::Block stage);

}  // namespace granite::coordinator
