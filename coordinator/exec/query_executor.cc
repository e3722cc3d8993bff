#include "coordinator/exec/query_executor.h"

#include <chrono>
#include <thread>

#include "absl/strings/numbers.h"
#include "coordinator/coord/etcd_catalog.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/system/zookeeper_table.h"
#include "core/block_sort.h"
#include "core/error.h"
#include "core/function_error_codes.h"
#include "core/fragment_pipeline.h"
#include "core/metrics/events.h"
#include "core/memory/memory_tracker.h"
#include "core/status_macros.h"
#include "core/thread_priority.h"
#include "coordinator/planner/binder.h"
#include "coordinator/access/grant_store.h"
#include "coordinator/exec/access_statements.h"
#include "coordinator/exec/array_join.h"
#include "coordinator/exec/eager_aggregation.h"
#include "coordinator/planner/compound_columns.h"
#include "coordinator/exec/bucketed_merger.h"
#include "coordinator/cluster/table_name.h"
#include "coordinator/exec/catalog_statements.h"
#include "coordinator/exec/alter_columns.h"
#include "coordinator/exec/ddl_executor.h"
#include "coordinator/cluster/fan_out.h"
#include "coordinator/cluster/worker_client.h"
#include "coordinator/planner/rules/group_limit_hash_filter.h"
#include "coordinator/exec/final_stage.h"
#include "coordinator/exec/in_joins.h"
#include "coordinator/exec/insert_executor.h"
#include "coordinator/exec/local_consume.h"
#include "coordinator/exec/explain.h"
#include "coordinator/exec/set_operations.h"
#include "coordinator/exec/streamed_select.h"
#include "coordinator/exec/subquery_memo.h"
#include "coordinator/exec/subquery_merge.h"
#include "coordinator/exec/table_write_gate.h"
#include "coordinator/exec/limit_by.h"
#include "coordinator/exec/window_functions.h"
#include "coordinator/exec/window_split.h"
#include "coordinator/exec/views.h"
#include "core/table_functions/table_function.h"
#include "coordinator/exec/late_finalizer.h"
#include "coordinator/exec/part_statements.h"
#include "coordinator/exec/query_parameters.h"
#include "coordinator/sql/lexer.h"
#include "coordinator/sql/parser.h"
#include "coordinator/system/settings_table.h"
#include "coordinator/server/statement_kind.h"
#include "coordinator/system/system_tables.h"

