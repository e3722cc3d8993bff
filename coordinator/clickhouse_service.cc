#include "coordinator/clickhouse_service.h"

#include <atomic>
#include <chrono>
#include <random>

#include "absl/strings/str_format.h"
#include "coordinator/formats/output_format.h"
#include "core/cancellation_poller.h"
#include "core/error.h"
#include "core/metrics/events.h"
#include "core/metrics/histogram.h"

namespace granite::coordinator {

namespace ch = clickhouse::grpc;

namespace {

constexpr size_t kOutputChunkBytes = 1 << 20;

// Returns a random version 4 UUID. The generator is per thread: no shared state per query.
std::string NewQueryId() {
  thread_local std::mt19937_64 random(std::random_device{}());
  uint64_t high = random();
  uint64_t low = random();
  return absl::StrFormat("%08x-%04x-4%03x-%04x-%012x", high >> 32, (high >> 16) & 0xffff,
                         high & 0xfff, 0x8000 | ((low >> 48) & 0x3fff), low & 0xffffffffffffULL);
}

void SetException(const absl::Status& status, ch::Result* result) {
  core::ErrorCode code = core::CodeOf(status);
  ch::Exception* exception = result->mutable_exception();
  exception->set_code(static_cast<int>(code));
  exception->set_name(std::string(core::ErrorName(code)));
  exception->set_display_text(std::string(status.message()));
}

// Returns the event that counts a finished query of `kind` with this outcome.
core::Event QueryEvent(QueryKind kind, bool ok, bool cancelled) {
  using core::Event;
  static constexpr Event kEvents[4][3] = {
      {Event::kSelectQueriesSucceeded, Event::kSelectQueriesFailed, Event::kSelectQueriesCancelled},
      {Event::kInsertQueriesSucceeded, Event::kInsertQueriesFailed, Event::kInsertQueriesCancelled},
      {Event::kDdlQueriesSucceeded, Event::kDdlQueriesFailed, Event::kDdlQueriesCancelled},
      {Event::kOtherQueriesSucceeded, Event::kOtherQueriesFailed, Event::kOtherQueriesCancelled},
  };
  return kEvents[static_cast<int>(kind)][ok ? 0 : cancelled ? 2 : 1];
}

}  // namespace

void ClickHouseService::Run(grpc::ServerContext* context, const ch::QueryInfo& info,
                            const std::string& input, const Emit& emit) {
  QueryContext query(info.query_id().empty() ? NewQueryId() : info.query_id(), info.query());
  registry_->Start(&query);
  Produced produced;
  ch::Result last;
  absl::Status status = Serve(context, info, input, emit, &query, &produced, &last);
  // Logged before the last message goes out, so a client that sees the end of its query finds it
  // in system.query_log.
  Record(&query, status, produced);
  emit(last);
}

absl::Status ClickHouseService::Serve(grpc::ServerContext* context, const ch::QueryInfo& info,
                                      const std::string& input, const Emit& emit,
                                      QueryContext* query_context, Produced* produced,
                                      ch::Result* last) {
  QueryContext& query = *query_context;
  absl::StatusOr<QueryResult> outcome;
  {
    // A client that goes away cancels the query (and with it every worker stream).
    core::CancellationPoller::Registration watch = core::CancellationPoller::Global().Watch(
        [context] { return context->IsCancelled(); }, [&query] { query.Cancel(); });
    outcome = executor_->Execute(info.query(), input, &query);
  }
  ch::Result& result = *last;
  result.set_query_id(query.query_id());
  result.set_time_zone("UTC");
  if (!outcome.ok()) {
    if (query.cancelled() && core::CodeOf(outcome.status()) == core::ErrorCode::kQueryWasCancelled) {
      result.set_cancelled(true);
    }
    SetException(outcome.status(), &result);
    return outcome.status();
  }
  produced->written_rows = outcome->written_rows;
  std::string output;
  uint64_t rows = 0;
  if (outcome->has_rows) {
    std::string format_name = !outcome->format.empty()       ? outcome->format
                              : !info.output_format().empty() ? info.output_format()
                                                              : "TabSeparated";
    absl::StatusOr<std::unique_ptr<OutputFormat>> format = MakeOutputFormat(format_name);
    if (!format.ok()) {
      SetException(format.status(), &result);
      return format.status();
    }
    result.set_output_format(format_name);
    if (info.send_output_columns()) {
      for (size_t i = 0; i < outcome->names.size(); ++i) {
        ch::NameAndType* column = result.add_output_columns();
        column->set_name(outcome->names[i]);
        column->set_type(std::string(core::TypeName(outcome->types[i])));
      }
    }
    rows = outcome->block.rows();
    produced->result_rows = rows;
    (*format)->Begin(outcome->names, outcome->types, &output);
    constexpr size_t kRowsPerWrite = 8192;
    for (size_t at = 0; at < rows; at += kRowsPerWrite) {
      (*format)->Write(core::SliceRows(outcome->block, at, kRowsPerWrite), &output);
      if (output.size() >= kOutputChunkBytes) {
        result.set_output(std::move(output));
        output.clear();
        if (!emit(result)) {
          absl::Status gone = core::Error(core::ErrorCode::kQueryWasCancelled,
                                          "The client went away while the result was sent");
          result.Clear();
          SetException(gone, &result);
          return gone;
        }
        result.Clear();
        result.set_query_id(query.query_id());
      }
    }
    (*format)->End(&output);
  }
  result.set_output(std::move(output));
  ch::Progress* progress = result.mutable_progress();
  progress->set_read_rows(query.read_rows.load());
  progress->set_read_bytes(query.read_bytes.load());
  progress->set_written_rows(outcome->written_rows);
  ch::Stats* stats = result.mutable_stats();
  stats->set_rows(rows);
  stats->set_blocks(rows > 0 ? 1 : 0);
  stats->set_applied_limit(false);
  stats->set_rows_before_limit(rows);
  return absl::OkStatus();
}

void ClickHouseService::Record(QueryContext* query, const absl::Status& status,
                               const Produced& produced) {
  auto finished = std::chrono::steady_clock::now();
  uint64_t duration_us =
      std::chrono::duration_cast<std::chrono::microseconds>(finished - query->start()).count();
  bool cancelled = !status.ok() && (query->cancelled() || core::CodeOf(status) ==
                                                              core::ErrorCode::kQueryWasCancelled);
  core::CountEvent(QueryEvent(query->kind(), status.ok(), cancelled));
  core::QueryDurationHistogram().ObserveMicroseconds(duration_us);
  core::CountEvent(core::Event::kReadRows, query->read_rows.load());
  core::CountEvent(core::Event::kReadBytes, query->read_bytes.load());
  core::CountEvent(core::Event::kInsertedRows, produced.written_rows);
  core::CountEvent(core::Event::kMergeMicroseconds, query->merge_ns.load() / 1000);

  QueryLogEntry entry;
  entry.query_id = query->query_id();
  entry.query = query->query();
  entry.kind = query->kind();
  entry.start_time = query->start_time();
  entry.finish_time = std::chrono::system_clock::now();
  entry.duration_us = duration_us;
  entry.read_rows = query->read_rows.load();
  entry.read_bytes = query->read_bytes.load();
  entry.written_rows = produced.written_rows;
  entry.result_rows = produced.result_rows;
  entry.memory_usage = query->peak_memory();
  entry.worker_elapsed_us = query->WorkerElapsed();
  if (!status.ok()) {
    entry.exception_code = static_cast<int32_t>(core::CodeOf(status));
    entry.exception = std::string(status.message());
    entry.cancelled = cancelled;
  }
  registry_->Finish(query, std::move(entry));
}

grpc::Status ClickHouseService::ExecuteQuery(grpc::ServerContext* context, const ch::QueryInfo* info,
                                             ch::Result* result) {
  // One Result holds everything: output chunks are concatenated, stats and errors kept.
  std::string output;
  Run(context, *info, info->input_data(), [&](ch::Result& part) {
    output += part.output();
    ch::Result merged = part;
    merged.set_output(output);
    *result = std::move(merged);
    return true;
  });
  return grpc::Status::OK;
}

grpc::Status ClickHouseService::ExecuteQueryWithStreamInput(
    grpc::ServerContext* context, grpc::ServerReader<ch::QueryInfo>* reader, ch::Result* result) {
  ch::QueryInfo first;
  if (!reader->Read(&first)) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no query");
  std::string input = first.input_data();
  ch::QueryInfo next;
  bool more = first.next_query_info();
  while (more && reader->Read(&next)) {
    if (next.cancel()) {
      result->set_cancelled(true);
      return grpc::Status::OK;
    }
    input += next.input_data();
    more = next.next_query_info();
  }
  std::string output;
  Run(context, first, input, [&](ch::Result& part) {
    output += part.output();
    ch::Result merged = part;
    merged.set_output(output);
    *result = std::move(merged);
    return true;
  });
  return grpc::Status::OK;
}

grpc::Status ClickHouseService::ExecuteQueryWithStreamOutput(
    grpc::ServerContext* context, const ch::QueryInfo* info,
    grpc::ServerWriter<ch::Result>* writer) {
  Run(context, *info, info->input_data(), [&](ch::Result& part) { return writer->Write(part); });
  return grpc::Status::OK;
}

grpc::Status ClickHouseService::ExecuteQueryWithStreamIO(
    grpc::ServerContext* context, grpc::ServerReaderWriter<ch::Result, ch::QueryInfo>* stream) {
  ch::QueryInfo first;
  if (!stream->Read(&first)) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no query");
  std::string input = first.input_data();
  bool more = first.next_query_info();
  ch::QueryInfo next;
  while (more && stream->Read(&next)) {
    if (next.cancel()) {
      ch::Result cancelled;
      cancelled.set_cancelled(true);
      cancelled.set_query_id(first.query_id());
      stream->Write(cancelled);
      return grpc::Status::OK;
    }
    input += next.input_data();
    more = next.next_query_info();
  }
  Run(context, first, input, [&](ch::Result& part) { return stream->Write(part); });
  return grpc::Status::OK;
}

}  // namespace granite::coordinator
