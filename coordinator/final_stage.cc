#include "coordinator/final_stage.h"

#include "core/block_sort.h"
#include "core/expression.h"
#include "core/status_macros.h"

namespace granite::coordinator {

absl::StatusOr<core::Block> RunFinalStage(const QueryPlan& plan, const core::Block& stage) {
  core::Block input = stage;
  if (plan.has_having) {
    ASSIGN_OR_RETURN(auto having, core::Expression::FromProto(plan.having));
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
    ASSIGN_OR_RETURN(auto expr, core::Expression::FromProto(proto));
    ASSIGN_OR_RETURN(core::ColumnPtr column, expr->Evaluate(input));
    computed.columns.push_back(std::move(column));
  }
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

}  // namespace granite::coordinator
