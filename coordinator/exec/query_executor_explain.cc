// QueryExecutor::Explain: the plan of a SELECT as it would run. Work the query would do before
// planning is done here too (exec/explain.h): correlated subqueries are decorrelated, scalar
// subqueries and IN sets are run and become constants or joins, and the smaller sides of joins
// are read to choose where the joins run. A FROM subquery that does not merge into its SELECT
// (exec/subquery_merge.h), a joined subquery and each operand of UNION / INTERSECT / EXCEPT are
// explained in turn, indented under a line that says where their rows go.
#include "coordinator/exec/decorrelate.h"
#include "coordinator/exec/explain.h"
#include "coordinator/exec/from_clause.h"
#include "coordinator/exec/in_joins.h"
#include "coordinator/exec/query_executor.h"
#include "coordinator/exec/subqueries.h"
#include "coordinator/exec/views.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/exec/window_split.h"
#include "coordinator/cluster/fan_out.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using core::ErrorCode;

void AppendIndented(const std::string& heading, std::vector<std::string> lines,
                    std::vector<std::string>* out) {
  out->push_back(heading);
  for (std::string& line : lines) out->push_back("  " + std::move(line));
}

}  // namespace

absl::StatusOr<QueryResult> QueryExecutor::Explain(const sql::ExplainStatement& explain,
                                                   QueryContext* query) {
  ASSIGN_OR_RETURN(ExplainOptions options, ParseExplainOptions(explain.options));
  ASSIGN_OR_RETURN(std::vector<std::string> lines,
                   ExplainSelect(explain.select, options, query, nullptr));
  QueryResult result;
  result.has_rows = true;
  result.names = {"explain"};
  result.types = {core::TypeId::kString};
  auto column = std::make_shared<core::Column>(core::TypeId::kString);
  for (const std::string& line : lines) column->AppendString(line);
  result.block.rows_without_columns = lines.size();
  result.block.columns.push_back(std::move(column));
  result.format = explain.select.format;
  return result;
}

absl::StatusOr<std::vector<std::string>> QueryExecutor::ExplainSelect(
    const sql::SelectStatement& statement, const ExplainOptions& options, QueryContext* query,
    const CteScope* outer) {
  CteScope scope;
  scope.parent = outer;
  scope.depth = outer == nullptr ? 0 : outer->depth + 1;
  if (scope.depth > kMaxSelectNesting) {
    return core::Error(ErrorCode::kTooDeepRecursion, "Subqueries nest too deep to explain");
  }
  for (const sql::WithItem& with : statement.with) {
    if (with.subquery) scope.ctes[with.name] = with.subquery;
  }
  std::vector<std::string> lines;
  if (!statement.set_operands.empty()) {
    lines.push_back("Set operation: the operands run in turn, then the coordinator combines them");
    sql::SelectStatement first = statement;
    first.set_operands.clear();
    std::vector<const sql::SelectStatement*> operands = {&first};
    for (const auto& [op, select] : statement.set_operands) operands.push_back(select.get());
    for (size_t i = 0; i < operands.size(); ++i) {
      ASSIGN_OR_RETURN(std::vector<std::string> operand,
                       ExplainSelect(*operands[i], options, query, &scope));
      AppendIndented("Operand " + std::to_string(i + 1), std::move(operand), &lines);
    }
    return lines;
  }
  core::Settings settings = query->settings;
  RETURN_IF_ERROR(settings.Apply(statement.settings));
  sql::SelectStatement source = ResolveCteReferences(statement, scope);
  ASSIGN_OR_RETURN(source, ExpandViews(source, [this, query](const sql::TableRef& ref) {
                     return ViewOf(ref, query->database);
                   }));
  ASSIGN_OR_RETURN(source, ExpandCompounds(source, query));
  ASSIGN_OR_RETURN(source, MergeSubqueries(std::move(source), scope, query));
  ASSIGN_OR_RETURN(source, FoldArrayJoins(std::move(source), query));
  if (NeedsSplit(source) || !source.limit_by.empty() || source.with_totals) {
    return core::Error(ErrorCode::kNotImplemented,
                       "EXPLAIN of a query with window functions, QUALIFY, grouping sets, LIMIT BY "
                       "or WITH TOTALS is not supported yet");
  }
  ASSIGN_OR_RETURN(source, AggregateBelowJoinsIfOn(std::move(source), settings, query));
  // As SelectIn: IN sets over many rows become joins, other subqueries constants, then the FROM.
  SubqueryRunner run = RunnerIn(statement, query, &scope);
  ASSIGN_OR_RETURN(PreparedSelect prepared,
                   PrepareSubqueries(std::move(source), settings, query, run));
  if (prepared.constants) {
    lines.push_back("Scalar subqueries and IN sets: run first, their values are constants below");
  }
  // FROM and joined subqueries: their own plans, then the rest over their rows.
  auto explain_subquery = [&](const sql::TableRef& ref) -> absl::Status {
    if (!ref.subquery) return absl::OkStatus();
    ASSIGN_OR_RETURN(std::vector<std::string> inner,
                     ExplainSelect(sql::WithOuterSettings(*ref.subquery, statement), options,
                                   query, &scope));
    AppendIndented("Subquery " + (ref.alias.empty() ? std::string("(unnamed)") : ref.alias) +
                       ": runs first; its rows are read on the coordinator" +
                       (ref.array_join ? ", a row per element of its ARRAY JOIN arrays" : ""),
                   std::move(inner), &lines);
    return absl::OkStatus();
  };
  if (prepared.select.from) RETURN_IF_ERROR(explain_subquery(*prepared.select.from));
  for (const sql::JoinClause& join : prepared.select.joins) {
    RETURN_IF_ERROR(explain_subquery(join.table));
  }
  const bool joins = !prepared.select.joins.empty();
  ASSIGN_OR_RETURN(bool on_coordinator, PrepareFrom(&prepared, settings, query, run));
  for (std::string& note : prepared.from_notes) lines.push_back(std::move(note));
  if (on_coordinator && joins) {
    lines.push_back("Joins: every side read and joined on the coordinator");
  }
  ASSIGN_OR_RETURN(QueryPlan plan,
                   PlanSelect(prepared.select, query, std::move(prepared.materialized),
                              prepared.broadcast ? &*prepared.broadcast : nullptr));
  std::optional<IndexSummary> indexes;
  if (options.indexes && plan.source == SourceKind::kWorkers && plan.fragment.scan.is_table()) {
    core::plan::Fragment prune_only = plan.fragment;
    prune_only.explain_only = true;
    RETURN_IF_ERROR(FanOut(*workers_, prune_only, query, nullptr).status());
    indexes = IndexSummary{query->parts_selected, query->parts_total, query->granules_selected,
                           query->granules_total};
  }
  for (std::string& line : ExplainLines(plan, workers_->shard_count(), indexes)) {
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace granite::coordinator
