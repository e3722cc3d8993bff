// `granite local`: a coordinator and N worker processes on loopback, with data in one folder — the
// embedded default for one machine. Runs in the foreground until SIGINT/SIGTERM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace granite {

struct LocalOptions {
  int workers = 2;   // shards
  // Worker processes per shard: workers x replicas processes, process s * replicas + r (data in
  // <data>/worker-<process>) being replica r of shard s. 1 = the cluster without replicas.
  int replicas = 1;
  std::string data_dir = "data";
  std::string host = "127.0.0.1";
  int port = 9100;       // coordinator port; 0 = ephemeral
  int threads = 0;       // per worker; 0 = the allowed CPUs shared out (LocalWorkerThreads)
  // Prometheus endpoints: the coordinator on metrics_port, worker i on metrics_port + 1 + i
  // (all ephemeral when 0); -1 = off.
  int metrics_port = -1;
  int http_port = -1;  // the coordinator's HTTP interface; -1 = off, 0 = ephemeral
  int max_concurrent_select_queries = -1;  // coordinator admission (CoordinatorOptions)
  size_t max_queued_select_queries = 10000;
  int query_thread_nice = -1;  // coordinator and workers (core/thread_priority.h); -1 = automatic
  // Bytes of the workers' uncompressed caches together (each gets its share); -1 = the default
  // (storage::UncompressedCache::DefaultCapacity()), 0 = off.
  int64_t uncompressed_cache_size = -1;
  // Bytes all queries of the machine may hold (core/memory/memory_tracker.h), shared evenly by
  // the coordinator and the workers; 0 = the default (a fraction of RAM or the cgroup limit).
  int64_t max_server_memory_usage = 0;
  // The coordinator's users file and client-port TLS (coordinator::CoordinatorOptions).
  std::string users_file;
  std::string tls_cert;
  std::string tls_key;
  std::string tls_ca;
  // "auto": start an etcd (data in <data>/etcd, free loopback ports, stopped with the cluster)
  // for the coordinator's catalog; "none": no etcd; else endpoints of an etcd to use.
  std::string etcd = "none";
  std::string etcd_prefix;  // CoordinatorOptions::etcd_prefix
};

// Returns worker `index`'s pool threads: `requested` when positive, else the `cpus` this process
// may run on shared out among the `workers` (the first cpus % workers get one more), at least 1.
// The workers of one machine share its cores: each sized to all of them, 2 workers on 2 cores ran
// 4 threads, and thread tables that one thread per worker never needs cost up to 40% more CPU on
// high-cardinality GROUP BYs (bench/results/clickbench-10m-2026-11-23-s5.md).
int LocalWorkerThreads(int requested, int cpus, int workers, int index);

// Starts the cluster, prints one "granite local metrics: <process> http://H:P/metrics" line per
// endpoint (with metrics on), then "granite local listening on HOST:PORT (N workers)" once every
// process serves; restarts a worker that dies (programs/worker_supervisor.h) and stops all of them
// on SIGINT/SIGTERM. Holds the lock of options.data_dir (storage/data_dir_lock.h) while it runs:
// returns 1 at once, after a message naming the directory and the holder, when it is taken.
// Returns the exit status.
// REQUIRES: called on the main thread, before any other thread starts (it blocks SIGCHLD, and the
// workers' PR_SET_PDEATHSIG is tied to the calling thread).
int RunLocalCluster(const LocalOptions& options);

}  // namespace granite
