#include "coordinator/exec/final_stage.h"

#include <algorithm>

#include "core/block_sort.h"
#include "core/expression.h"
#include "core/status_macros.h"

namespace granite::coordinator {

absl::StatusOr<core::Block> ComputeFinalColumns(const QueryPlan& plan, const core::Block& stage) {
  core::Block input = stage;
  if (plan.has_having) {
    ASSIGN_OR_RETURN(auto having, core::Expression::Compile(plan.having));
    ASSIGN_OR_RETURN(core::ColumnPtr mask, having->Evaluate(input));
    core::Block filtered;
    const uint8_t* keep = mask->Data<uint8_t>();
    size_t kept = 0;
    for (size_t i = 0; i < input.rows(); ++i) kept += keep[i] != 0;
    filtered.rows_without_columns = kept;
    for (const auto& column : input.columns) {
      filtered.columns.push_back(std::make_shared<core::Column>(column->Filter(keep)));
    }
    input = std::move(filtered);
  }
  core::Block computed;
  computed.rows_without_columns = input.rows();
  for (const auto& proto : plan.final_exprs) {
    ASSIGN_OR_RETURN(auto expr, core::Expression::Compile(proto));
    ASSIGN_OR_RETURN(core::ColumnPtr column, expr->Evaluate(input));
    computed.columns.push_back(std::move(column));
  }
  return computed;
}

bool CanCutByPiece(const QueryPlan& plan) {
  return !plan.order.empty() && plan.has_limit && plan.limit > 0;
}

absl::StatusOr<core::Block> CutPiece(const QueryPlan& plan, const core::Block& piece) {
  ASSIGN_OR_RETURN(core::Block computed, ComputeFinalColumns(plan, piece));
  size_t keep = plan.limit + plan.offset;
  // Tied rows stay in row order either way (SortPermutation breaks ties by position), so the
  // final sort of the concatenated pieces breaks ties as it would over the whole stage.
  if (computed.rows() <= keep) return computed;
  return core::TakeRows(computed, core::SortPermutation(computed, plan.order, keep));
}

absl::StatusOr<core::Block> CombineCutPieces(const QueryPlan& plan, std::vector<core::Block> pieces) {
  size_t keep = plan.limit + plan.offset;
  size_t total = 0;
  for (const core::Block& piece : pieces) total += piece.rows();
  if (pieces.size() <= 1 || total <= keep || pieces[0].columns.empty()) {
    return core::ConcatBlocks(pieces);
  }
  // The ORDER BY columns alone, concatenated in stage order: positions (the tie-break) match
  // those of the full concatenation.
  std::vector<core::Block> order_only(pieces.size());
  std::vector<core::SortColumn> keys;
  for (size_t k = 0; k < plan.order.size(); ++k) {
    keys.push_back({k, plan.order[k].descending, plan.order[k].nulls_first});
    for (size_t p = 0; p < pieces.size(); ++p) {
      order_only[p].rows_without_columns = pieces[p].rows();
      order_only[p].columns.push_back(pieces[p].columns[plan.order[k].column]);
    }
  }
  std::vector<uint32_t> chosen =
      core::SortPermutation(core::ConcatBlocks(order_only), keys, keep);
  std::vector<size_t> starts;  // first global row of each piece
  for (size_t p = 0, start = 0; p < pieces.size(); start += pieces[p].rows(), ++p) {
    starts.push_back(start);
  }
  core::Block out;
  out.rows_without_columns = chosen.size();
  for (size_t c = 0; c < pieces[0].columns.size(); ++c) {
    auto column = std::make_shared<core::Column>(pieces[0].columns[c]->logical_type());
    column->Reserve(chosen.size());
    for (uint32_t row : chosen) {
      size_t p = static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), row) -
                                     starts.begin()) - 1;
      column->AppendRange(*pieces[p].columns[c], row - starts[p], 1);
    }
    out.columns.push_back(std::move(column));
  }
  return out;
}

absl::StatusOr<core::Block> FinishFinalStage(const QueryPlan& plan, core::Block computed) {
  if (!plan.order.empty()) {
    size_t keep = plan.has_limit ? plan.limit + plan.offset : 0;
    if (plan.has_limit && keep == 0) keep = 1;  // LIMIT 0: sort nothing, slice below empties it
    computed = core::TakeRows(computed, core::SortPermutation(computed, plan.order, keep));
  }
  if (plan.has_limit && plan.limit == 0) {
    computed = core::SliceRows(computed, computed.rows(), 0);  // LIMIT 0: no rows
  } else if (plan.has_limit || plan.offset > 0) {
    computed = core::SliceRows(computed, plan.offset, plan.has_limit ? plan.limit : 0);
  }
  computed.columns.resize(plan.visible);
  return computed;
}

absl::StatusOr<core::Block> RunFinalStage(const QueryPlan& plan, const core::Block& stage) {
  ASSIGN_OR_RETURN(core::Block computed, ComputeFinalColumns(plan, stage));
  return FinishFinalStage(plan, std::move(computed));
}

}  // namespace granite::coordinator
