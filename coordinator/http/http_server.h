// HttpServer: ClickHouse's HTTP interface on the coordinator (default port 8123), served by
// civetweb. `/ping`, `/replicas_status` and a bare GET `/` answer "Ok.\n"; `/` runs one query:
// the `query` parameter, the body, or the parameter followed by the body — an INSERT's body is
// its data, streamed in pieces to the insert. Requests become a clickhouse.grpc.QueryInfo
// (http_request.h) and run through ClickHouseService::RunQuery, so settings, sessions,
// admission, system.processes, KILL QUERY, metrics and the query log are the gRPC path's.
//
// Response: the query's output with the format's Content-Type and X-ClickHouse-Query-Id,
// -Format, -Timezone and -Summary headers. Output up to 1 MiB is sent whole once the query ended
// (an error then is HTTP 4xx/5xx with X-ClickHouse-Exception-Code and the body
// "Code: N. DB::Exception: ... (NAME)\n"); larger output streams chunked, and an error after the
// first chunk is appended to the body, as ClickHouse does. enable_http_compression=1 with
// Accept-Encoding compresses the body (gzip, deflate, zstd, lz4); Content-Encoding decompresses
// the request body. A client that closes its connection cancels its query (peer_socket.h).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

struct mg_context;
struct mg_connection;

namespace granite::coordinator {
class ClickHouseService;
}

namespace granite::coordinator::http {

// Serves HTTP until destroyed.
// Thread-safety: civetweb's worker threads each serve one connection; the service is
// thread-safe.
class HttpServer {
 public:
  // Listens on host:port (0 = ephemeral). REQUIRES: `service` outlives the server.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(const std::string& host, int port,
                                                           ClickHouseService* service);
  ~HttpServer();

  int port() const { return port_; }

  // Stops serving queries without civetweb's ~2 s shutdown, for a process about to exit: new
  // requests are answered 503, requests in flight are waited for (up to `timeout`), and the
  // server is then left to the process exit (never destroyed), so the service may go.
  static void AbandonAtExit(std::unique_ptr<HttpServer> server, std::chrono::milliseconds timeout);

 private:
  explicit HttpServer(ClickHouseService* service) : service_(service) {}
  static int Handle(mg_connection* connection, void* self);

  ClickHouseService* const service_;
  mg_context* context_ = nullptr;
  int port_ = 0;
  std::atomic<bool> closing_{false};
  std::atomic<int> in_flight_{0};  // requests inside Handle
};

}  // namespace granite::coordinator::http
