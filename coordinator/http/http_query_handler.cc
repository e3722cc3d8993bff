#include "coordinator/http/http_query_handler.h"

#include <civetweb.h>

#include <chrono>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/server/clickhouse_service.h"
#include "coordinator/server/result_writer.h"
#include "coordinator/server/exception_text.h"
#include "coordinator/formats/output_format.h"
#include "coordinator/http/peer_socket.h"
#include "coordinator/exec/input_source.h"
#include "coordinator/server/stream_compression.h"
#include "core/error.h"

namespace granite::coordinator::http {
namespace {

namespace ch = clickhouse::grpc;

constexpr size_t kBodyPiece = 1 << 20;
constexpr size_t kWholeResponseBytes = 1 << 20;

// Reads the request body in pieces, decompressing it when asked.
class BodyInput : public InputSource {
 public:
  BodyInput(mg_connection* connection, std::unique_ptr<StreamDecompressor> decompressor)
      : connection_(connection), decompressor_(std::move(decompressor)) {}

  absl::StatusOr<bool> Next(std::string* piece) override {
    std::string raw(kBodyPiece, '\0');
    while (more_) {
      int n = mg_read(connection_, raw.data(), raw.size());
      if (n <= 0) {
        more_ = false;
        if (decompressor_ != nullptr) {
          absl::Status status = decompressor_->Finish();
          if (!status.ok()) return status;
        }
        break;
      }
      raw.resize(n);
      piece->clear();
      if (decompressor_ == nullptr) {
        piece->swap(raw);
        return true;
      }
      absl::Status status = decompressor_->Add(raw, piece);
      if (!status.ok()) return status;
      raw.resize(kBodyPiece);
      if (!piece->empty()) return true;
    }
    return false;
  }
  bool HasMore() const override { return more_; }

  // Reads the whole rest of the body.
  absl::StatusOr<std::string> ReadAll() {
    std::string all, piece;
    while (true) {
      absl::StatusOr<bool> got = Next(&piece);
      if (!got.ok()) return got.status();
      if (!*got) return all;
      all += piece;
    }
  }

 private:
  mg_connection* const connection_;
  std::unique_ptr<StreamDecompressor> decompressor_;
  bool more_ = true;
};

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 411: return "Length Required";
    case 501: return "Not Implemented";
    default: return "Internal Server Error";
  }
}

// Writes the answer of one query: holds the output until the query ends or it passes 1 MiB.
// With send_progress_in_http_headers = 1 the status line and headers go out with the first
// progress, followed by an X-ClickHouse-Progress header (totals so far) per progress message
// until the body starts, as ClickHouse does; an error after that still says its code in a header
// but keeps the status 200.
class ResponseWriter {
 public:
  ResponseWriter(mg_connection* connection, std::string query_id, std::string format,
                 std::string encoding, bool send_progress = false)
      : connection_(connection),
        query_id_(std::move(query_id)),
        format_(std::move(format)),
        encoding_(std::move(encoding)),
        send_progress_(send_progress),
        started_(std::chrono::steady_clock::now()) {}

  // Takes one Result of the query; false once the client went away.
  bool Add(ch::Result& part) {
    if (!part.query_id().empty()) query_id_ = part.query_id();
    if (!part.output_format().empty()) format_ = part.output_format();
    AddProgress(part.progress(), &progress_);
    held_ += part.output();
    result_bytes_ += part.output().size();
    if (!ok_) return false;
    if (send_progress_ && !body_started_ && part.has_progress()) {
      if (!headers_open_) OpenHeaders(200, "");
      std::string line = "X-ClickHouse-Progress: " + Summary(/*with_elapsed=*/true) + "\r\n";
      ok_ = ok_ && mg_write(connection_, line.data(), line.size()) > 0;
    }
    if (held_.size() < kWholeResponseBytes || !ok_) return ok_;
    if (!body_started_) {
      if (!headers_open_) OpenHeaders(200, "");
      CloseHeaders(/*content_length=*/std::nullopt);
    }
    ok_ = ok_ && mg_send_chunk(connection_, held_.data(), held_.size()) > 0;
    held_.clear();
    return ok_;
  }

