// QueryGuard: one client query's rights and limits, applied by ClickHouseService around
// QueryExecutor::Execute. Before: max_query_size, readonly and the profile's constraints on the
// statement (statement_access.h), max_concurrent_queries_for_user. While it runs:
// max_execution_time (polled; the service cancels the query, and with it every worker stream).
// After: TIMEOUT_EXCEEDED instead of the cancellation, then max_rows_to_read / max_bytes_to_read
// and max_result_rows / max_result_bytes (query_limits.h).
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/access/access_control.h"
#include "coordinator/access/query_limits.h"
#include "coordinator/access/users_file.h"
#include "coordinator/sql/ast.h"
#include "core/block.h"
#include "core/settings/settings.h"

namespace granite::coordinator::access {

// Thread-safety: TimedOut() from any thread (the cancellation poller); the rest on the query's
// thread.
class QueryGuard {
 public:
  // REQUIRES: `user` outlives the guard.
  QueryGuard(const User& user, const core::Settings& settings,
             std::chrono::steady_clock::time_point start)
      : user_(user), settings_(settings), start_(start) {}

  // Checks the query before it runs: its size (also when it did not parse: a too large text is
  // reported as such), the user's right to run the statement with its setting changes, and takes
  // one of the user's concurrent query slots until the guard goes.
  absl::Status Admit(std::string_view query, const absl::StatusOr<sql::Statement>& parsed);

  // True once the query has run longer than max_execution_time.
  // REQUIRES: Admit() succeeded.
  bool TimedOut() { return timer_->Expired(); }

  // Returns the query's error after it ran with `executed`: TIMEOUT_EXCEEDED if the time limit
  // cancelled it, else `executed` if it failed, else a read or result limit's error; with
  // result_overflow_mode 'break' cuts `result` (may be null) instead.
  absl::Status Finish(const absl::Status& executed, uint64_t read_rows, uint64_t read_bytes,
                      core::Block* result);

 private:
  const User& user_;
  core::Settings settings_;  // the request's, then the statement's SETTINGS (after Admit)
  const std::chrono::steady_clock::time_point start_;
  std::optional<QueryTimer> timer_;
  AccessControl::QuerySlot slot_;
};

}  // namespace granite::coordinator::access
