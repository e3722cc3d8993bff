// The closed-loop clients of `granite benchmark` (benchmark.h). Each client has its own channel
// (its own TCP connection, as separate client processes would) and sends one query at a time over
// ExecuteQueryWithStreamIO, the RPC that query_runner.h uses: the query in one QueryInfo with the
// half-close, then every Result until the server ends the call.
//
// Why asynchronous: a thread per client (and query_runner.h's extra writer thread per query) puts
// N runnable threads on the machine under test, and on a small machine the load generator then
// competes with the servers it measures (at 256 clients it took a third of 2 cores). Here all
// clients are driven from `threads` threads, each polling its own grpc::CompletionQueue; a query's
// latency is still the time from starting its call to the call's end, as the sync client measured.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "grpcpp/channel.h"

namespace granite::client {

// What one client saw.
struct ClientResult {
  std::vector<double> latencies_ms;  // one per finished query, errors included
  uint64_t errors = 0;
  uint64_t rows_read = 0;  // summed progress.read_rows of the successful queries
  std::string first_error;
};

struct BenchmarkClientsOptions {
  std::string host = "127.0.0.1";
  int port = 9100;
  std::string user = "default";
  std::string password;
  int concurrency = 1;               // clients; REQUIRES: >= 1
  int threads = 1;                   // completion-queue threads; clamped to [1, concurrency]
  std::vector<std::string> queries;  // taken in turn by all clients; REQUIRES: not empty
  uint64_t iterations = 0;           // total queries; 0 = no limit
  // No query starts after this point (queries in flight finish); max() = none.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // No query starts once this is true (may be null).
  const std::atomic<bool>* stop = nullptr;
};

// Runs the clients until the iterations are used up, the deadline passes or *stop is set, and
// returns one ClientResult per client. Errors of single queries (a transport error or the
// server's exception) are counted in the results, never returned.
// Thread-safety: independent calls may run concurrently.
std::vector<ClientResult> RunBenchmarkClients(const BenchmarkClientsOptions& options);

// Opens a channel to host:port with its own TCP connection: distinct channel arguments (`index`)
// keep gRPC from sharing one subchannel between clients, as separate client processes would not.
std::shared_ptr<grpc::Channel> NewBenchmarkConnection(const std::string& host, int port, int index);

}  // namespace granite::client