  // Ends the response with the query's last Result; returns the HTTP status.
  int Finish(const ch::Result& last) {
    if (!ok_) return 200;
    std::string error;
    int code = 0;
    if (last.has_exception() && (last.exception().code() != 0 || last.cancelled())) {
      code = last.exception().code();
      error = last.exception().display_text() + "\n";
    }
    stats_rows_ = last.stats().rows();
    if (body_started_) {
      held_ += error;  // after the first chunk only the body can carry the error
      if (!held_.empty()) mg_send_chunk(connection_, held_.data(), held_.size());
      mg_send_chunk(connection_, "", 0);
      return 200;
    }
    const std::string exception_code = code == 0 ? "" : std::to_string(code);
    int status = 200;
    if (headers_open_) {
      if (!exception_code.empty()) WriteExceptionCode(exception_code);
    } else {
      status = code == 0 ? 200 : HttpStatusFor(code);
      OpenHeaders(status, exception_code);
    }
    const std::string& body = code == 0 ? held_ : error;
    CloseHeaders(body.size());
    mg_write(connection_, body.data(), body.size());
    return status;
  }

 private:
  std::string Summary(bool with_elapsed) const {
    const ch::Progress& p = progress_;
    std::string summary = absl::StrFormat(
        "{\"read_rows\":\"%d\",\"read_bytes\":\"%d\",\"written_rows\":\"%d\","
        "\"written_bytes\":\"%d\",\"total_rows_to_read\":\"%d\",\"result_rows\":\"%d\","
        "\"result_bytes\":\"%d\"",
        p.read_rows(), p.read_bytes(), p.written_rows(), p.written_bytes(),
        p.total_rows_to_read(), stats_rows_, result_bytes_);
    if (with_elapsed) {
      auto elapsed = std::chrono::steady_clock::now() - started_;
      absl::StrAppend(&summary, ",\"elapsed_ns\":\"",
                      std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count(), "\"");
    }
    return summary + "}";
  }

  // Writes the status line and the headers every answer has.
  void OpenHeaders(int status, const std::string& exception_code) {
    std::string content_type = "text/plain; charset=UTF-8";
    if (exception_code.empty()) {
      absl::StatusOr<std::unique_ptr<OutputFormat>> format = MakeOutputFormat(format_);
      if (format.ok()) content_type = std::string((*format)->ContentType());
    }
    std::string headers = absl::StrCat(
        "HTTP/1.1 ", status, " ", ReasonPhrase(status), "\r\nContent-Type: ", content_type,
        "\r\nX-ClickHouse-Query-Id: ", query_id_, "\r\nX-ClickHouse-Format: ", format_,
        "\r\nX-ClickHouse-Timezone: UTC\r\nX-ClickHouse-Server-Display-Name: granite\r\n");
    if (!exception_code.empty()) {
      absl::StrAppend(&headers, "X-ClickHouse-Exception-Code: ", exception_code, "\r\n");
    } else if (!encoding_.empty()) {
      absl::StrAppend(&headers, "Content-Encoding: ", encoding_, "\r\n");
    }
    headers_open_ = true;
    ok_ = mg_write(connection_, headers.data(), headers.size()) > 0;
  }

  void WriteExceptionCode(const std::string& exception_code) {
    std::string line = "X-ClickHouse-Exception-Code: " + exception_code + "\r\n";
    ok_ = ok_ && mg_write(connection_, line.data(), line.size()) > 0;
  }

  // Writes the summary and the framing headers and ends the header block.
  void CloseHeaders(std::optional<size_t> content_length) {
    std::string headers = "X-ClickHouse-Summary: " + Summary(/*with_elapsed=*/false) + "\r\n";
    if (content_length) {
      absl::StrAppend(&headers, "Content-Length: ", *content_length, "\r\n\r\n");
    } else {
      absl::StrAppend(&headers, "Transfer-Encoding: chunked\r\n\r\n");
    }
    body_started_ = true;
    ok_ = ok_ && mg_write(connection_, headers.data(), headers.size()) > 0;
  }

