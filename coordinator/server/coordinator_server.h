// CoordinatorServer: the `granite coordinator` program's server — connects to the workers, and
// serves the ClickHouse gRPC protocol plus grpc.health.v1 and reflection; optionally ClickHouse's
// HTTP interface (--http_port) and Prometheus metrics over HTTP (--metrics-port), including each
// worker's health as seen from here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace granite::coordinator {

struct CoordinatorOptions {
  std::string host = "127.0.0.1";
  int port = 9100;  // 0 = pick an ephemeral port
  std::vector<std::string> workers;  // host:port of each worker process, shard-major
  // Replicas per shard: workers[s * replicas + r] is replica r of shard s (WorkerSet).
  size_t replicas = 1;
  int threads = 0;  // merge pool size; 0 = hardware concurrency
  int metrics_port = -1;  // Prometheus /metrics port; -1 = off, 0 = ephemeral
  int http_port = -1;     // ClickHouse HTTP interface (coordinator/http/); -1 = off, 0 = ephemeral
  // SELECTs over tables that execute at once; the rest queue (coordinator/server/admission_queue.h).
  // -1 = 2 x hardware threads, 0 = no limit.
  int max_concurrent_select_queries = -1;
  size_t max_queued_select_queries = 10000;  // beyond: TOO_MANY_SIMULTANEOUS_QUERIES
  // Nice value added to the merge pool, SELECT handlers and bulk inserts (core/thread_priority.h);
  // 0 = off, -1 = automatic (SCHED_IDLE while small inserts arrive, with one SELECT slot per
  // hardware thread then if max_concurrent_select_queries is -1).
  int query_thread_nice = -1;
  // The users file (coordinator/access/users_file.h, docs/users.md); empty: only the user
  // `default`, without a password, from loopback — and then `host` must be a loopback address.
  std::string users_file;
  // TLS on the client port: certificate and key (PEM); with `tls_ca`, clients must present a
  // certificate it signed (mutual TLS). All empty: plaintext.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_ca;
  // etcd endpoints ("host:port[,host:port...]"): the catalog, access entities and membership of
  // the coordinators live there (coordinator/coord/etcd_catalog.h); empty: no etcd.
  std::string etcd;
  std::string etcd_prefix;  // keys' prefix; empty: /granite/default
};

// Owns the coordinator's services and gRPC server.
// Thread-safety: Start, then Shutdown, from one thread.
class CoordinatorServer {
 public:
  CoordinatorServer();
  ~CoordinatorServer();

  // Starts serving; returns the port it listens on. Refuses (BAD_ARGUMENTS) to listen on a
  // non-loopback address without a users file, and fails on a users file or TLS file that cannot
  // be read or parsed, or (KEEPER_EXCEPTION) with an etcd that does not answer.
  absl::StatusOr<int> Start(const CoordinatorOptions& options);
  // Stops accepting queries and waits (up to a deadline) for running ones.
  void Shutdown();

  // The metrics port actually bound (after Start), or -1 when metrics are off.
  int metrics_port() const;
  // The HTTP interface's port actually bound (after Start), or -1 when it is off.
  int http_port() const;
  // Leaves the metrics endpoint running until the process exits instead of paying civetweb's
  // ~2 s shutdown, and the HTTP interface too once its requests in flight ended (up to 10 s);
  // for programs about to exit.
  void AbandonMetricsAtExit();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Runs a coordinator in the foreground until SIGINT/SIGTERM; returns the exit status.
int RunCoordinator(const CoordinatorOptions& options);

}  // namespace granite::coordinator
