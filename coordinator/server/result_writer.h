// ResultWriter: the service's ResultSink (exec/result_sink.h) — turns a query's result blocks
// into Result messages as they come: the output format, max_result_rows / max_result_bytes with
// result_overflow_mode, the output compression, and the emit that sends a message (gRPC stream
// write, HTTP chunk). A streamed SELECT pushes into it from the executor; a result returned
// whole is pushed once by ClickHouseService::Serve. Either way Finish() writes the totals, the
// statistics and the format's end into the last Result.
//
// A streamed result's first rows go out at once (the client sees them while the query runs);
// after that a message goes whenever about 1 MiB of output is held or kFlushInterval passed since
// the last one. Every message carries the progress made since the one before (ClickHouse's
// Progress is incremental: read_rows, read_bytes, total_rows_to_read), and SendProgress() sends
// one when kFlushInterval passed without a message (a worker reported progress): a short query
// sends no more messages than before. A limit with 'throw' fails the query after the rows already sent, as
// ClickHouse does when it streams.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clickhouse/grpc/clickhouse_grpc.pb.h"
#include "coordinator/exec/result_sink.h"
#include "coordinator/formats/extremes.h"
#include "coordinator/formats/output_format.h"
#include "coordinator/server/query_context.h"
#include "coordinator/server/stream_compression.h"
#include "core/mutex.h"
#include "core/settings/settings.h"

namespace granite::coordinator {

// Adds the counters of `from` to `to` (a client that keeps one Result sums the messages').
void AddProgress(const clickhouse::grpc::Progress& from, clickhouse::grpc::Progress* to);

// Thread-safety: Begin, Push, SendProgress and Finish from any thread, serialized by mu_ (the
// executor calls Push on its reader threads, SendProgress comes from them too).
class ResultWriter : public ResultSink {
 public:
  using Emit = std::function<bool(clickhouse::grpc::Result&)>;
  static constexpr size_t kChunkBytes = 1 << 20;
  static constexpr std::chrono::milliseconds kFlushInterval{100};

  // `settings`: the output format options and the result limits in force. `default_format` is
  // used without a FORMAT clause. `result` is the message being filled (emitted, then cleared
  // to its query id, at each flush); it ends as the last Result.
  // REQUIRES: every pointer outlives the writer; `compressor` may be null.
  ResultWriter(const core::Settings& settings, std::string default_format,
               bool send_output_columns, StreamCompressor* compressor, const Emit* emit,
               QueryContext* query, clickhouse::grpc::Result* result,
               bool extremes_in_output);

  absl::Status Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
                     const std::string& format) override;
  absl::StatusOr<bool> Push(const core::Block& block) override;
  // As Push for a result built whole: its first rows wait for the 1 MiB like the rest.
  absl::Status PushWhole(const core::Block& block);
  // Sends a message with the progress so far (and any rows held) when kFlushInterval passed
  // since the last message. A client gone is left to the cancellation.
  void SendProgress();
  // Sets the progress made since the last message sent.
  void FillProgress(clickhouse::grpc::Progress* progress);

  // Appends the totals row (if any), the statistics and the format's end, compressed, to the
  // last Result. REQUIRES: Begin() was called.
  absl::Status Finish(const std::optional<core::Block>& totals);
  // Finishes the compressed stream of a result without rows (DDL, INSERT).
  absl::Status FinishWithoutRows();

  uint64_t rows() {
    core::MutexLock lock(mu_);
    return rows_;
  }

 private:
  // Sends the held output (compressed) with the progress so far; QUERY_WAS_CANCELLED when the
  // client went away.
  absl::StatusOr<bool> PushRows(const core::Block& block, bool first_at_once) REQUIRES(mu_);
  absl::Status Flush() REQUIRES(mu_);
  absl::Status Compress(std::string* output, bool last) REQUIRES(mu_);
  void FillProgressLocked(clickhouse::grpc::Progress* progress) REQUIRES(mu_);
  absl::Status FinishLocked() REQUIRES(mu_);

  // Constant after construction.
  const core::Settings& settings_;
  const std::string default_format_;
  const bool send_output_columns_;
  StreamCompressor* const compressor_;
  const Emit* const emit_;
  QueryContext* const query_;
  clickhouse::grpc::Result* const result_;
  const bool extremes_in_output_;
  // The zone zoneless date-times are written in (setting session_timezone; 0: UTC).
  const uint32_t session_zone_;

  core::Mutex mu_{"result_writer"};
  std::unique_ptr<OutputFormat> format_ GUARDED_BY(mu_);
  std::string format_name_ GUARDED_BY(mu_);
  std::vector<std::string> names_ GUARDED_BY(mu_);
  std::vector<core::TypeId> types_ GUARDED_BY(mu_);
  Extremes extremes_ GUARDED_BY(mu_);  // with SETTINGS extremes = 1
  std::string output_ GUARDED_BY(mu_);
  uint64_t rows_ GUARDED_BY(mu_) = 0;
  uint64_t bytes_ GUARDED_BY(mu_) = 0;  // as the result limits count them
  bool cut_ GUARDED_BY(mu_) = false;    // result_overflow_mode 'break' dropped rows
  std::chrono::steady_clock::time_point last_flush_ GUARDED_BY(mu_);
  uint64_t flushes_ GUARDED_BY(mu_) = 0;  // messages with rows
  // The progress the messages sent so far carried.
  uint64_t sent_read_rows_ GUARDED_BY(mu_) = 0;
  uint64_t sent_read_bytes_ GUARDED_BY(mu_) = 0;
  uint64_t sent_total_rows_ GUARDED_BY(mu_) = 0;
};

}  // namespace granite::coordinator
