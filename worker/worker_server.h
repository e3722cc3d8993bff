// RunWorker: the `granite worker` program — opens the store, starts the pool and the gRPC server
// (worker API, grpc.health.v1, reflection), optionally the Prometheus endpoint, and serves until
// SIGINT/SIGTERM. With metrics on it prints "granite worker metrics on http://H:P/metrics" before
// its "granite worker listening on H:P" line. It holds the data directory's lock
// (storage/data_dir_lock.h) while it runs: a second worker on the same directory exits with 1.
#pragma once

#include <string>

namespace granite::worker {

struct WorkerOptions {
  std::string host = "127.0.0.1";
  int port = 9200;       // 0 = pick an ephemeral port
  std::string data_dir = "data/worker";
  int threads = 0;       // 0 = hardware concurrency
  int metrics_port = -1;  // Prometheus /metrics port; -1 = off, 0 = ephemeral
  std::string numa_node;  // --numa-node: "" (unpinned), "auto" or a node number
  int shutdown_timeout_seconds = 30;  // SIGTERM: running fragments get this long, then cancelled
  // Nice value added to the threads that run SELECT fragments (pool and Execute handlers), bulk
  // inserts and merges, so small inserts win the CPU (core/thread_priority.h); 0 = off, -1 =
  // automatic (SCHED_IDLE while small inserts arrive).
  int query_thread_nice = -1;
};

// Runs a worker in the foreground; returns the process exit status.
int RunWorker(const WorkerOptions& options);

}  // namespace granite::worker
