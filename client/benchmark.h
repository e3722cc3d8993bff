// `granite benchmark`: a load generator in the manner of clickhouse-benchmark. N closed-loop
// clients (one gRPC connection each, all driven by a few threads: benchmark_clients.h) send
// queries — from --query, a file, or stdin, one per line, taken in turn — until --iterations
// queries ran or --timelimit passed (or Ctrl+C), then it prints QPS, latency percentiles and
// errors. The load generator runs on the same machine as the servers unless started elsewhere.
//
// With `server_report` on, it also reads the cluster's own metrics before and after the run
// (system.locks and system.metrics through the same connection) and prints, for the run:
// each process's CPU time (as a share of the machine's cores), and the time threads waited on
// each named lock, also as a share of the total query time the clients saw.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace granite::client {

struct BenchmarkOptions {
  std::string host = "127.0.0.1";
  int port = 9100;
  std::string user = "default";
  std::string password;
  int concurrency = 1;
  std::vector<std::string> queries;  // run in turn; REQUIRES: not empty
  uint64_t iterations = 0;           // total queries; 0 = no limit
  double timelimit_seconds = 0;      // 0 = no limit (then Ctrl+C or iterations stop it)
  bool server_report = true;         // read system.locks / system.metrics before and after
  bool json = false;                 // print the report as one JSON object instead of text
  // Threads that drive the clients (benchmark_clients.h); 0 = one per core of this machine.
  int client_threads = 0;
};

// The waits on one lock name during the run, summed over the processes that have it.
struct LockWaitDelta {
  std::string name;
  uint64_t acquisitions = 0;
  uint64_t contended = 0;
  double wait_seconds = 0;
};

struct BenchmarkReport {
  uint64_t queries = 0;  // finished, including errors
  uint64_t errors = 0;
  std::string first_error;
  double seconds = 0;  // wall time of the run
  double qps = 0;
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0, mean_ms = 0;
  double total_query_seconds = 0;  // sum of all query latencies
  uint64_t rows_read = 0;          // from the servers' progress
  // Filled when server_report is on and the cluster answered.
  bool has_server_report = false;
  std::map<std::string, double> cpu_seconds;  // per process ("coordinator", "0", "1", ...)
  unsigned cores = 0;                          // of this machine
  std::vector<LockWaitDelta> locks;            // sorted by wait, longest first
};

// Runs the benchmark. Errors of single queries are counted, not returned; a bad option or an
// unreachable server (every query of the first round failing to connect) is an error.
absl::StatusOr<BenchmarkReport> RunBenchmarkLoad(const BenchmarkOptions& options);

// Writes the report as text (or JSON when options.json).
void PrintBenchmarkReport(const BenchmarkOptions& options, const BenchmarkReport& report,
                          std::ostream& out);

// Reads queries, one per non-empty line (lines starting with "--" are comments).
std::vector<std::string> ReadQueries(std::istream& in);

// `granite benchmark`: runs and prints; returns the exit status (0, or 1 on failure or if any
// query failed).
int RunBenchmark(const BenchmarkOptions& options);

}  // namespace granite::client
