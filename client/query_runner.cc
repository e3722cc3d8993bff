#include "client/query_runner.h"

#include <atomic>
#include <random>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "clickhouse/grpc/clickhouse_grpc.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace granite::client {
namespace {

using clickhouse::grpc::QueryInfo;
using clickhouse::grpc::Result;
using Stream = grpc::ClientReaderWriter<QueryInfo, Result>;

absl::Duration ToDuration(std::chrono::milliseconds ms) { return absl::Milliseconds(ms.count()); }

// Sends the requests of one call: the query, the input chunks, then (only while a cancel can still
// be asked for) waits for the reads to end so that a cancel can be sent; finally half-closes.
// Runs on its own thread because a sync bidi stream blocks in Read() while results stream in.
class RequestWriter {
 public:
  RequestWriter(const QueryInfo& info, const ExecuteOptions& options, Stream* stream,
                grpc::ClientContext* context, const absl::Notification* reads_done)
      : info_(info), options_(options), stream_(stream), context_(context),
        reads_done_(reads_done) {}

  void Run() {
    std::string chunk;
    QueryInfo first = info_;
    bool more_input = options_.input && options_.input(&chunk);
    if (more_input) {
      first.set_input_data(std::move(chunk));
      first.set_next_query_info(true);
    }
    if (!stream_->Write(first)) return;
    while (more_input) {
      if (CancelRequested()) return SendCancel();
      QueryInfo next;
      more_input = options_.input(&chunk);
      if (more_input) {
        next.set_input_data(std::move(chunk));
        next.set_next_query_info(true);
      }
      if (!stream_->Write(next)) return;
    }
    if (options_.cancel_requested) {
      // Keep the stream open, as the stock client does, so a cancel can still be sent.
      while (!reads_done_->WaitForNotificationWithTimeout(ToDuration(options_.cancel_poll))) {
        if (CancelRequested()) return SendCancel();
      }
    }
    stream_->WritesDone();
  }

  bool cancel_sent() const { return cancel_sent_; }

 private:
  bool CancelRequested() const { return options_.cancel_requested && options_.cancel_requested(); }

  // Asks the server to cancel; if it has not ended the stream after the grace period, cancels the
  // call itself.
  void SendCancel() {
    cancel_sent_ = true;
    QueryInfo cancel;
    cancel.set_cancel(true);
    if (stream_->Write(cancel)) stream_->WritesDone();
    if (!reads_done_->WaitForNotificationWithTimeout(ToDuration(options_.cancel_grace))) {
      context_->TryCancel();
    }
  }

  const QueryInfo& info_;
  const ExecuteOptions& options_;
  Stream* const stream_;
  grpc::ClientContext* const context_;
  const absl::Notification* const reads_done_;
  bool cancel_sent_ = false;  // Read by the caller only after the writer thread is joined.
};

// Adds one streamed Result to `result`.
void Absorb(Result& message, const ExecuteOptions& options, QueryResult* result) {
  if (!message.output().empty()) {
    if (options.on_output) {
      options.on_output(message.output());
    } else {
      result->output.append(message.output());
    }
  }
  result->totals.append(message.totals());
  result->extremes.append(message.extremes());
  if (message.has_progress()) {
    const clickhouse::grpc::Progress& increment = message.progress();
    clickhouse::grpc::Progress& sum = result->progress;
    sum.set_read_rows(sum.read_rows() + increment.read_rows());
    sum.set_read_bytes(sum.read_bytes() + increment.read_bytes());
    sum.set_total_rows_to_read(sum.total_rows_to_read() + increment.total_rows_to_read());
    sum.set_written_rows(sum.written_rows() + increment.written_rows());
    sum.set_written_bytes(sum.written_bytes() + increment.written_bytes());
    if (options.on_progress) options.on_progress(increment);
  }
  if (message.has_stats()) result->stats = message.stats();
  if (message.has_exception()) result->exception = message.exception();
  if (message.cancelled()) result->cancelled = true;
  if (!message.query_id().empty()) result->query_id = message.query_id();
  if (!message.output_format().empty()) result->output_format = message.output_format();
}

}  // namespace

InputReader StreamInputReader(std::istream& in, size_t chunk_size) {
  return [&in, chunk_size](std::string* chunk) {
    chunk->resize(chunk_size);
    in.read(chunk->data(), static_cast<std::streamsize>(chunk_size));
    chunk->resize(static_cast<size_t>(in.gcount()));
    return !chunk->empty();
  };
}

std::string HostPort(const std::string& host, int port) {
  bool bare_ipv6 = host.find(':') != std::string::npos && host.front() != '[';
  return bare_ipv6 ? absl::StrCat("[", host, "]:", port) : absl::StrCat(host, ":", port);
}

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& host, int port,
                                          std::shared_ptr<grpc::ChannelCredentials> credentials) {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);
  arguments.SetMaxSendMessageSize(-1);
  if (credentials == nullptr) credentials = grpc::InsecureChannelCredentials();
  return grpc::CreateCustomChannel(HostPort(host, port), credentials, arguments);
}

absl::StatusOr<QueryResult> ExecuteQuery(const std::shared_ptr<grpc::Channel>& channel,
                                         const QueryInfo& info, const ExecuteOptions& options) {
  std::unique_ptr<clickhouse::grpc::ClickHouse::Stub> stub =
      clickhouse::grpc::ClickHouse::NewStub(channel);
  grpc::ClientContext context;
  if (options.timeout) context.set_deadline(std::chrono::system_clock::now() + *options.timeout);
  std::unique_ptr<Stream> stream = stub->ExecuteQueryWithStreamIO(&context);

  absl::Notification reads_done;
  RequestWriter writer(info, options, stream.get(), &context, &reads_done);
  std::thread writer_thread([&writer] { writer.Run(); });
  QueryResult result;
  Result message;
  while (stream->Read(&message)) Absorb(message, options, &result);
  reads_done.Notify();
  writer_thread.join();
  grpc::Status status = stream->Finish();

  result.cancel_sent = writer.cancel_sent();
  if (status.ok() || result.exception.has_value() || result.cancelled) return result;
  if (result.cancel_sent && status.error_code() == grpc::StatusCode::CANCELLED) {
    result.cancelled = true;  // The server ignored the cancel; the call was cut instead.
    return result;
  }
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

std::string RandomUuid() {
  thread_local std::mt19937_64 generator(std::random_device{}());
  uint64_t high = generator();
  uint64_t low = generator();
  high = (high & ~0xF000ULL) | 0x4000ULL;                 // Version 4.
  low = (low & ~(0xC000ULL << 48)) | (0x8000ULL << 48);  // Variant RFC 4122.
  return absl::StrFormat("%08x-%04x-%04x-%04x-%012x", high >> 32, (high >> 16) & 0xFFFF,
                         high & 0xFFFF, low >> 48, low & 0xFFFFFFFFFFFFULL);
}

}  // namespace granite::client
