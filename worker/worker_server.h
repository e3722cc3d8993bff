// RunWorker: the `granite worker` program — opens the store, starts the pool and the gRPC server
// (worker API, grpc.health.v1, reflection), and serves until SIGINT/SIGTERM.
#pragma once

#include <string>

namespace granite::worker {

struct WorkerOptions {
  std::string host = "127.0.0.1";
  int port = 9200;       // 0 = pick an ephemeral port
  std::string data_dir = "data/worker";
  int threads = 0;       // 0 = hardware concurrency
};

// Runs a worker in the foreground; returns the process exit status.
int RunWorker(const WorkerOptions& options);

}  // namespace granite::worker
