// The limits a query runs under, from its settings, as ClickHouse names them: max_query_size,
// max_execution_time, max_rows_to_read / max_bytes_to_read, max_result_rows / max_result_bytes
// with result_overflow_mode. ClickHouseService applies them around QueryExecutor::Execute: the
// size before the query runs, the time while it runs (QueryTimer cancels the query, and with it
// every worker stream), the read and result limits on what it produced.
#pragma once

#include <atomic>
#include <chrono>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"
#include "core/block.h"
#include "core/settings/settings.h"

namespace granite::coordinator::access {

// Fails with SYNTAX_ERROR, as ClickHouse reports max_query_size, when `query` without the inline
// data of an INSERT ... FORMAT (which ClickHouse reads as data, not as query) is longer than
// settings.max_query_size (0 = no limit).
absl::Status CheckQuerySize(std::string_view query, const absl::StatusOr<sql::Statement>& parsed,
                            const core::Settings& settings);

// Fails with TOO_MANY_ROWS (158) or TOO_MANY_BYTES (307) when the query read more than
// max_rows_to_read / max_bytes_to_read.
absl::Status CheckReadLimits(const core::Settings& settings, uint64_t read_rows,
                             uint64_t read_bytes);

// Applies max_result_rows / max_result_bytes to a result `block`: with result_overflow_mode
// 'throw', TOO_MANY_ROWS_OR_BYTES (396) when it is larger; with 'break', cuts it to the rows that
// fit (the first max_result_rows rows, and the longest prefix within max_result_bytes, at least
// one row). Sets `*cut` when rows were dropped. A result streamed block by block passes the rows
// and bytes (ResultBytes) of the blocks before `block`: the limits count the whole result.
absl::Status ApplyResultLimits(const core::Settings& settings, core::Block* block, bool* cut,
                               uint64_t rows_before = 0, uint64_t bytes_before = 0);
// The bytes of `block` as the result limits count them.
uint64_t ResultBytes(const core::Block& block);

// Watches a running query's elapsed time against max_execution_time.
// Thread-safety: Expired() from any thread; Error() after the query ended.
class QueryTimer {
 public:
  QueryTimer(const core::Settings& settings, std::chrono::steady_clock::time_point start)
      : limit_seconds_(settings.max_execution_time), start_(start) {}

  bool enabled() const { return limit_seconds_ > 0; }
  // True once the query has run longer than the limit; remembers it.
  bool Expired();
  bool expired() const { return expired_.load(); }
  // TIMEOUT_EXCEEDED with the elapsed time and the limit.
  absl::Status Error() const;

 private:
  const uint64_t limit_seconds_;
  const std::chrono::steady_clock::time_point start_;
  std::atomic<bool> expired_{false};
};

}  // namespace granite::coordinator::access