namespace granite::coordinator {

using core::ErrorCode;
using core::TypeId;

namespace {

// Builds a one-String-column-per-name result from rows of strings.
QueryResult StringTable(std::vector<std::string> names,
                        const std::vector<std::vector<std::string>>& rows) {
  QueryResult result;
  result.has_rows = true;
  result.names = std::move(names);
  result.types.assign(result.names.size(), TypeId::kString);
  result.block.rows_without_columns = rows.size();
  for (size_t c = 0; c < result.names.size(); ++c) {
    auto column = std::make_shared<core::Column>(TypeId::kString);
    for (const auto& row : rows) column->AppendString(row[c]);
    result.block.columns.push_back(std::move(column));
  }
  return result;
}

uint64_t ByteSizeOf(const core::Block& block) {
  uint64_t bytes = 0;
  for (const auto& column : block.columns) bytes += column->ByteSize();
  return bytes;
}

// Returns the last keyword of a KILL QUERY statement, upper-cased ("SYNC", "ASYNC", "TEST"), or "".
std::string KillMode(std::string_view sql) {
  sql::Lexer lexer(sql);
  sql::Token last;
  for (sql::Token token = lexer.Next();
       token.kind != sql::TokenKind::kEnd && token.kind != sql::TokenKind::kError;
       token = lexer.Next()) {
    if (!token.IsSymbol(";")) last = token;
  }
  for (const char* mode : {"SYNC", "ASYNC", "TEST"}) {
    if (last.Is(mode)) return mode;
  }
  return "";
}

// OPTIMIZE TABLE t [FINAL]: every worker merges its shard of the table (storage/merge_scheduler.h).
absl::Status ExecuteOptimize(const sql::OptimizeStatement& optimize, const WorkerSet& workers,
                             Catalog* catalog) {
  RETURN_IF_ERROR(EnsureCatalog(workers, catalog));
  RETURN_IF_ERROR(catalog->Lookup(optimize.table).status());
  const core::worker_api::OptimizeRequest request{optimize.table, optimize.final};
  return workers.CallAll([&](size_t i) {
    return WorkerClient(workers).Optimize(i, request, std::chrono::minutes(30));
  });
}

std::vector<core::AggregateSpec> SpecsOf(const core::plan::Fragment& fragment) {
  std::vector<core::AggregateSpec> specs;
  for (const core::plan::AggregateCall& call : fragment.aggregate->calls) {
    core::AggregateSpec spec;
    spec.name = call.name;
    for (const core::plan::Expr& arg : call.args) spec.arg_types.push_back(arg.type);
    // The same state layout as the workers' (bitmap); disjoint only changes how workers write.
    spec.bitmap_base = call.bitmap_base;
    spec.bitmap_bits = call.bitmap_bits;
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace

namespace {

// True for statements that change the catalog or the access entities (DDL, GRANT, ...): with
// etcd they take the cluster's DDL lock and publish the catalog afterwards.
bool ChangesCatalog(const sql::Statement& statement) {
  if (auto* access = std::get_if<sql::AccessStatement>(&statement)) {
    using Kind = sql::AccessStatement::Kind;
    return access->kind != Kind::kShowGrants && access->kind != Kind::kShowPolicies &&
           access->kind != Kind::kShowCreatePolicy && access->kind != Kind::kSetRole;
  }
  return std::holds_alternative<sql::CreateTableStatement>(statement) ||
         std::holds_alternative<sql::DropTableStatement>(statement) ||
         std::holds_alternative<sql::AlterSettingsStatement>(statement) ||
         std::holds_alternative<sql::DatabaseStatement>(statement) ||
         std::holds_alternative<sql::TruncateStatement>(statement) ||
         std::holds_alternative<sql::RenameStatement>(statement);
}

}  // namespace

absl::StatusOr<QueryResult> QueryExecutor::Execute(std::string_view sql, std::string_view input,
                                                   QueryContext* query, InputSource* more_input,
                                                   const InsertOptions& insert_options) {
  ASSIGN_OR_RETURN(sql::Statement statement, sql::ParseStatement(sql));
  return Execute(sql, statement, input, query, more_input, insert_options);
}

absl::StatusOr<QueryResult> QueryExecutor::Execute(std::string_view sql,
                                                   const sql::Statement& parsed,
                                                   std::string_view input, QueryContext* query,
                                                   InputSource* more_input,
                                                   const InsertOptions& insert_options) {
  query->set_kind(KindOf(parsed));
  // Query parameters, currentDatabase() and table names against the current database.
  ASSIGN_OR_RETURN(std::optional<sql::Statement> bound,
                   BindQueryConstants(parsed, query->database, query->parameters));
  ASSIGN_OR_RETURN(std::optional<sql::Statement> resolved,
                   ResolveTableNames(bound ? *bound : parsed, *query, *workers_, catalog_));
  const sql::Statement& statement = resolved ? *resolved : bound ? *bound : parsed;
  // Quotas and privileges, before any work (exec/access_statements.h).
  if (query->user != nullptr) RETURN_IF_ERROR(CheckBeforeRun(statement, *query, *workers_));
  if (etcd_ != nullptr && ChangesCatalog(statement)) return DispatchDdl(sql, statement, query);
  return Dispatch(sql, statement, input, query, more_input, insert_options);
}

absl::StatusOr<QueryResult> QueryExecutor::DispatchDdl(std::string_view sql,
                                                       const sql::Statement& statement,
                                                       QueryContext* query) {
  ASSIGN_OR_RETURN(std::unique_ptr<EtcdCatalog::DdlLock> lock, etcd_->LockDdl());
  absl::StatusOr<QueryResult> result = Dispatch(sql, statement, "", query, nullptr, {});
  // Also after a failure: a DDL that failed half-way may have changed some workers, and the
  // catalog loaded again from them says what they hold now.
  absl::Status published = EnsureCatalog(*workers_, catalog_);
  if (published.ok()) published = etcd_->Publish(*lock);
  if (!result.ok()) return result;
  if (!published.ok()) {
    return core::Error(core::CodeOf(published),
                       "The statement was applied on the workers, but " +
                           std::string(published.message()));
  }
  return result;
}

absl::StatusOr<QueryResult> QueryExecutor::Dispatch(std::string_view sql,
                                                    const sql::Statement& statement,
                                                    std::string_view input, QueryContext* query,
                                                    InputSource* more_input,
                                                    const InsertOptions& insert_options) {
  if (auto* access = std::get_if<sql::AccessStatement>(&statement)) {
    return ExecuteAccessStatement(*access, query, *workers_);
  }
  if (IsCatalogStatement(statement)) {
    CatalogStatementContext context{workers_, catalog_, SystemTables(query),
                                    [this, query](const sql::SelectStatement& select) {
                                      return Select(select, query);
                                    }};
    return ExecuteCatalogStatement(statement, query, context);
  }
  if (auto* kill = std::get_if<sql::KillQueryStatement>(&statement)) return Kill(*kill, sql, query);
  if (auto* set = std::get_if<sql::SetStatement>(&statement)) {
    // Validated as a whole first: a SET with one bad pair changes nothing.
    core::Settings changed = query->settings;
    RETURN_IF_ERROR(changed.Apply(WithoutQueryParameters(set->changes)));
    query->settings = std::move(changed);
    for (const auto& [name, value] : WithoutQueryParameters(set->changes)) {
      query->session_changes[name] = value;
    }
    for (const auto& [name, value] : QueryParametersOf(set->changes)) {
      query->parameters[name] = value;
      query->session_parameters[name] = value;
    }
    return QueryResult{};
  }
  if (auto* select = std::get_if<sql::SelectStatement>(&statement)) return Select(*select, query);
  if (auto* explain = std::get_if<sql::ExplainStatement>(&statement)) {
    return Explain(*explain, query);
  }
  if (auto* insert = std::get_if<sql::InsertStatement>(&statement)) {
    return Insert(*insert, input, more_input, insert_options, query);
  }
  if (auto* create = std::get_if<sql::CreateTableStatement>(&statement)) {
    if (create->view) return CreateView(*create, query);
    RETURN_IF_ERROR(CreateTable(*create, *workers_, catalog_));
    return QueryResult{};
  }
  if (auto* drop = std::get_if<sql::DropTableStatement>(&statement)) {
    RETURN_IF_ERROR(DropTable(*drop, *workers_, catalog_));
    return QueryResult{};
  }
  if (auto* optimize = std::get_if<sql::OptimizeStatement>(&statement)) {
    RETURN_IF_ERROR(ExecuteOptimize(*optimize, *workers_, catalog_));
    return QueryResult{};
  }
  if (auto* alter = std::get_if<sql::AlterSettingsStatement>(&statement);
      alter != nullptr && (!alter->columns.empty() || alter->delete_where)) {
    InsertRunner run_insert = [&](const sql::InsertStatement& insert) {
      const bool skipped = query->skip_row_policies;
      query->skip_row_policies = true;  // the rewrite copies every row, whoever runs it
      absl::Status status = Insert(insert, "", nullptr, InsertOptions{}, query).status();
      query->skip_row_policies = skipped;
      return status;
    };
    RETURN_IF_ERROR(AlterColumns(*alter, *workers_, catalog_, run_insert));
    return QueryResult{};
  }
  if (auto* alter = std::get_if<sql::AlterSettingsStatement>(&statement)) {
    RETURN_IF_ERROR(AlterTableSettings(*alter, *workers_, catalog_));
    return QueryResult{};
  }
  if (auto* alter = std::get_if<sql::AlterPartStatement>(&statement)) {
    core::Settings settings = query->settings;
    RETURN_IF_ERROR(settings.Apply(alter->settings));
    RETURN_IF_ERROR(AlterPart(*alter, settings, *workers_, catalog_));
    return QueryResult{};
  }
  if (auto* check = std::get_if<sql::CheckTableStatement>(&statement)) {
    core::Settings settings = query->settings;
    RETURN_IF_ERROR(settings.Apply(check->settings));
    return CheckTable(*check, settings, *workers_, catalog_);
  }
  return core::Error(ErrorCode::kNotImplemented, "This statement is not supported yet");
}

LocalTableProvider QueryExecutor::SystemTables(QueryContext* query) {
  return [this, query](const std::string& name) -> absl::StatusOr<LocalTable> {
    if (name == "settings") return BuildSettingsTable(query->settings);
    if (name == "zookeeper") return BuildZookeeperTable(etcd_);
    if (query->user != nullptr) {
      ASSIGN_OR_RETURN(std::optional<LocalTable> access, AccessSystemTable(name, *query, *workers_));
      if (access) return *std::move(access);
    }
    RETURN_IF_ERROR(EnsureCatalog(*workers_, catalog_));
    ASSIGN_OR_RETURN(LocalTable table, BuildSystemTable(name, *workers_, *catalog_, registry_));
    RETURN_IF_ERROR(HideOtherUsersRows(name, *query, *workers_, &table));
    return table;
  };
}

absl::StatusOr<QueryPlan> QueryExecutor::PlanSelect(const sql::SelectStatement& select,
                                                   QueryContext* query,
                                                   std::optional<LocalTable> materialized,
                                                   const BroadcastSource* broadcast) {
  RETURN_IF_ERROR(EnsureCatalog(*workers_, catalog_));
  Binder binder(catalog_, SystemTables(query), workers_->shard_count(), query->settings);
  binder.set_current_database(query->database);
  if (query->user != nullptr && !query->skip_row_policies) {
    binder.set_row_policies([user = query->user->name, roles = query->current_roles](
                                const std::string& database, const std::string& table) {
      return access::GrantStore::Current().RowFilter(user, database, table,
                                                     roles ? &*roles : nullptr);
    });
  }
  return binder.Bind(select, std::move(materialized), broadcast);
}

SubqueryRunner QueryExecutor::RunnerIn(const sql::SelectStatement& select, QueryContext* query,
                                       const CteScope* scope) {
  return [this, &select, query, scope](const sql::SelectStatement& inner)
             -> absl::StatusOr<LocalTable> {
    std::optional<sql::SelectStatement> with_settings;
    if (!select.settings.empty()) with_settings = sql::WithOuterSettings(inner, select);
    const sql::SelectStatement& run = with_settings ? *with_settings : inner;
    const bool shareable = SubqueryMemo::Shareable(run);
    SubqueryMemo::Ctes ctes;
    if (shareable) {
      // The CTEs the subquery can see: the innermost scope's name wins.
      for (const CteScope* s = scope; s != nullptr; s = s->parent) {
        for (const auto& [name, cte] : s->ctes) ctes.try_emplace(name, cte);
      }
      if (query->subquery_memo == nullptr) query->subquery_memo = std::make_shared<SubqueryMemo>();
      if (std::optional<LocalTable> kept = query->subquery_memo->Find(run, ctes)) return *kept;
    }
    ASSIGN_OR_RETURN(QueryResult result, SelectIn(run, query, scope));
    LocalTable table;
    table.names = std::move(result.names);
    table.types = std::move(result.types);
    table.block = std::move(result.block);
    if (shareable) query->subquery_memo->Add(run, std::move(ctes), table);
    return table;
  };
}

absl::StatusOr<MaterializedFrom> QueryExecutor::MaterializeJoins(
    const sql::SelectStatement& select, const core::Settings& settings, QueryContext* query,
    const SubqueryRunner& run) {
  return MaterializeFrom(select, JoinContext(settings, query, run));
}

FromContext QueryExecutor::JoinContext(const core::Settings& settings, QueryContext* query,
                                       const SubqueryRunner& run) {
  FromContext context;
  context.run = run;
  context.columns_of = [this, query](const sql::TableRef& ref) {
    return ColumnsOf(ref, query->database);
  };
  context.expand_compounds = [this, query](const sql::SelectStatement& read) {
    return ExpandCompounds(read, query);
  };
  context.max_rows_in_join = settings.max_rows_in_join;
  context.join_use_nulls = settings.join_use_nulls;
  context.join_mode = settings.distributed_join_mode;
  context.worker_count = workers_->shard_count();
  return context;
}

absl::StatusOr<QueryResult> QueryExecutor::SelectIn(const sql::SelectStatement& select,
                                                    QueryContext* query, const CteScope* outer) {
  ++query->select_depth;  // only the outermost SELECT streams (QueryContext::result_sink)
  struct DepthGuard {
    QueryContext* query;
    ~DepthGuard() { --query->select_depth; }
  } depth_guard{query};
  CteScope scope;
  scope.parent = outer;
  scope.depth = outer == nullptr ? 0 : outer->depth + 1;
  if (scope.depth > kMaxSelectNesting) {
    return core::Error(ErrorCode::kTooDeepRecursion,
                       "Subqueries and common table expressions nest deeper than " +
                           std::to_string(kMaxSelectNesting) +
                           " levels (a CTE that refers to itself?)");
  }
  for (const sql::WithItem& with : select.with) {
    if (with.subquery) scope.ctes[with.name] = with.subquery;
  }
  SubqueryRunner run = RunnerIn(select, query, &scope);
  if (!select.set_operands.empty() && query->select_depth == 1) {
    // Tuples in a set operation's select lists: every operand split into the elements, the
    // tuples put together at the end.
    ASSIGN_OR_RETURN(std::optional<TupleSplit> split, SplitSetOperationTuples(select, query));
    if (split) return SelectTuples(*split, query, outer);
  }
  if (!select.set_operands.empty() && query->result_sink != nullptr && query->select_depth == 1) {
    ASSIGN_OR_RETURN(std::optional<QueryResult> streamed, StreamUnionAll(select, query));
    if (streamed) return *std::move(streamed);
  }
  if (!select.set_operands.empty()) return SelectSetOperation(select, run);
  sql::SelectStatement resolved = ResolveCteReferences(select, scope);
  if (resolved.group_by_all || resolved.order_by_all) {
    ASSIGN_OR_RETURN(resolved, ExpandAllKeys(resolved));
  }
  ASSIGN_OR_RETURN(resolved, ExpandViews(resolved, [this, query](const sql::TableRef& ref) {
                     return ViewOf(ref, query->database);
                   }));
  ASSIGN_OR_RETURN(resolved, ExpandCompounds(resolved, query));
  ASSIGN_OR_RETURN(resolved, MergeSubqueries(std::move(resolved), scope, query));
  ASSIGN_OR_RETURN(resolved, FoldArrayJoins(std::move(resolved), query));
  resolved = ExpandTupleKeys(std::move(resolved));
  if (query->select_depth == 1) {
    if (std::optional<TupleSplit> split = SplitSelectTuples(resolved)) {
      return SelectTuples(*split, query, outer);
    }
  }
  if (resolved.with_totals) return SelectWithTotals(resolved, query, outer);
  if (!resolved.limit_by.empty()) return SelectLimitBy(resolved, query, outer);
  const bool fill = std::any_of(resolved.order_by.begin(), resolved.order_by.end(),
                                [](const sql::OrderItem& item) { return item.fill.has_value(); });
  if (fill) return SelectWithFill(resolved, query, outer);
  if (resolved.interpolate) {
    return core::Error(core::kInvalidWithFillExpression,
                       "INTERPOLATE needs ORDER BY ... WITH FILL");
  }
  if (NeedsSplit(resolved)) return SelectSplit(resolved, query, run);
  // The query's settings with this SELECT's own SETTINGS clause.
  core::Settings settings = query->settings;
  RETURN_IF_ERROR(settings.Apply(select.settings));
  ASSIGN_OR_RETURN(resolved, AggregateBelowJoinsIfOn(std::move(resolved), settings, query));
  ASSIGN_OR_RETURN(PreparedSelect prepared,
                   PrepareSubqueries(std::move(resolved), settings, query, run));
  RETURN_IF_ERROR(PrepareFrom(&prepared, settings, query, run).status());
  return PlanAndRun(prepared.select, query, std::move(prepared.materialized),
                    prepared.broadcast ? &*prepared.broadcast : nullptr);
}

absl::StatusOr<QueryExecutor::PreparedSelect> QueryExecutor::PrepareSubqueries(
    sql::SelectStatement select, const core::Settings& settings, QueryContext* query,
    const SubqueryRunner& run) {
  PreparedSelect prepared;
  const bool correlated_allowed =
      settings.allow_experimental_correlated_subqueries && settings.allow_correlated_subqueries;
  if (correlated_allowed && select.where && HasExpressionSubqueries(select)) {
    ASSIGN_OR_RETURN(select, Decorrelate(select, [this, query](const sql::TableRef& ref) {
                       return ColumnsOf(ref, query->database);
                     }));
  }
  if (HasExpressionSubqueries(select)) {
    // InSubqueriesAsJoins runs the scalar subqueries of WHERE's other conjuncts first.
    const bool scalar_conjuncts = HasScalarSubqueryConjunct(select.where);
    ASSIGN_OR_RETURN(std::optional<MaterializedFrom> in_joins,
                     InSubqueriesAsJoins(select, JoinContext(settings, query, run)));
    if (in_joins) {
      prepared.broadcast = std::move(in_joins->broadcast);
      select = std::move(in_joins->rest);
      prepared.constants = scalar_conjuncts;
    }
  }
  if (HasExpressionSubqueries(select)) {
    absl::StatusOr<sql::SelectStatement> replaced = ReplaceSubqueries(select, run);
    if (!replaced.ok() && !correlated_allowed &&
        core::CodeOf(replaced.status()) == ErrorCode::kNotImplemented &&
        replaced.status().message().find("Correlated") != std::string_view::npos) {
      return core::Error(ErrorCode::kUnsupportedMethod,
                         "Correlated subqueries are disabled (allow_correlated_subqueries = 0): " +
                             std::string(replaced.status().message()));
    }
    if (!replaced.ok()) return replaced.status();
    select = *std::move(replaced);
    prepared.constants = true;
    if (prepared.broadcast && select.where) {
      // The IN joins' table (in_joins.h): a conjunct that held a scalar subquery is a constant
      // comparison now and filters the table's rows before the joins, as the others do.
      std::vector<sql::ExprPtr> conjuncts;
      sql::SplitAnd(select.where, &conjuncts);
      select.where = sql::JoinAnd(MoveToProbeFilter(std::move(conjuncts), &*prepared.broadcast));
    }
  }
  prepared.select = std::move(select);
  return prepared;
}

absl::StatusOr<bool> QueryExecutor::PrepareFrom(PreparedSelect* prepared,
                                                const core::Settings& settings,
                                                QueryContext* query, const SubqueryRunner& run) {
  if (!NeedsMaterializedFrom(prepared->select)) return false;
  ASSIGN_OR_RETURN(MaterializedFrom from,
                   MaterializeJoins(prepared->select, settings, query, run));
  const bool on_coordinator = !from.broadcast;
  prepared->from_notes = std::move(from.notes);
  if (from.broadcast) {
    prepared->broadcast = std::move(from.broadcast);
  } else {
    prepared->materialized = std::move(from.table);
  }
  prepared->select = std::move(from.rest);
  return on_coordinator;
}

absl::StatusOr<sql::SelectStatement> QueryExecutor::AggregateBelowJoinsIfOn(
    sql::SelectStatement select, const core::Settings& settings, QueryContext* query) {
  if (!settings.optimize_aggregation_below_joins) return select;
  ASSIGN_OR_RETURN(std::optional<sql::SelectStatement> eager,
                   AggregateBelowJoins(
                       select,
                       [this, query](const sql::TableRef& ref) {
                         return ColumnsOf(ref, query->database);
                       },
                       settings.join_use_nulls));
  if (eager) return *std::move(eager);
  return select;
}

absl::StatusOr<sql::SelectStatement> QueryExecutor::FoldArrayJoins(sql::SelectStatement select,
                                                                   QueryContext* query) {
  auto columns_of = [this, query](const sql::TableRef& ref) {
    return ColumnsOf(ref, query->database);
  };
  while (HasArrayJoin(select)) {
    ASSIGN_OR_RETURN(select, FoldArrayJoin(select, columns_of));
  }
  return select;
}

absl::StatusOr<sql::SelectStatement> QueryExecutor::MergeSubqueries(sql::SelectStatement select,
                                                                  const CteScope& scope,
                                                                  QueryContext* query) {
  // A merged subquery's own FROM may name a CTE or a view: resolved here, then merged in turn.
  bool any = false;
  for (int pass = 0; pass < kMaxSelectNesting; ++pass) {
    std::optional<sql::SelectStatement> merged = MergeFromSubquery(select);
    if (!merged) break;
    any = true;
    select = ResolveCteReferences(*merged, scope);
    ASSIGN_OR_RETURN(select, ExpandViews(select, [this, query](const sql::TableRef& ref) {
                       return ViewOf(ref, query->database);
                     }));
  }
  // The merged subquery's references to Tuple / Map / Array(Tuple) columns of its table (e.g.
  // `t.b` in its WHERE) now stand in a SELECT over that table: rewritten into subcolumns.
  if (any) return ExpandCompounds(select, query);
  return select;
}

std::optional<core::TableSchema> QueryExecutor::TableOf(const sql::TableRef& ref,
                                                        const std::string& current_database) {
  if (ref.is_function || ref.subquery != nullptr || ref.database == "system" ||
      !EnsureCatalog(*workers_, catalog_).ok()) {
    return std::nullopt;
  }
  const std::string database = ref.database.empty() ? current_database : ref.database;
  absl::StatusOr<core::TableSchema> schema =
      catalog_->Lookup(CatalogTableName(database, ref.name));
  if (!schema.ok()) return std::nullopt;
  return *std::move(schema);
}

absl::StatusOr<std::optional<TupleSplit>> QueryExecutor::SplitSetOperationTuples(
    const sql::SelectStatement& select, QueryContext* query) {
  sql::SelectStatement expanded = select;
  expanded.set_operands.clear();
  ASSIGN_OR_RETURN(expanded, ExpandCompounds(expanded, query));
  for (const auto& [op, operand] : select.set_operands) {
    ASSIGN_OR_RETURN(sql::SelectStatement one, ExpandCompounds(*operand, query));
    expanded.set_operands.emplace_back(op, std::make_shared<sql::SelectStatement>(std::move(one)));
  }
  return coordinator::SplitSetOperationTuples(expanded);
}

absl::StatusOr<sql::SelectStatement> QueryExecutor::ExpandCompounds(
    const sql::SelectStatement& select, QueryContext* query) {
  return ExpandCompoundColumns(select, [this, query](const sql::TableRef& ref) {
    return TableOf(ref, query->database);
  });
}

std::optional<core::TableSchema> QueryExecutor::ViewOf(const sql::TableRef& ref,
                                                       const std::string& current_database) {
  std::optional<core::TableSchema> schema = TableOf(ref, current_database);
  if (!schema || !IsView(*schema)) return std::nullopt;
  return schema;
}

absl::StatusOr<QueryResult> QueryExecutor::CreateView(const sql::CreateTableStatement& create,
                                                      QueryContext* query) {
  // The SELECT runs once with LIMIT 0 to check it and learn its columns.
  sql::SelectStatement probe = *create.view;
  probe.limit = 0;
  probe.format.clear();
  ASSIGN_OR_RETURN(QueryResult columns, Select(probe, query));
  ASSIGN_OR_RETURN(core::TableSchema schema,
                   ViewSchema(create, columns.names, columns.types,
                              static_cast<uint32_t>(workers_->shard_count())));
  RETURN_IF_ERROR(CreateTableWithSchema(schema, create.or_replace, create.if_not_exists,
                                        *workers_, catalog_));
  return QueryResult{};
}

absl::StatusOr<QueryResult> QueryExecutor::SelectWithTotals(const sql::SelectStatement& select,
                                                            QueryContext* query,
                                                            const CteScope* outer) {
  if (select.having || select.grouping_sets_written || NeedsSplit(select)) {
    return core::Error(ErrorCode::kNotImplemented,
                       "WITH TOTALS together with HAVING, ROLLUP / CUBE / GROUPING SETS or window "
                       "functions is not supported yet");
  }
  sql::SelectStatement rows = select;
  rows.with_totals = false;
  ASSIGN_OR_RETURN(QueryResult result, SelectIn(rows, query, outer));
  // The totals: every group's rows together, the keys at their type's defaults.
  sql::SelectStatement all = rows;
  all.order_by.clear();
  all.limit.reset();
  all.offset.reset();
  all.limit_by.clear();
  all.distinct = false;
  all.grouping_sets_written = true;
  all.grouping_sets = {{}};
  ASSIGN_OR_RETURN(std::vector<sql::SelectStatement> totals_select, ExpandGroupingSets(all));
  ASSIGN_OR_RETURN(QueryResult totals, SelectIn(totals_select[0], query, outer));
  if (totals.types != result.types) {
    return core::Error(ErrorCode::kLogicalError, "The WITH TOTALS row has other column types");
  }
  result.totals = std::move(totals.block);
  return result;
}

absl::StatusOr<QueryResult> QueryExecutor::SelectTuples(const TupleSplit& split,
                                                        QueryContext* query,
                                                        const CteScope* outer) {
  // The split SELECT runs as the outermost one (select_depth back to 0 around it), so it streams
  // as any other would, through a sink that puts the tuples together.
  TupleResultSink sink(&split, query->result_sink);
  ResultSink* const next = query->result_sink;
  if (next != nullptr) query->result_sink = &sink;
  --query->select_depth;
  absl::StatusOr<QueryResult> inner = SelectIn(split.select, query, outer);
  ++query->select_depth;
  query->result_sink = next;
  RETURN_IF_ERROR(inner.status());
  QueryResult result = *std::move(inner);
  ASSIGN_OR_RETURN(std::vector<core::TypeId> types, TupleOutputTypes(split, result.types));
  if (!result.streamed) {
    ASSIGN_OR_RETURN(result.block, AssembleTuples(split, types, result.block));
    if (result.totals) {
      ASSIGN_OR_RETURN(result.totals, AssembleTuples(split, types, *result.totals));
    }
  }
  result.names = split.names;
  result.types = std::move(types);
  return result;
}

absl::StatusOr<QueryResult> QueryExecutor::SelectLimitBy(const sql::SelectStatement& select,
                                                         QueryContext* query,
                                                         const CteScope* outer) {
  sql::SelectStatement inner = select;
  inner.limit_by.clear();
  inner.limit.reset();
  inner.offset.reset();
  for (size_t i = 0; i < select.limit_by.size(); ++i) {
    auto key = std::make_shared<sql::Expr>(*select.limit_by[i]);
    key->alias = "__limit_by_" + std::to_string(i);
    inner.select.push_back(std::move(key));
  }
  ASSIGN_OR_RETURN(QueryResult result, SelectIn(inner, query, outer));
  const size_t keys = select.limit_by.size();
  const size_t visible = result.names.size() - keys;
  LimitByOptions options{select.limit_by_limit, select.limit_by_offset, select.limit,
                         select.offset.value_or(0)};
  result.block = ApplyLimitBy(std::move(result.block), visible, options);
  result.names.resize(visible);
  result.types.resize(visible);
  return result;
}

absl::StatusOr<QueryResult> QueryExecutor::SelectSplit(const sql::SelectStatement& select,
                                                       QueryContext* query,
                                                       const SubqueryRunner& run) {
  ASSIGN_OR_RETURN(SplitQuery split, SplitForWindows(select));
  LocalTable table;
  if (split.inner.grouping_sets_written) {
    ASSIGN_OR_RETURN(std::vector<sql::SelectStatement> copies, ExpandGroupingSets(split.inner));
    for (size_t i = 0; i < copies.size(); ++i) {
      ASSIGN_OR_RETURN(LocalTable part, run(copies[i]));
      if (i == 0) {
        table = std::move(part);
      } else {
        ASSIGN_OR_RETURN(table, CombineResults(sql::SetOperator::kUnionAll, std::move(table),
                                               std::move(part)));
      }
    }
  } else {
    ASSIGN_OR_RETURN(table, run(split.inner));
  }
  table.qualifiers.clear();
  table.hidden.assign(table.names.size(), false);
  RETURN_IF_ERROR(AppendWindowColumns(split.windows, &table));
  for (size_t i = 0; i < table.names.size(); ++i) {
    table.hidden[i] = IsSplitColumn(table.names[i]) ||
                      std::find(split.hidden.begin(), split.hidden.end(), table.names[i]) !=
                          split.hidden.end();
  }
  return PlanAndRun(split.outer, query, std::move(table));
}

absl::StatusOr<QueryResult> QueryExecutor::PlanAndRun(const sql::SelectStatement& select,
                                                      QueryContext* query,
                                                      std::optional<LocalTable> materialized,
                                                      const BroadcastSource* broadcast) {
  ASSIGN_OR_RETURN(QueryPlan plan, PlanSelect(select, query, std::move(materialized), broadcast));
  QueryResult result;
  result.has_rows = true;
  result.names = plan.names;
  result.types = plan.types;
  result.format = plan.format;
  // LIMIT 0 asks for the columns alone (a client probing a query's shape, CREATE VIEW learning
  // its columns): no worker is asked for rows.
  if (plan.has_limit && plan.limit == 0) {
    for (core::TypeId type : plan.types) {
      result.block.columns.push_back(std::make_shared<core::Column>(type));
    }
    return result;
  }
  if (query->result_sink != nullptr && query->select_depth == 1 &&
      (CanStream(plan) || CanStreamGroups(plan))) {
    RETURN_IF_ERROR(query->result_sink->Begin(plan.names, plan.types, plan.format));
    result.streamed = true;
    RETURN_IF_ERROR(Run(plan, query, query->result_sink).status());
    return result;
  }
  ASSIGN_OR_RETURN(result.block, Run(plan, query));
  query->NoteMemory(ByteSizeOf(result.block));
  return result;
}

absl::StatusOr<RelationColumns> QueryExecutor::ColumnsOf(const sql::TableRef& ref,
                                                         const std::string& current_database) {
  RelationColumns columns;
  if (ref.is_function) {
    const core::TableFunction* function = core::FindTableFunction(ref.name);
    if (function == nullptr) {
      return core::Error(ErrorCode::kUnknownFunction,
                         "Unknown table function " + ref.name + " (at position " +
                             std::to_string(ref.position + 1) + ")");
    }
    for (const core::TableFunctionColumn& column : function->columns) {
      columns.names.emplace_back(column.name);
      columns.types.push_back(column.type);
    }
    return columns;
  }
  RETURN_IF_ERROR(EnsureCatalog(*workers_, catalog_));
  const std::string database = ref.database.empty() ? current_database : ref.database;
  if (!catalog_->HasDatabase(database)) {
    return core::Error(ErrorCode::kUnknownDatabase, "Database " + database +
                                                        " does not exist (at position " +
                                                        std::to_string(ref.position + 1) + ")");
  }
  ASSIGN_OR_RETURN(core::TableSchema schema,
                   catalog_->Lookup(CatalogTableName(database, ref.name)));
  for (const core::ColumnSchema& column : schema.columns) {
    columns.names.push_back(column.name);
    columns.types.push_back(column.type);
  }
  columns.sharding_key = schema.sharding_key;
  columns.shard_count = schema.shard_count;
  return columns;
}

sql::SelectStatement QueryExecutor::ResolveCteReferences(const sql::SelectStatement& select,
                                                         const CteScope& scope) {
  sql::SelectStatement out = select;
  auto resolve = [&scope](sql::TableRef* ref) {
    if (ref->is_function || ref->subquery || !ref->database.empty()) return;
    for (const CteScope* s = &scope; s != nullptr; s = s->parent) {
      auto it = s->ctes.find(ref->name);
      if (it == s->ctes.end()) continue;
      ref->subquery = it->second;
      if (ref->alias.empty()) ref->alias = ref->name;
      ref->name.clear();
      return;
    }
  };
  if (out.from) resolve(&*out.from);
  for (sql::JoinClause& join : out.joins) resolve(&join.table);
  return out;
}

absl::StatusOr<QueryResult> QueryExecutor::SelectSetOperation(const sql::SelectStatement& select,
                                                              const SubqueryRunner& run) {
  // INTERSECT binds tighter than UNION and EXCEPT, which apply left to right (as ClickHouse):
  // `term` collects a run of INTERSECTs, `combined` the terms joined by the other operators.
  sql::SelectStatement first = select;
  first.set_operands.clear();
  first.format.clear();
  ASSIGN_OR_RETURN(LocalTable term, run(first));
  std::optional<LocalTable> left;
  sql::SetOperator pending = sql::SetOperator::kUnionAll;
  for (const auto& [op, operand] : select.set_operands) {
    ASSIGN_OR_RETURN(LocalTable next, run(*operand));
    if (op == sql::SetOperator::kIntersect || op == sql::SetOperator::kIntersectDistinct) {
      ASSIGN_OR_RETURN(term, CombineResults(op, std::move(term), std::move(next)));
      continue;
    }
    if (left) {
      ASSIGN_OR_RETURN(term, CombineResults(pending, *std::move(left), std::move(term)));
    }
    left = std::move(term);
    term = std::move(next);
    pending = op;
  }
  LocalTable combined = std::move(term);
  if (left) {
    ASSIGN_OR_RETURN(combined, CombineResults(pending, *std::move(left), std::move(combined)));
  }
  QueryResult result;
  result.has_rows = true;
  result.names = std::move(combined.names);
  result.types = std::move(combined.types);
  result.block = std::move(combined.block);
  result.format = select.format;
  return result;
}

absl::StatusOr<core::Block> QueryExecutor::RunLocal(const QueryPlan& plan) {
  ASSIGN_OR_RETURN(auto pipeline, core::FragmentPipeline::Compile(plan.fragment));
  ASSIGN_OR_RETURN(auto state, pipeline->NewLocalState());
  RETURN_IF_ERROR(ConsumeWithinMemoryLimit(*pipeline, *state, plan.local_input));
  std::vector<std::unique_ptr<core::FragmentPipeline::LocalState>> states;
  states.push_back(std::move(state));
  if (!pipeline->aggregating()) return pipeline->FinishRows(std::move(states));
  ASSIGN_OR_RETURN(core::LocalMerger::PartialResult partial,
                   pipeline->FinishPartial(std::move(states), nullptr));
  RETURN_IF_ERROR(core::CurrentMemoryLimitStatus());
  BucketedMerger merger(pipeline->key_types(), pipeline->aggregate_specs(), 1, pool_);
  for (size_t i = 0; i < partial.blocks.size(); ++i) {
    if (partial.single) {
      merger.AddSingle(0, std::move(partial.blocks[i]));  // merged on this thread by Finish
    } else {
      merger.Add(0, partial.bucket_ids[i], std::move(partial.blocks[i]),
                 i + 1 == partial.blocks.size());
    }
  }
  return merger.Finish();
}

absl::StatusOr<core::Block> QueryExecutor::Run(const QueryPlan& plan, QueryContext* query,
                                               ResultSink* stream_to) {
  if (plan.source != SourceKind::kLocal && membership_ != nullptr) {
    RETURN_IF_ERROR(membership_->EnsureAllAvailable());  // fail fast, naming the worker
  }
  // Client SELECTs over tables wait for an execution slot; INSERT ... SELECT, DDL and system
  // tables never queue behind them. Held through the final stage.
  AdmissionQueue::Slot slot;
  bool client_select = plan.source != SourceKind::kLocal && query->kind() == QueryKind::kSelect;
  if (admission_ != nullptr && client_select && !query->admitted) {
    std::chrono::milliseconds max_wait(plan.settings.queue_max_wait_ms);
    ASSIGN_OR_RETURN(slot, admission_->Admit(query, max_wait));
  }
  core::ScopedThreadNice nice(client_select ? select_nice_ : 0);
  core::Block stage;
  if (stream_to != nullptr) {
    const bool merged = plan.fragment.aggregate && !plan.fragment.aggregate->finalize_on_worker;
    StreamedFinalStage streamed(plan, query, stream_to, merged ? 1 : workers_->shard_count());
    if (merged) return RunBucketMerge(plan, query, &streamed);
    if (plan.fragment.aggregate) query->final_merge_skipped = true;
    RETURN_IF_ERROR(FanOutStreamed(*workers_, plan.fragment, query, &streamed));
    return stage;
  }
  if (plan.source == SourceKind::kLocal) {
    ASSIGN_OR_RETURN(stage, RunLocal(plan));
  } else if (plan.fragment.aggregate && !plan.fragment.aggregate->finalize_on_worker) {
    ASSIGN_OR_RETURN(stage, RunBucketMerge(plan, query));
    // A piece-cut merge already ran the final stage's ORDER BY ... LIMIT per bucket.
    if (plan.piece_cut) return FinishFinalStage(plan, std::move(stage));
  } else {
    ASSIGN_OR_RETURN(stage, RunConcat(plan, query));
  }
  // GROUP BY ... LIMIT with the key-hash filter: only the L smallest (hash, key) groups are
  // complete for sure (group_limit_hash_filter.h).
  stage = KeepBottomGroups(plan, std::move(stage));
  return RunFinalStage(plan, stage);
}

absl::StatusOr<core::Block> QueryExecutor::RunBucketMerge(const QueryPlan& plan,
                                                          QueryContext* query,
                                                          StreamedFinalStage* streamed) {
  std::vector<TypeId> key_types;
  for (const core::plan::Expr& key : plan.fragment.aggregate->keys) key_types.push_back(key.type);
  // Outlives the merger: merges in flight use it until the merger's destructor has waited.
  std::unique_ptr<LateFinalizer> late;
  BucketedMerger merger(key_types, SpecsOf(plan.fragment), workers_->shard_count(), pool_,
                        [query] { return query->cancelled(); });
  if (plan.merge_group_limit > 0) merger.SetGroupLimit(plan.merge_group_limit);
  if (plan.piece_cut) {
    // Each merged bucket is cut to its ORDER BY ... LIMIT top on the pool (final_stage.h).
    merger.SetPieceCut([&plan](const core::Block& piece) { return CutPiece(plan, piece); });
    merger.SetPieceCombine([&plan](std::vector<core::Block> pieces) {
      return CombineCutPieces(plan, std::move(pieces));
    });
  }
  if (streamed != nullptr) {
    // Merged buckets go to the client in bucket order as they finish (CanStreamGroups).
    merger.SetPieceSink([streamed](core::Block piece) -> absl::Status {
      return streamed->Consume(0, std::move(piece)).status();
    });
  }
  if (plan.late_finalization) {
    ASSIGN_OR_RETURN(late, LateFinalizer::Create(plan, key_types, SpecsOf(plan.fragment)));
    if (late) late->Attach(&merger);
  }
  RETURN_IF_ERROR(FanOut(*workers_, plan.fragment, query, &merger).status());
  ASSIGN_OR_RETURN(core::Block stage, merger.Finish());
  query->merge_ns += merger.merge_ns();
  query->NoteMemory(ByteSizeOf(stage));
  return stage;
}

absl::StatusOr<core::Block> QueryExecutor::RunConcat(const QueryPlan& plan, QueryContext* query) {
  // Projections, or groups each worker finalized itself (shard_local_aggregation.h): the final
  // merge is skipped and the blocks are only concatenated.
  if (plan.fragment.aggregate) query->final_merge_skipped = true;
  ASSIGN_OR_RETURN(auto per_worker, FanOut(*workers_, plan.fragment, query, nullptr));
  std::vector<core::Block> blocks;
  for (auto& worker_blocks : per_worker) {
    for (auto& block : worker_blocks) blocks.push_back(std::move(block));
  }
  core::Block stage = core::ConcatBlocks(blocks);
  // The workers' blocks and their concatenation are both alive here.
  query->NoteMemory(2 * ByteSizeOf(stage));
  return stage;
}

absl::StatusOr<QueryResult> QueryExecutor::Insert(const sql::InsertStatement& insert,
                                                  std::string_view input, InputSource* more_input,
                                                  const InsertOptions& options,
                                                  QueryContext* query) {
  RETURN_IF_ERROR(EnsureCatalog(*workers_, catalog_));
  ASSIGN_OR_RETURN(std::optional<core::TableSchema> schema, catalog_->Lookup(insert.table));
  // Not while an ALTER rewrites the table (exec/table_write_gate.h); after one, its new schema.
  std::shared_lock<std::shared_mutex> gate;
  if (schema) {
    gate = LockTableForWrite(schema->name);
    RETURN_IF_ERROR(EnsureCatalog(*workers_, catalog_));
    ASSIGN_OR_RETURN(schema, catalog_->Lookup(insert.table));
  }
  if (schema && IsView(*schema)) {
    return core::Error(ErrorCode::kNotImplemented,
                       "Method write is not supported by storage View (" + insert.table + ")");
  }
  SelectRunner run_select = [&](const sql::SelectStatement& select) -> absl::StatusOr<core::Block> {
    ASSIGN_OR_RETURN(QueryResult result, Select(select, query));
    return result.block;
  };
  InsertOptions insert_options = options;
  if (!insert_options.cancelled) insert_options.cancelled = [query] { return query->cancelled(); };
  // INSERT ... SELECT: the SELECT streams into the insert (as a top-level SELECT streams to its
  // client), so a large copy is sent in chunks instead of gathered on the coordinator.
  insert_options.stream_select = [&](const sql::SelectStatement& select,
                                     ResultSink* sink) -> absl::Status {
    ResultSink* const client_sink = query->result_sink;
    query->result_sink = sink;
    absl::StatusOr<QueryResult> result = Select(select, query);
    query->result_sink = client_sink;
    RETURN_IF_ERROR(result.status());
    if (result->streamed) return absl::OkStatus();
    RETURN_IF_ERROR(sink->Begin(result->names, result->types, result->format));
    return sink->Push(result->block).status();
  };
  insert_options.replication = {query->settings.insert_quorum, query->settings.insert_deduplicate,
                                query->settings.insert_deduplication_token};
  if (query->settings.input_format_parallel_parsing && pool_ != nullptr) {
    insert_options.parse_pool = pool_;
  }
  if (query->settings.IsChanged(&core::Settings::network_compression_method)) {
    ASSIGN_OR_RETURN(insert_options.compression,
                     core::ParseWireCompression(query->settings.network_compression_method));
  }
  QueryResult result;
  ASSIGN_OR_RETURN(result.written_rows,
                   ExecuteInsert(insert, input, more_input, *schema, *workers_, run_select,
                                 insert_options));
  return result;
}

}  // namespace granite::coordinator

namespace granite::coordinator {

absl::StatusOr<QueryResult> QueryExecutor::Kill(const sql::KillQueryStatement& kill,
                                                std::string_view sql, QueryContext* query) {
  if (registry_ == nullptr) {
    return core::Error(ErrorCode::kNotImplemented, "KILL QUERY needs the query registry");
  }
  std::string mode = KillMode(sql);
  // The condition is evaluated by an ordinary SELECT over system.processes.
  sql::SelectStatement select;
  for (const char* column : {"query_id", "query", "user"}) {
    auto item = std::make_shared<sql::Expr>();
    item->kind = sql::ExprKind::kIdentifier;
    item->name = column;
    select.select.push_back(std::move(item));
  }
  sql::TableRef from;
  from.database = "system";
  from.name = "processes";
  select.from = std::move(from);
  select.where = kill.where;
  absl::StatusOr<QueryResult> selected;
  {
    ShowAllProcessRows every_user;  // another user's match is refused below, not hidden
    selected = Select(select, query);
  }
  ASSIGN_OR_RETURN(QueryResult matches, std::move(selected));
  if (query->user != nullptr) {
    for (size_t r = 0; r < matches.block.rows(); ++r) {
      RETURN_IF_ERROR(
          CheckMayKill(std::string(matches.block.columns[2]->StringAt(r)), *query, *workers_));
    }
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> killed;
  for (size_t r = 0; r < matches.block.rows(); ++r) {
    std::string id(matches.block.columns[0]->StringAt(r));
    if (id == query->query_id()) continue;  // a KILL never cancels itself
    std::string text(matches.block.columns[1]->StringAt(r));
    std::string status = "waiting";
    if (mode == "TEST") {
      status = "test";
    } else {
      registry_->Cancel(id);
      core::CountEvent(core::Event::kKilledQueries);
      killed.push_back(id);
    }
    rows.push_back({status, id, std::string(matches.block.columns[2]->StringAt(r)), text});
  }
  if (mode == "SYNC") {
    // Waits (bounded) for the cancelled queries to end.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (size_t i = 0; i < killed.size(); ++i) {
      while (registry_->IsRunning(killed[i]) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      rows[i][0] = registry_->IsRunning(killed[i]) ? "pending" : "finished";
    }
  }
  return StringTable({"kill_status", "query_id", "user", "query"}, rows);
}

}  // namespace granite::coordinator
