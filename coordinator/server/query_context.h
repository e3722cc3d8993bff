// QueryContext: the per-query state shared by the service handler, the fan-out threads and the
// merger: id, text, kind, cancellation (reaching every worker stream at once), read statistics and
// the per-worker timings that end up in system.query_log.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <grpcpp/client_context.h>

#include "coordinator/access/role_set.h"
#include "core/memory/memory_tracker.h"
#include "core/mutex.h"
#include "core/settings/settings.h"

namespace granite::coordinator {

class ResultSink;
class SubqueryMemo;

namespace access {
struct User;
}  // namespace access

// What a statement does; the `kind` label of granite_queries_total.
enum class QueryKind : uint8_t { kSelect, kInsert, kDdl, kOther };

// Returns "select", "insert", "ddl" or "other".
std::string_view QueryKindName(QueryKind kind);

// Tracks one running query.
// Thread-safety: all methods are safe to call concurrently.
class QueryContext {
 public:
  explicit QueryContext(std::string query_id, std::string query = "")
      : query_id_(std::move(query_id)),
        query_(std::move(query)),
        start_(std::chrono::steady_clock::now()),
        start_time_(std::chrono::system_clock::now()),
        memory_(core::MemoryTracker::ForQuery(0)) {}

  const std::string& query_id() const { return query_id_; }
  const std::string& query() const { return query_; }
  std::chrono::steady_clock::time_point start() const { return start_; }
  std::chrono::system_clock::time_point start_time() const { return start_time_; }

  QueryKind kind() const { return kind_.load(std::memory_order_relaxed); }
  void set_kind(QueryKind kind) { kind_.store(kind, std::memory_order_relaxed); }

  // Cancels the query: every registered worker call is cancelled now, later ones at once.
  void Cancel() EXCLUDES(mu_);
  bool cancelled() const { return cancelled_.load(); }

  // Makes Cancel() run `hook` (under this query's lock, so it must not call back into the query)
  // until ClearCancelHook(); returns false, setting nothing, if the query is already cancelled.
  // Used by the admission queue to wake a queued query that is killed or whose client went away.
  bool SetCancelHook(std::function<void()> hook) EXCLUDES(mu_);
  void ClearCancelHook() EXCLUDES(mu_);

  // Registers a worker call so Cancel() reaches it; returns false if already cancelled.
  bool Register(grpc::ClientContext* context) EXCLUDES(mu_);
  void Unregister(grpc::ClientContext* context) EXCLUDES(mu_);

  // Records how long worker `index` spent on this query's fragment (its FragmentStats).
  void RecordWorkerElapsed(size_t index, uint64_t micros) EXCLUDES(mu_);
  // Returns the recorded per-worker times, indexed by worker (0 for workers not heard from).
  std::vector<uint64_t> WorkerElapsed() const EXCLUDES(mu_);

  // What the query holds on the coordinator (core/memory/memory_tracker.h): its handler sets
  // the limit and charges it; system.processes and the query log read it.
  core::MemoryTracker& memory() const { return *memory_; }

  // Raises the peak estimate of memory held by the query on the coordinator to `bytes`.
  void NoteMemory(uint64_t bytes);
  uint64_t peak_memory() const { return peak_memory_.load(std::memory_order_relaxed); }

  std::atomic<uint64_t> read_rows{0};
  std::atomic<uint64_t> read_bytes{0};
  std::atomic<uint64_t> total_rows_to_read{0};
  std::atomic<uint64_t> merge_ns{0};
  // The aggregation was finalized on the workers and the coordinator's merge skipped
  // (coordinator/planner/rules/shard_local_aggregation.h); system.query_log's final_merge_skipped.
  std::atomic<bool> final_merge_skipped{false};
  // Partition / primary-key pruning, summed over the workers' FragmentStats.
  std::atomic<uint64_t> parts_total{0};
  std::atomic<uint64_t> parts_selected{0};
  std::atomic<uint64_t> granules_total{0};
  std::atomic<uint64_t> granules_selected{0};
  // Time spent waiting in the coordinator's SELECT admission queue; `queued` while it waits.
  std::atomic<uint64_t> queue_wait_us{0};
  std::atomic<bool> queued{false};
  // The query's settings before its statement's SETTINGS clause: the session's, then the
  // request's (QueryInfo.settings). Written by the handler thread before the query runs and by
  // its SET; read by that thread only.
  core::Settings settings;
  // What this query's SET statements changed, for its session once it succeeds.
  std::map<std::string, std::string> session_changes;
  // The current database (QueryInfo.database, else the session's, else "default"); a USE
  // changes it and sets `session_database` for the session once the query succeeds. Handler
  // thread only, like `settings`.
  std::string database = "default";
  std::string session_database;
  // Query parameters ({name:Type} in the text): the param_<name> settings the request and
  // session sent, by name without the prefix; `session_parameters` are those a SET changed.
  std::map<std::string, std::string> parameters;
  std::map<std::string, std::string> session_parameters;
  // The authenticated user (coordinator/access/access_control.h); set before the query runs,
  // null only for a query refused before authentication.
  std::shared_ptr<const access::User> user;
  // Reads of tables go through the user's row policies (access/row_policy.h) unless this is set:
  // the internal copy of an ALTER that rewrites a table's rows must keep every row.
  bool skip_row_policies = false;
  // The session's SET ROLE (nullopt: the user's default roles), and a SET ROLE this query ran
  // for the handler to keep in the session once it succeeds (roles_changed).
  std::optional<access::RoleSet> current_roles;
  bool roles_changed = false;
  // The roles in force: current_roles, or null for the defaults (GrantStore::RightsOf).
  const access::RoleSet* roles() const { return current_roles ? &*current_roles : nullptr; }
  // Holds an execution slot already (QueryScheduler admitted it before it ran): QueryExecutor
  // does not admit it again.
  std::atomic<bool> admitted{false};
  // Where a top-level SELECT streams its rows (exec/result_sink.h); null: the result is returned
  // whole. Set by the handler for a SELECT statement only. `select_depth` counts the SELECTs
  // being run (QueryExecutor::SelectIn): only the outermost one (depth 1) streams.
  ResultSink* result_sink = nullptr;
  int select_depth = 0;
  // The statement's subquery results, so an identical subquery runs once (exec/subquery_memo.h);
  // made by the first subquery run.
  std::shared_ptr<SubqueryMemo> subquery_memo;
  // SETTINGS extremes = 1 writes the extremes into the output (the HTTP interface), not only
  // into Result.extremes (gRPC, as ClickHouse's server).
  bool extremes_in_output = false;
  // Called on the reader threads when a worker reports progress (a stats chunk); the handler
  // sets it before the query runs and clears it after (ResultWriter::SendProgress).
  std::function<void()> progress_hook;
  void NoteProgress() {
    if (progress_hook) progress_hook();
  }

 private:
  // Constant after construction.
  const std::string query_id_;
  const std::string query_;
  const std::chrono::steady_clock::time_point start_;
  const std::chrono::system_clock::time_point start_time_;
  const std::shared_ptr<core::MemoryTracker> memory_;

  std::atomic<QueryKind> kind_{QueryKind::kOther};
  std::atomic<bool> cancelled_{false};
  std::atomic<uint64_t> peak_memory_{0};

  mutable core::Mutex mu_{"query_context"};
  std::vector<grpc::ClientContext*> calls_ GUARDED_BY(mu_);
  std::function<void()> cancel_hook_ GUARDED_BY(mu_);
  std::vector<uint64_t> worker_elapsed_us_ GUARDED_BY(mu_);
};

}  // namespace granite::coordinator
