#include "coordinator/clickhouse_service.h"

#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "absl/strings/str_format.h"
#include "core/error.h"
#include "coordinator/formats/output_format.h"

namespace granite::coordinator {

namespace ch = clickhouse::grpc;

namespace {

constexpr size_t kOutputChunkBytes = 1 << 20;

std::string NewQueryId() {
  static std::atomic<uint64_t> counter{0};
  std::random_device device;
  return absl::StrFormat("%08x-%04x-%016x", device(), device() & 0xffff, counter.fetch_add(1));
}

void SetException(const absl::Status& status, ch::Result* result) {
  core::ErrorCode code = core::CodeOf(status);
  ch::Exception* exception = result->mutable_exception();
  exception->set_code(static_cast<int>(code));
  exception->set_name(std::string(core::ErrorName(code)));
  exception->set_display_text(std::string(status.message()));
}

// Mirrors the client's RPC cancellation into the query while it runs.
class CancellationWatcher {
 public:
  CancellationWatcher(grpc::ServerContext* context, QueryContext* query)
      : thread_([this, context, query] {
          while (!done_.load()) {
            if (context->IsCancelled()) {
              query->Cancel();
              return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          }
        }) {}
  ~CancellationWatcher() {
    done_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace

void ClickHouseService::Run(grpc::ServerContext* context, const ch::QueryInfo& info,
                            const std::string& input, const Emit& emit) {
  QueryContext query(info.query_id().empty() ? NewQueryId() : info.query_id());
  absl::StatusOr<QueryResult> outcome;
  {
    CancellationWatcher watcher(context, &query);
    outcome = executor_->Execute(info.query(), input, &query);
  }
  ch::Result result;
  result.set_query_id(query.query_id());
  result.set_time_zone("UTC");
  if (!outcome.ok()) {
    if (query.cancelled() && core::CodeOf(outcome.status()) == core::ErrorCode::kQueryWasCancelled) {
      result.set_cancelled(true);
    }
    SetException(outcome.status(), &result);
    emit(result);
    return;
  }
  std::string output;
  uint64_t rows = 0;
  if (outcome->has_rows) {
    std::string format_name = !outcome->format.empty()       ? outcome->format
                              : !info.output_format().empty() ? info.output_format()
                                                              : "TabSeparated";
    absl::StatusOr<std::unique_ptr<OutputFormat>> format = MakeOutputFormat(format_name);
    if (!format.ok()) {
      SetException(format.status(), &result);
      emit(result);
      return;
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
    (*format)->Begin(outcome->names, outcome->types, &output);
    constexpr size_t kRowsPerWrite = 8192;
    for (size_t at = 0; at < rows; at += kRowsPerWrite) {
      (*format)->Write(core::SliceRows(outcome->block, at, kRowsPerWrite), &output);
      if (output.size() >= kOutputChunkBytes) {
        result.set_output(std::move(output));
        output.clear();
        if (!emit(result)) return;
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
  emit(result);
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