  mg_connection* const connection_;
  std::string query_id_;
  std::string format_;
  const std::string encoding_;
  const bool send_progress_;
  const std::chrono::steady_clock::time_point started_;
  ch::Progress progress_;  // the sum of every message's (each carries an increment)
  std::string held_;
  uint64_t result_bytes_ = 0;
  uint64_t stats_rows_ = 0;
  bool headers_open_ = false;  // the status line went out
  bool body_started_ = false;  // the header block ended
  bool ok_ = true;
};

// Answers a request that fails before its query runs.
int SendError(mg_connection* connection, const absl::Status& status) {
  ch::Result last;
  last.mutable_exception()->set_code(static_cast<int>(core::CodeOf(status)));
  last.mutable_exception()->set_display_text(ExceptionDisplayText(status));
  ResponseWriter writer(connection, "", "TabSeparated", "");
  return writer.Finish(last);
}

}  // namespace

int ServeQuery(mg_connection* connection, const RequestParts& request,
               ClickHouseService* service) {
  absl::StatusOr<RequestPlan> plan = PlanRequest(request);
  if (!plan.ok()) return SendError(connection, plan.status());
  ch::QueryInfo& info = plan->info;
  absl::StatusOr<std::unique_ptr<StreamDecompressor>> decompressor =
      MakeStreamDecompressor(plan->input_compression);
  if (!decompressor.ok()) return SendError(connection, decompressor.status());
  BodyInput body(connection, *std::move(decompressor));
  const bool post = request.method == "POST" || request.method == "PUT";
  InputSource* more_input = nullptr;
  if (!post) {
    // A GET has no body.
  } else if (plan->has_query_param && StartsWithInsert(info.query())) {
    more_input = &body;  // the body is the INSERT's data, read as the insert parses
  } else if (!plan->has_query_param) {
    // The body is the query, or an INSERT's query followed by its data: read the first piece
    // and, for an INSERT with a FORMAT clause, stream the rest as its input.
    std::string first;
    absl::StatusOr<bool> got = body.Next(&first);
    if (!got.ok()) return SendError(connection, got.status());
    size_t data_start =
        StartsWithInsert(first) ? InsertDataStart(first) : std::string_view::npos;
    if (data_start != std::string_view::npos) {
      info.set_input_data(first.substr(data_start));
      first.resize(data_start);
      info.set_query(std::move(first));
      more_input = &body;
    } else {
      absl::StatusOr<std::string> rest = body.ReadAll();
      if (!rest.ok()) return SendError(connection, rest.status());
      info.set_query(first + *rest);
    }
  } else {
    absl::StatusOr<std::string> text = body.ReadAll();
    if (!text.ok()) return SendError(connection, text.status());
    if (!text->empty()) info.set_query(info.query() + "\n" + *text);
  }
  if (info.query().empty()) {
    return SendError(connection, core::Error(core::ErrorCode::kBadArguments,
                                             "Empty query: neither a query parameter nor a body"));
  }
  if (!plan->output_compression.empty()) {
    info.set_output_compression_type(plan->output_compression);
  }
  ResponseWriter writer(connection, info.query_id(), info.output_format(),
                        plan->output_compression, plan->send_progress);
  // A client that closes its connection cancels the query, as on the gRPC path.
  const mg_request_info* request_info = mg_get_request_info(connection);
  const int peer = FindPeerSocket(request_info->remote_addr, request_info->remote_port,
                                  request_info->server_port);
  ch::Result last;
  const std::string address = request_info->remote_addr;
  const std::string port = std::to_string(request_info->remote_port);
  const std::string client = address.find(':') == std::string::npos
                                 ? "ipv4:" + address + ":" + port
                                 : "ipv6:[" + address + "]:" + port;
  service->RunQuery(
      info, client, more_input, [peer] { return peer >= 0 && PeerClosed(peer); },
      [&](ch::Result& part) {
        bool ok = writer.Add(part);
        part.clear_output();
        last = part;
        return ok;
      });
  return writer.Finish(last);
}

}  // namespace granite::coordinator::http
