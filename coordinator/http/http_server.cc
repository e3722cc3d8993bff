#include "coordinator/http/http_server.h"

#include <civetweb.h>

#include <cstring>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "coordinator/http/http_query_handler.h"
#include "core/error.h"

namespace granite::coordinator::http {

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const std::string& host, int port,
                                                              ClickHouseService* service) {
  std::unique_ptr<HttpServer> server(new HttpServer(service));
  std::string ports = host + ":" + std::to_string(port);
  const char* options[] = {"listening_ports", ports.c_str(), "num_threads", "32",
                           "enable_keep_alive", "yes", nullptr};
  mg_callbacks callbacks;
  std::memset(&callbacks, 0, sizeof(callbacks));
  // Quiet: civetweb would print to stderr for every closed connection otherwise.
  callbacks.log_message = [](const mg_connection*, const char*) { return 1; };
  server->context_ = mg_start(&callbacks, server.get(), options);
  if (server->context_ == nullptr) {
    return core::Error(core::ErrorCode::kBadArguments,
                       "Cannot listen for HTTP on " + ports + " (in use?)");
  }
  mg_set_request_handler(server->context_, "/", &HttpServer::Handle, server.get());
  mg_server_port bound[4];
  int count = mg_get_server_ports(server->context_, 4, bound);
  server->port_ = count > 0 ? bound[0].port : port;
  return server;
}

HttpServer::~HttpServer() {
  if (context_ != nullptr) mg_stop(context_);
}

void HttpServer::AbandonAtExit(std::unique_ptr<HttpServer> server,
                               std::chrono::milliseconds timeout) {
  if (server == nullptr) return;
  server->closing_ = true;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (server->in_flight_.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  server.release();  // civetweb's threads end with the process
}

int HttpServer::Handle(mg_connection* connection, void* self) {
  HttpServer* server = static_cast<HttpServer*>(self);
  server->in_flight_.fetch_add(1);
  struct Done {
    HttpServer* server;
    ~Done() { server->in_flight_.fetch_sub(1); }
  } done{server};
  if (server->closing_.load()) {
    mg_printf(connection,
              "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=UTF-8\r\n"
              "Connection: close\r\nContent-Length: 24\r\n\r\nThe server is stopping.\n");
    return 503;
  }
  const mg_request_info* request = mg_get_request_info(connection);
  std::string path = request->local_uri != nullptr ? request->local_uri : "/";
  const bool bare_get = path == "/" && request->query_string == nullptr &&
                        std::strcmp(request->request_method, "GET") == 0;
  if (path == "/ping" || path == "/replicas_status" || bare_get) {  // GET / is a health check too
    mg_printf(connection,
              "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=UTF-8\r\n"
              "Content-Length: 4\r\n\r\nOk.\n");
    return 200;
  }
  if (path != "/" && path != "/query") {
    std::string body = "There is no handler " + path + "\n";
    mg_printf(connection,
              "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=UTF-8\r\n"
              "Content-Length: %zu\r\n\r\n%s",
              body.size(), body.c_str());
    return 404;
  }
  RequestParts parts;
  parts.method = request->request_method != nullptr ? request->request_method : "GET";
  if (request->query_string != nullptr) parts.params = ParseQueryString(request->query_string);
  for (int i = 0; i < request->num_headers; ++i) {
    parts.headers[absl::AsciiStrToLower(request->http_headers[i].name)] =
        request->http_headers[i].value;
  }
  // civetweb's worker threads have small stacks (Debian builds it with USE_STACK_SIZE), too small
  // for a query that plans, fans out and writes its format there (an LZ4 frame alone keeps
  // ~16 KiB of state on the stack: a streamed ArrowStream result overflowed it and killed the
  // server). The query runs on a thread of the default size while this one waits.
  int status = 0;
  std::thread runner([&] { status = ServeQuery(connection, parts, server->service_); });
  runner.join();
  return status;
}

}  // namespace granite::coordinator::http
