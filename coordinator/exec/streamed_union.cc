// QueryExecutor::StreamUnionAll (query_executor.h): a top-level `a UNION ALL b UNION ALL ...`
// whose operands are plain SELECTs (no subqueries, CTEs, joins, views, window functions, LIMIT BY
// or WITH TOTALS) with the same column types streams like one SELECT: every operand is planned
// first (the column types must be known before the first row leaves), then each runs in turn into
// the result sink — streamed block by block when it can be (streamed_select.h), else pushed whole.
// Operands whose types differ need their common supertype (CombineResults) and are left to
// SelectSetOperation, built whole.
#include "coordinator/exec/array_join.h"
#include "coordinator/exec/from_clause.h"
#include "coordinator/exec/query_executor.h"
#include "coordinator/planner/tuple_lowering.h"
#include "coordinator/exec/streamed_select.h"
#include "coordinator/exec/subqueries.h"
#include "coordinator/exec/window_split.h"
#include "core/status_macros.h"

namespace granite::coordinator {

namespace {

bool IsPlain(const sql::SelectStatement& select) {
  return select.set_operands.empty() && select.with.empty() && !select.with_totals &&
         select.limit_by.empty() && !select.group_by_all && !select.order_by_all &&
         !NeedsMaterializedFrom(select) && !HasExpressionSubqueries(select) && !NeedsSplit(select) &&
         !HasArrayJoin(select);
}

}  // namespace

absl::StatusOr<std::optional<QueryResult>> QueryExecutor::StreamUnionAll(
    const sql::SelectStatement& select, QueryContext* query) {
  // The operands as SelectSetOperation runs them: the statement's SETTINGS apply to each.
  std::vector<sql::SelectStatement> operands;
  sql::SelectStatement first = select;
  first.set_operands.clear();
  first.format.clear();
  operands.push_back(std::move(first));
  for (const auto& [op, operand] : select.set_operands) {
    if (op != sql::SetOperator::kUnionAll) return std::nullopt;
    sql::SelectStatement next = *operand;
    for (const auto& [name, value] : select.settings) next.settings.emplace(name, value);
    operands.push_back(std::move(next));
  }
  for (sql::SelectStatement& operand : operands) {
    // Tuple and Map columns read through their subcolumns; a tuple or map item is put together
    // after the union, which only SelectSetOperation does.
    ASSIGN_OR_RETURN(operand, ExpandCompounds(operand, query));
    for (const sql::ExprPtr& item : operand.select) {
      if (IsTupleCall(*item)) return std::nullopt;
    }
  }
  for (const sql::SelectStatement& operand : operands) {
    if (!IsPlain(operand)) return std::nullopt;
    if (operand.from && !operand.from->is_function && !operand.from->subquery &&
        ViewOf(*operand.from, query->database)) {
      return std::nullopt;
    }
  }
  std::vector<QueryPlan> plans;
  for (const sql::SelectStatement& operand : operands) {
    ASSIGN_OR_RETURN(QueryPlan plan, PlanSelect(operand, query));
    if (!plans.empty() && plan.types != plans[0].types) return std::nullopt;
    plans.push_back(std::move(plan));
  }
  ResultSink* sink = query->result_sink;
  RETURN_IF_ERROR(sink->Begin(plans[0].names, plans[0].types, select.format));
  for (const QueryPlan& plan : plans) {
    if (CanStream(plan)) {
      RETURN_IF_ERROR(Run(plan, query, sink).status());
      continue;
    }
    ASSIGN_OR_RETURN(core::Block block, Run(plan, query));
    ASSIGN_OR_RETURN(bool more, sink->Push(block));
    if (!more) break;
  }
  QueryResult result;
  result.has_rows = true;
  result.names = plans[0].names;
  result.types = plans[0].types;
  result.format = select.format;
  result.streamed = true;
  return result;
}

}  // namespace granite::coordinator
