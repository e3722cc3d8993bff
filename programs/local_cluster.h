// `granite local`: a coordinator and N worker processes on loopback, with data in one folder — the
// embedded default for one machine. Runs in the foreground until SIGINT/SIGTERM.
#pragma once

#include <string>

namespace granite {

struct LocalOptions {
  int workers = 2;
  std::string data_dir = "data";
  std::string host = "127.0.0.1";
  int port = 9100;       // coordinator port; 0 = ephemeral
  int threads = 0;       // per worker; 0 = hardware concurrency
  // Prometheus endpoints: the coordinator on metrics_port, worker i on metrics_port + 1 + i
  // (all ephemeral when 0); -1 = off.
  int metrics_port = -1;
};

// Starts the cluster, prints one "granite local metrics: <process> http://H:P/metrics" line per
// endpoint (with metrics on), then "granite local listening on HOST:PORT (N workers)" once every
// process serves, and stops all of them on SIGINT/SIGTERM. Returns the exit status.
int RunLocalCluster(const LocalOptions& options);

}  // namespace granite
