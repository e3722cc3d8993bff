// QueryExecutor: runs one SQL statement on the cluster — parse, then per statement kind: SELECT
// (bind, fan out or run locally, bucketed merge, final stage), INSERT, CREATE / DROP TABLE,
// KILL QUERY, and the catalog statements of catalog_statements.h (SHOW, DESCRIBE, USE, ...). Formatting is left to the caller (the gRPC service).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/server/admission_queue.h"
#include "coordinator/cluster/catalog.h"
#include "coordinator/exec/decorrelate.h"
#include "coordinator/exec/explain.h"
#include "coordinator/exec/from_clause.h"
#include "coordinator/exec/insert_executor.h"
#include "coordinator/exec/result_sink.h"
#include "coordinator/exec/subqueries.h"
#include "coordinator/exec/tuple_results.h"
#include "coordinator/cluster/membership.h"
#include "coordinator/server/query_context.h"
#include "coordinator/planner/binder.h"
#include "coordinator/planner/query_plan.h"
#include "coordinator/server/query_registry.h"
#include "coordinator/sql/ast.h"
#include "coordinator/cluster/worker_set.h"
#include "core/block.h"
#include "core/thread_pool.h"

namespace granite::coordinator {

class EtcdCatalog;
class StreamedFinalStage;

// Holds what a statement produced.
struct QueryResult {
  bool has_rows = false;  // SELECT / SHOW / DESCRIBE: a result set to format
  std::vector<std::string> names;
  std::vector<core::TypeId> types;
  core::Block block;
  std::string format;  // FORMAT clause of the statement, empty if none
  std::optional<core::Block> totals;  // WITH TOTALS: the one totals row
  // The rows went to QueryContext::result_sink as they were made; `block` is empty.
  bool streamed = false;
  uint64_t written_rows = 0;
};

// Executes statements against one cluster.
// Thread-safety: Execute() runs concurrently for many queries.
class QueryExecutor {
 public:
  // `registry` (may be null in tests) backs system.processes, system.query_log and KILL QUERY.
  QueryExecutor(const WorkerSet* workers, Catalog* catalog, core::ThreadPool* pool,
                QueryRegistry* registry = nullptr, Membership* membership = nullptr)
      : workers_(workers), catalog_(catalog), pool_(pool), registry_(registry),
        membership_(membership) {}

  // Runs `sql`; `input` and then the pieces of `more_input` (may be null; read only by an
  // INSERT ... FORMAT) are the data streamed with it, inserted in chunks as `insert_options`
  // says. Sets the query's kind once the statement is parsed.
  absl::StatusOr<QueryResult> Execute(std::string_view sql, std::string_view input,
                                      QueryContext* query, InputSource* more_input = nullptr,
                                      const InsertOptions& insert_options = {});
  // As above for `statement`, already parsed from `sql` (statement_kind.h): not parsed again;
  // `sql` is the text KILL QUERY and the query log show.
  absl::StatusOr<QueryResult> Execute(std::string_view sql, const sql::Statement& statement,
                                      std::string_view input, QueryContext* query,
                                      InputSource* more_input = nullptr,
                                      const InsertOptions& insert_options = {});

  // SELECTs that read from workers pass through `admission` (coordinator/server/admission_queue.h);
  // null (the default) admits them all at once. REQUIRES: outlives the executor; set before use.
  void set_admission_queue(AdmissionQueue* admission) { admission_ = admission; }
  // Admitted SELECTs run with the handler thread's nice value raised by `delta` (0 = off);
  // ClickHouseService lowers a client SELECT's whole path by the same delta before it gets here.
  void set_select_nice(int delta) { select_nice_ = delta; }
  int select_nice() const { return select_nice_; }
  // With etcd (coordinator/coord/etcd_catalog.h): DDL runs under the cluster's DDL lock and
  // publishes the catalog afterwards. Null (the default): no etcd. REQUIRES: outlives the
  // executor.
  void set_etcd_catalog(EtcdCatalog* etcd) { etcd_ = etcd; }

 private:
  // The common table expressions (WITH name AS (SELECT ...)) visible to a SELECT: its own and
  // those of the SELECTs it is nested in.
  struct CteScope {
    std::map<std::string, sql::SelectPtr> ctes;
    const CteScope* parent = nullptr;
    int depth = 0;  // nesting of SELECTs, bounded against runaway recursion
  };

  // Runs a statement whose names are resolved and whose access was checked.
  absl::StatusOr<QueryResult> Dispatch(std::string_view sql, const sql::Statement& statement,
                                       std::string_view input, QueryContext* query,
                                       InputSource* more_input,
                                       const InsertOptions& insert_options);
  // Dispatch under the cluster's DDL lock, then the catalog published to etcd.
  absl::StatusOr<QueryResult> DispatchDdl(std::string_view sql, const sql::Statement& statement,
                                          QueryContext* query);

