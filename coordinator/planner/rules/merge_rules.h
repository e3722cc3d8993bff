// Planner rules for how the coordinator merges the workers' partial states and for the workers'
// scan of a small top-N. Each sets plan fields only; QueryExecutor::Run, BucketedMerger, the
// final stage and the worker act on them.
//
//   merge_group_limit (setting merge_group_limit): GROUP BY ... LIMIT n without ORDER BY or HAVING
//   — any n complete groups answer it (final expressions never drop rows), so the merge may stop
//   at n + offset groups. Not with the key-hash filter, which needs every bucket merged.
//
//   piece_cut (setting top_n_piece_cut): ORDER BY ... LIMIT n over groups — each merged bucket is
//   cut to its n + offset top rows on the pool before the buckets are concatenated.
//
//   late_finalization (setting late_aggregate_finalization): with piece_cut, aggregates the ORDER
//   BY does not need are finalized for the top rows only (exec/late_finalizer.h decides per plan
//   whether that pays).
//
//   late_materialization (setting late_materialization_max_limit, 0 = off): a projecting fragment
//   over a table with 0 < LIMIT <= the setting reads its other columns only for the rows that can
//   reach the top-N (worker/late_materialized_scan.h).
#pragma once

#include "coordinator/planner/rules/rule.h"

namespace granite::coordinator {

bool ApplyMergeGroupLimit(QueryPlan* plan, const RuleContext& context);
bool ApplyPieceCut(QueryPlan* plan, const RuleContext& context);
bool ApplyLateFinalization(QueryPlan* plan, const RuleContext& context);
bool ApplyLateMaterialization(QueryPlan* plan, const RuleContext& context);

}  // namespace granite::coordinator
