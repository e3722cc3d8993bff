// ResultSink: where a top-level SELECT's result rows go as execution produces them — the
// service's writer (coordinator/server/result_writer.h) formats, compresses and sends them to the
// client. QueryExecutor pushes into it when QueryContext::result_sink is set and the SELECT's
// rows need not be seen whole (exec/streamed_select.h); otherwise the result stays one block.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/types.h"

namespace granite::coordinator {

// Thread-safety: the caller serializes calls (one at a time, Begin first).
class ResultSink {
 public:
  virtual ~ResultSink() = default;
  // Takes the result's columns and its FORMAT clause (empty if none), before any Push; fails for
  // an unknown format.
  virtual absl::Status Begin(const std::vector<std::string>& names,
                             const std::vector<core::TypeId>& types, const std::string& format) = 0;
  // Takes the next rows; may wait while the client is behind (that is the backpressure). Returns
  // false when no more rows are wanted (result_overflow_mode = 'break'), an error when the query
  // must fail (a result limit with 'throw', the client went away).
  virtual absl::StatusOr<bool> Push(const core::Block& block) = 0;
};

}  // namespace granite::coordinator
