// QueryRegistry: the coordinator's running queries (system.processes, KILL QUERY, the
// granite_running_queries gauge) and its log of recent finished ones (system.query_log).
//
// Starting and finishing a query are per-query work, so the registry is split into shards, each
// behind its own "query_registry" lock, chosen by a hash of the query id: concurrent queries touch
// different shards instead of serializing on one global mutex (DESIGN.md §5.1). The log keeps the
// most recent log_capacity / 16 queries of each shard (about `log_capacity` in all); readers merge
// the shards by finish time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/server/query_context.h"
#include "core/mutex.h"

namespace granite::coordinator {

// One finished query, as system.query_log shows it.
struct QueryLogEntry {
  std::string query_id;
  std::string user;  // the authenticated user (empty: refused before authentication)
  std::string query;
  QueryKind kind = QueryKind::kOther;
  std::chrono::system_clock::time_point start_time;
  std::chrono::system_clock::time_point finish_time;
  uint64_t duration_us = 0;
  uint64_t read_rows = 0;
  uint64_t read_bytes = 0;
  uint64_t written_rows = 0;
  uint64_t result_rows = 0;
  uint64_t memory_usage = 0;  // peak of what the query held on the coordinator
  std::vector<uint64_t> worker_elapsed_us;  // per worker, by index
  bool final_merge_skipped = false;  // groups were finalized on the workers
  // Pruning summed over the workers (ClickHouse's SelectedParts / SelectedPartsTotal /
  // SelectedMarks / SelectedMarksTotal), and the wait for a SELECT execution slot.
  uint64_t selected_parts = 0;
  uint64_t selected_parts_total = 0;
  uint64_t selected_marks = 0;
  uint64_t selected_marks_total = 0;
  uint64_t queue_wait_us = 0;
  int32_t exception_code = 0;  // 0 when the query succeeded
  std::string exception;
  bool cancelled = false;
};

// A running query, as system.processes shows it.
struct RunningQuery {
  std::string query_id;
  std::string user;  // the authenticated user (empty: refused before authentication)
  std::string query;
  QueryKind kind = QueryKind::kOther;
  double elapsed_seconds = 0;
  uint64_t read_rows = 0;
  uint64_t read_bytes = 0;
  bool queued = false;  // waiting in the SELECT admission queue
  int64_t memory_usage = 0;  // bytes the query holds on the coordinator now, and at most
  int64_t peak_memory_usage = 0;
};

// Tracks running and recently finished queries.
// Thread-safety: all methods are safe to call concurrently.
class QueryRegistry {
 public:
  explicit QueryRegistry(size_t log_capacity = 1024);
  ~QueryRegistry();

  // Adds a running query. Fails with QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING, adding nothing,
  // while another query with its id runs (as ClickHouse does without replace_running_query).
  // REQUIRES: `query` stays alive until Finish(query, ...).
  absl::Status Start(QueryContext* query);
  // Removes a running query and logs it.
  void Finish(QueryContext* query, QueryLogEntry entry);

  // Cancels the running query with this id; returns the queries it cancelled (none or one).
  std::vector<RunningQuery> Cancel(const std::string& query_id);
  // Returns true while a query with this id is running.
  bool IsRunning(const std::string& query_id) const;

  std::vector<RunningQuery> Running() const;
  size_t RunningCount() const;
  // Returns the logged queries, oldest first.
  std::vector<QueryLogEntry> Log() const;

 private:
  struct Shard;
  Shard& ShardOf(const std::string& query_id) const;

  static constexpr size_t kShards = 16;
  const size_t log_capacity_per_shard_;
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace granite::coordinator
