// ClickHouseService: the coordinator's client-facing gRPC boundary, wire-compatible with
// ClickHouse's clickhouse.grpc.ClickHouse service (all four methods). It gathers the query and its
// streamed input, runs it through the QueryExecutor, formats the result, and streams Result
// messages: output chunks, then a final one with progress and stats — or an exception. Every query
// is registered in the QueryRegistry while it runs (system.processes, KILL QUERY) and, when it
// ends, counted (granite_queries_total, granite_query_duration_seconds, rows/bytes read) and logged
// (system.query_log).
//
// ExecuteQueryWithStreamIO (what `granite benchmark` and the C++ client use) is served with gRPC's
// callback API (query_stream_reactor.h): no thread waits for it; QueryScheduler runs the query. The
// other three methods are sync handlers; their SELECTs wait for admission in QueryExecutor.
#pragma once

#include <functional>
#include <memory>

#include "clickhouse/grpc/clickhouse_grpc.grpc.pb.h"
#include "coordinator/exec/query_executor.h"
#include "coordinator/server/query_registry.h"
#include "coordinator/server/query_scheduler.h"
#include "coordinator/server/session_store.h"
#include "coordinator/sql/ast.h"
#include "coordinator/server/statement_kind.h"

namespace granite::coordinator {

// Serves ClickHouse gRPC clients.
// Thread-safety: handlers run concurrently on gRPC threads; each query has its own state.
class ClickHouseService final
    : public clickhouse::grpc::ClickHouse::WithCallbackMethod_ExecuteQueryWithStreamIO<
          clickhouse::grpc::ClickHouse::Service> {
 public:
  // REQUIRES: all three outlive the service.
  ClickHouseService(QueryExecutor* executor, QueryRegistry* registry, QueryScheduler* scheduler)
      : executor_(executor), registry_(registry), scheduler_(scheduler) {}

  grpc::Status ExecuteQuery(grpc::ServerContext* context, const clickhouse::grpc::QueryInfo* info,
                            clickhouse::grpc::Result* result) override;
  grpc::Status ExecuteQueryWithStreamInput(
      grpc::ServerContext* context, grpc::ServerReader<clickhouse::grpc::QueryInfo>* reader,
      clickhouse::grpc::Result* result) override;
  grpc::Status ExecuteQueryWithStreamOutput(
      grpc::ServerContext* context, const clickhouse::grpc::QueryInfo* info,
      grpc::ServerWriter<clickhouse::grpc::Result>* writer) override;
  grpc::ServerBidiReactor<clickhouse::grpc::QueryInfo, clickhouse::grpc::Result>*
  ExecuteQueryWithStreamIO(grpc::CallbackServerContext* context) override;

  // Receives each Result of a query in order; returns false when the client went away.
  using Emit = std::function<bool(clickhouse::grpc::Result&)>;
  // Returns true once the client went away (polled; the query is then cancelled).
  using ClientGone = std::function<bool()>;

  // Runs a query that arrived over another transport (the HTTP interface, coordinator/http/)
  // exactly as the gRPC methods do — registry, settings, sessions, admission, cancellation,
  // metrics and query log — emitting its Results; the last one carries progress and stats or the
  // exception. An INSERT reads further input from `more_input` (may be null) as it parses.
  // `peer` is the client's address in gRPC's form ("ipv4:127.0.0.1:5000", "ipv6:[::1]:5000").
  // The output holds the extremes (SETTINGS extremes = 1) as ClickHouse's HTTP answers do; gRPC
  // calls send them in Result.extremes only, as ClickHouse's gRPC server does.
  void RunQuery(const clickhouse::grpc::QueryInfo& info, const std::string& peer,
                InputSource* more_input, const ClientGone& client_gone, const Emit& emit);

 private:
  friend class QueryStreamReactor;
  // What a query produced, for its log entry.
  struct Produced {
    uint64_t result_rows = 0;
    uint64_t written_rows = 0;
  };

  // Runs the query of `info`, parsed into `parsed` (a failed parse is the query's error), with
  // `input`, emitting Results; the last one carries stats. Registers, counts and logs the query.
  // An INSERT reads further input from `more_input` (may be null) as it parses.
  // `peer` is the client's address as gRPC's ServerContext::peer() spells it.
  void Run(const ClientGone& client_gone, const std::string& peer,
           const clickhouse::grpc::QueryInfo& info,
           const absl::StatusOr<sql::Statement>& parsed, const std::string& input,
           InputSource* more_input, const Emit& emit, bool extremes_in_output = false);
  // Creates the query of `info` from client `peer` (ServerContext::peer()) and registers it
  // (system.processes, KILL QUERY) before any other work, so it is visible and killable from its
  // first instant. Sets `*refused` to the error that ends the query before it runs, leaving it
  // unregistered: a user name, password or network the users do not allow
  // (AUTHENTICATION_FAILED, access/access_control.h), a query text or query_id that is not UTF-8
  // (BAD_ARGUMENTS), or another running query's id (QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING).
  std::unique_ptr<QueryContext> StartQuery(const clickhouse::grpc::QueryInfo& info,
                                           const std::string& peer, absl::Status* refused);
  // Returns the priority delta a query with `traits` runs at on the coordinator: for a SELECT or
  // a bulk INSERT (StatementTraits::lowered) --query_thread_nice as core::HeavyWorkPriority
  // resolves it now, else 0. Records a small INSERT (core::MarkSmallWrite), which the automatic
  // priority protects. Decided once per query, before it is scheduled: a query that may run on a
  // gRPC callback thread must not be lowered there.
  int PriorityOf(const StatementTraits& traits);
  // Runs the started `query` as Run() does, at `nice` (PriorityOf), except that it returns the
  // last Result instead of emitting it. A non-OK `admitted` (the scheduler's admission failed) is
  // the query's error.
  clickhouse::grpc::Result RunStarted(const ClientGone& client_gone,
                                      const clickhouse::grpc::QueryInfo& info,
                                      const absl::StatusOr<sql::Statement>& parsed,
                                      const std::string& input, InputSource* more_input,
                                      const Emit& emit, QueryContext* query,
                                      const absl::Status& admitted, int nice);
  // Executes and emits all but the last Result, which it leaves in `last` (the stats, or the
  // exception); returns the error sent to the client (OK if none).
  absl::Status Serve(const ClientGone& client_gone, const clickhouse::grpc::QueryInfo& info,
                     const absl::StatusOr<sql::Statement>& parsed, const std::string& input,
                     InputSource* more_input, const Emit& emit,
                     QueryContext* query, const absl::Status& admitted, Produced* produced,
                     clickhouse::grpc::Result* last);
  // Marks `last` as the answer to a query its client cancelled with QueryInfo{cancel: true}:
  // Result.cancelled set and the QUERY_WAS_CANCELLED exception dropped, as ClickHouse's gRPC
  // server answers (its stock client raises on any exception, so it would print the error text
  // instead of "Query was cancelled."). Any other exception stays.
  static void MarkCancelledByClient(clickhouse::grpc::Result* last);
  // Counts the finished query in the metrics and logs it.
  void Record(QueryContext* query, const absl::Status& status, const Produced& produced);

  QueryExecutor* executor_;
  QueryRegistry* registry_;
  SessionStore sessions_;  // QueryInfo.session_id: the settings SET within each session
  QueryScheduler* scheduler_;
};

}  // namespace granite::coordinator
