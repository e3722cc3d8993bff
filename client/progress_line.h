// ProgressLine: `granite client`'s live progress line on stderr, as ClickHouse's client draws it
// on a terminal: once a query has run kDelay, each Progress increment redraws
//   "Progress: 12.35 million rows, 98.76 MB (24.69 million rows/s., 197.52 MB/s.) 12%"
// in place ('\r', then erase to the end of the line); the percentage needs the server's
// total_rows_to_read. Clear() erases it before output is printed and when the query ends.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

#include "clickhouse/grpc/clickhouse_grpc.pb.h"

namespace granite::client {

// Thread-safety: none; one query at a time, on the thread that reads its results.
class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kDelay{500};

  // `err` is the terminal's stream; `start` is when the query was sent.
  ProgressLine(std::ostream* err, Clock::time_point start) : err_(err), start_(start) {}

  // Adds one increment; redraws the line when the query has run kDelay by `now`.
  void Add(const clickhouse::grpc::Progress& increment, Clock::time_point now);
  // Erases the line if one is drawn.
  void Clear();

  // The line's text for these totals after `seconds` (no control characters).
  static std::string Text(uint64_t rows, uint64_t bytes, uint64_t total_rows, double seconds);

 private:
  std::ostream* const err_;
  const Clock::time_point start_;
  uint64_t rows_ = 0;
  uint64_t bytes_ = 0;
  uint64_t total_rows_ = 0;
  bool drawn_ = false;
};

}  // namespace granite::client
