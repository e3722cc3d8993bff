// The coordinator's last step of a SELECT over the merged stage block: HAVING, output
// expressions, ORDER BY, OFFSET / LIMIT.
#pragma once

#include "absl/status/statusor.h"
#include "coordinator/planner/query_plan.h"
#include "core/block.h"

namespace granite::coordinator {

// Returns the result block (plan.visible columns) computed from `stage`. Equals
// FinishFinalStage(plan, ComputeFinalColumns(plan, stage)).
absl::StatusOr<core::Block> RunFinalStage(const QueryPlan& plan, const core::Block& stage);

// HAVING, then the final expressions: every plan.final_exprs column (not cut to visible).
absl::StatusOr<core::Block> ComputeFinalColumns(const QueryPlan& plan, const core::Block& stage);
// ORDER BY, OFFSET / LIMIT and the cut to plan.visible over ComputeFinalColumns' output.
absl::StatusOr<core::Block> FinishFinalStage(const QueryPlan& plan, core::Block computed);

// Top-N by piece (ORDER BY ... LIMIT n with n > 0): the stage may be cut piece by piece (merged
// buckets, in parallel) before it is concatenated — the final stage's rows are among the top
// limit + offset rows of their own piece. Then
//   FinishFinalStage(plan, Concat(CutPiece(plan, piece) for pieces in stage order))
// equals RunFinalStage(plan, Concat(pieces)), ties included (ties keep row order).
bool CanCutByPiece(const QueryPlan& plan);
// ComputeFinalColumns of `piece`, cut to its first limit + offset rows in ORDER BY order.
// REQUIRES: CanCutByPiece(plan).
absl::StatusOr<core::Block> CutPiece(const QueryPlan& plan, const core::Block& piece);
// The first limit + offset rows, in ORDER BY order, of the concatenation of `pieces` (CutPiece
// outputs in stage order): FinishFinalStage of the result equals FinishFinalStage of
// ConcatBlocks(pieces), ties included. Only the ORDER BY columns are concatenated and sorted;
// the chosen rows are then gathered from their pieces (with LIMIT 10 OFFSET 1000, 256 pieces
// of 1010 rows with long strings were copied whole to keep 1010 of them).
// REQUIRES: CanCutByPiece(plan); every piece has the final columns of CutPiece.
absl::StatusOr<core::Block> CombineCutPieces(const QueryPlan& plan, std::vector<core::Block> pieces);

}  // namespace granite::coordinator