  absl::StatusOr<QueryResult> Select(const sql::SelectStatement& select, QueryContext* query) {
    return SelectIn(select, query, nullptr);
  }
  // Runs a SELECT nested in `outer` (null at the top): set operators, CTE references,
  // subqueries in expressions (exec/subqueries.h) and a FROM with joins or a subquery
  // (exec/from_clause.h) are resolved on the coordinator, then the rest is planned and run.
  absl::StatusOr<QueryResult> SelectIn(const sql::SelectStatement& select, QueryContext* query,
                                       const CteScope* outer);
  // Runs the subqueries of `select` (a FROM subquery, a relation of a join), nested in `scope`,
  // with `select`'s SETTINGS. REQUIRES: `select` outlives the runner.
  SubqueryRunner RunnerIn(const sql::SelectStatement& select, QueryContext* query,
                          const CteScope* scope);
  // A FROM with joins: the relations read and joined on the coordinator, or the broadcast joins
  // chosen (exec/from_clause.h).
  absl::StatusOr<MaterializedFrom> MaterializeJoins(const sql::SelectStatement& select,
                                                    const core::Settings& settings,
                                                    QueryContext* query, const SubqueryRunner& run);
  // A SELECT on its way to the binder: what remains of it, and what replaces its FROM.
  struct PreparedSelect {
    sql::SelectStatement select;
    std::optional<LocalTable> materialized;    // FROM read and joined on the coordinator
    std::optional<BroadcastSource> broadcast;  // FROM joined on the workers
    bool constants = false;  // scalar subqueries and IN sets ran and became constants
    std::vector<std::string> from_notes;  // MaterializedFrom::notes, for EXPLAIN
  };
  // The steps SelectIn and EXPLAIN share once CTEs, views, merges and ARRAY JOIN are resolved:
  // correlated subqueries of WHERE decorrelated (when allowed), IN sets over many rows made
  // joins (exec/in_joins.h), the other subqueries run into constants (exec/subqueries.h).
  absl::StatusOr<PreparedSelect> PrepareSubqueries(sql::SelectStatement select,
                                                   const core::Settings& settings,
                                                   QueryContext* query, const SubqueryRunner& run);
  // Then the FROM: a subquery or joins materialized, or joins planned on the workers
  // (MaterializeJoins). Returns whether the joins run on the coordinator.
  absl::StatusOr<bool> PrepareFrom(PreparedSelect* prepared, const core::Settings& settings,
                                   QueryContext* query, const SubqueryRunner& run);
  // What exec/from_clause.h and exec/in_joins.h need to read relations and choose joins.
  FromContext JoinContext(const core::Settings& settings, QueryContext* query,
                          const SubqueryRunner& run);
  // Binds a SELECT (the planner rules applied) for Select and Explain; `materialized` or
  // `broadcast` replaces its FROM (Binder::Bind).
  absl::StatusOr<QueryPlan> PlanSelect(const sql::SelectStatement& select, QueryContext* query,
                                       std::optional<LocalTable> materialized = std::nullopt,
                                       const BroadcastSource* broadcast = nullptr);
  // SELECT ... LIMIT n [OFFSET m] BY exprs: runs `select` with the BY expressions as extra
  // trailing columns and without its LIMIT, then keeps the first n rows (after m) per BY value
  // and applies the LIMIT (exec/limit_by.h).
  // ORDER BY ... WITH FILL (exec/with_fill.h): the SELECT without the fill, then the rows
  // added, then OFFSET / LIMIT (query_executor_fill.cc).
  absl::StatusOr<QueryResult> SelectWithFill(const sql::SelectStatement& select,
                                             QueryContext* query, const CteScope* outer);
  absl::StatusOr<QueryResult> SelectLimitBy(const sql::SelectStatement& select,
                                            QueryContext* query, const CteScope* outer);
  // SELECT with tuples in its select list: the split SELECT, then the tuples put together
  // (exec/tuple_results.h).
  absl::StatusOr<QueryResult> SelectTuples(const TupleSplit& split, QueryContext* query,
                                           const CteScope* outer);
  // SELECT ... GROUP BY ... WITH TOTALS: the result, and the totals row from the same SELECT
  // without GROUP BY (its keys at their defaults).
  absl::StatusOr<QueryResult> SelectWithTotals(const sql::SelectStatement& select,
                                               QueryContext* query, const CteScope* outer);
  // A SELECT with window functions, QUALIFY or grouping sets (exec/window_split.h): the inner
  // select (once per grouping set), the window columns, then the outer select over them.
  absl::StatusOr<QueryResult> SelectSplit(const sql::SelectStatement& select, QueryContext* query,
                                          const SubqueryRunner& run);
  // Plans `select` (over `materialized` or `broadcast`, if set) and runs it.
  absl::StatusOr<QueryResult> PlanAndRun(const sql::SelectStatement& select, QueryContext* query,
                                         std::optional<LocalTable> materialized,
                                         const BroadcastSource* broadcast = nullptr);
  // CREATE VIEW (exec/views.h); ViewOf: the view `ref` names, if it names one.
  absl::StatusOr<QueryResult> CreateView(const sql::CreateTableStatement& create,
                                         QueryContext* query);
  std::optional<core::TableSchema> ViewOf(const sql::TableRef& ref,
                                          const std::string& current_database);
  // `select` with its Tuple / Map columns and values written as subcolumns and arrays
  // (planner/compound_columns.h).
  // A set operation's operands with their compound columns expanded, split into tuple
  // elements when a select list holds a tuple (exec/tuple_results.h); nullopt when none does.
  absl::StatusOr<std::optional<TupleSplit>> SplitSetOperationTuples(
      const sql::SelectStatement& select, QueryContext* query);
  absl::StatusOr<sql::SelectStatement> ExpandCompounds(const sql::SelectStatement& select,
                                                       QueryContext* query);
  // The schema of the table (or view) `ref` names; nullopt for anything else.
  std::optional<core::TableSchema> TableOf(const sql::TableRef& ref,
                                           const std::string& current_database);
  // Columns of a table or table function named in a FROM with joins.
  absl::StatusOr<RelationColumns> ColumnsOf(const sql::TableRef& ref,
                                            const std::string& current_database);
  // Merges `select`'s FROM subquery into it while it can (exec/subquery_merge.h), resolving
  // the CTE references and views the merge brings up.
  absl::StatusOr<sql::SelectStatement> MergeSubqueries(sql::SelectStatement select,
                                                       const CteScope& scope, QueryContext* query);
  // Folds `select`'s ARRAY JOIN clauses and arrayJoin calls into FROM subqueries
  // (exec/array_join.h).
  // `select` with its aggregation pushed below its joins (exec/eager_aggregation.h) when it
  // applies and optimize_aggregation_below_joins is on; else `select` itself.
  absl::StatusOr<sql::SelectStatement> AggregateBelowJoinsIfOn(sql::SelectStatement select,
                                                               const core::Settings& settings,
                                                               QueryContext* query);
  absl::StatusOr<sql::SelectStatement> FoldArrayJoins(sql::SelectStatement select,
                                                      QueryContext* query);
  // Returns `select` with its FROM and JOIN tables that name a CTE in `scope` turned into
  // subqueries (aliased by the CTE's name).
  static sql::SelectStatement ResolveCteReferences(const sql::SelectStatement& select,
                                                   const CteScope& scope);
  // A top-level UNION ALL chain of plain SELECTs of one column layout, streamed operand after
  // operand into QueryContext::result_sink; nullopt when the chain does not qualify (then
  // SelectSetOperation runs it). Defined in exec/streamed_union.cc.
  absl::StatusOr<std::optional<QueryResult>> StreamUnionAll(const sql::SelectStatement& select,
                                                            QueryContext* query);
  // Runs each operand of a UNION / INTERSECT / EXCEPT chain left to right and combines them.
  absl::StatusOr<QueryResult> SelectSetOperation(const sql::SelectStatement& select,
                                                 const SubqueryRunner& run);
  absl::StatusOr<QueryResult> Explain(const sql::ExplainStatement& explain, QueryContext* query);
  // The EXPLAIN lines of `select` nested in `outer` (query_executor_explain.cc).
  absl::StatusOr<std::vector<std::string>> ExplainSelect(const sql::SelectStatement& select,
                                                         const ExplainOptions& options,
                                                         QueryContext* query,
                                                         const CteScope* outer);
  // Runs a planned SELECT and returns its result block; with `stream_to` (REQUIRES:
  // CanStream(plan) or CanStreamGroups(plan), Begin done) pushes the rows there instead and
  // returns an empty block.
  absl::StatusOr<core::Block> Run(const QueryPlan& plan, QueryContext* query,
                                  ResultSink* stream_to = nullptr);
  // The two ways a SELECT's worker results come together: partial states merged by bucket
  // (BucketedMerger, as the plan's merge fields say), or blocks concatenated.
  // With `streamed`, each merged bucket goes through it to the client (CanStreamGroups) and the
  // returned block is empty.
  absl::StatusOr<core::Block> RunBucketMerge(const QueryPlan& plan, QueryContext* query,
                                             StreamedFinalStage* streamed = nullptr);
  absl::StatusOr<core::Block> RunConcat(const QueryPlan& plan, QueryContext* query);
  absl::StatusOr<core::Block> RunLocal(const QueryPlan& plan);
  absl::StatusOr<QueryResult> Insert(const sql::InsertStatement& insert, std::string_view input,
                                     InputSource* more_input, const InsertOptions& options,
                                     QueryContext* query);
  // Builds system.<name> for the binder, DESCRIBE and EXISTS.
  LocalTableProvider SystemTables(QueryContext* query);
  // KILL QUERY WHERE <expr> [SYNC | ASYNC | TEST]: cancels the running queries that
  // `SELECT ... FROM system.processes WHERE <expr>` finds (never the KILL itself).
  absl::StatusOr<QueryResult> Kill(const sql::KillQueryStatement& kill, std::string_view sql,
                                   QueryContext* query);

  static constexpr int kMaxSelectNesting = 64;

  const WorkerSet* workers_;
  Catalog* catalog_;
  core::ThreadPool* pool_;
  QueryRegistry* registry_;
  Membership* membership_;  // may be null (tests): then no fail-fast check
  AdmissionQueue* admission_ = nullptr;
  int select_nice_ = 0;
  EtcdCatalog* etcd_ = nullptr;
};

}  // namespace granite::coordinator
