#include "programs/local_cluster.h"

#include <sched.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <memory>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "core/memory/memory_tracker.h"
#include "coordinator/coord/etcd_process.h"
#include "coordinator/server/coordinator_server.h"
#include "core/process.h"
#include "programs/worker_supervisor.h"
#include "storage/data_dir_lock.h"
#include "storage/uncompressed_cache.h"

namespace granite {

namespace {

// Returns how many CPUs this process may run on (its affinity mask), at least 1.
int AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// Waits up to `timeout` for SIGINT, SIGTERM or SIGCHLD (all blocked in every thread); returns
// the signal, or 0 on timeout.
int WaitForSignal(std::chrono::milliseconds timeout) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGCHLD);
  timespec wait{static_cast<time_t>(timeout.count() / 1000),
                static_cast<long>(timeout.count() % 1000) * 1000000};
  int signal = sigtimedwait(&set, nullptr, &wait);
  return signal < 0 ? 0 : signal;
}

}  // namespace

int LocalWorkerThreads(int requested, int cpus, int workers, int index) {
  if (requested > 0) return requested;
  workers = std::max(1, workers);
  int share = cpus / workers + (index < cpus % workers ? 1 : 0);
  return std::max(1, share);
}

int RunLocalCluster(const LocalOptions& options) {
  if (options.workers < 1) {
    std::fprintf(stderr, "granite local: --workers must be at least 1\n");
    return 2;
  }
  // SIGCHLD joins the shutdown signals, blocked before any thread starts, so the loop below
  // learns of a worker's death at once (a 0.5 s tick covers a lost one).
  sigset_t child;
  sigemptyset(&child);
  sigaddset(&child, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &child, nullptr);
  // One launcher per data directory; each worker also locks its own folder.
  absl::StatusOr<storage::DataDirLock> lock =
      storage::DataDirLock::Acquire(options.data_dir, "granite local");
  if (!lock.ok()) {
    std::fprintf(stderr, "%s\n", std::string(lock.status().message()).c_str());
    return 1;
  }
  int64_t cache_total = options.uncompressed_cache_size < 0
                            ? static_cast<int64_t>(storage::UncompressedCache::DefaultCapacity())
                            : options.uncompressed_cache_size;
  // One machine's memory limit, shared by the coordinator (this process) and the workers, so
  // together they stop queries before the kernel's OOM killer does.
  const int64_t memory_share =
      (options.max_server_memory_usage > 0 ? options.max_server_memory_usage
                                           : core::ServerMemoryTracker().limit()) /
      (options.workers * std::max(1, options.replicas) + 1);
  if (memory_share > 0) core::ServerMemoryTracker().set_limit(memory_share);
  std::vector<WorkerLaunch> launches;
  const int processes = options.workers * std::max(1, options.replicas);
  for (int i = 0; i < processes; ++i) {
    WorkerLaunch launch;
    launch.host = options.host;
    launch.data_dir = options.data_dir + "/worker-" + std::to_string(i);
    launch.threads = LocalWorkerThreads(options.threads, AllowedCpus(), processes, i);
    launch.metrics_port = options.metrics_port < 0    ? -1
                          : options.metrics_port == 0 ? 0
                                                      : options.metrics_port + 1 + i;
    launch.query_thread_nice = options.query_thread_nice;
    launch.uncompressed_cache_size = cache_total / processes;
    launch.max_server_memory_usage = memory_share;
    launches.push_back(std::move(launch));
  }
  // etcd first: it starts in about a second, while the workers load their tables.
  std::unique_ptr<coordinator::EtcdProcess> etcd;
  if (options.etcd == "auto") {
    absl::StatusOr<std::unique_ptr<coordinator::EtcdProcess>> started =
        coordinator::EtcdProcess::Start(options.data_dir + "/etcd", options.host);
    if (!started.ok()) {
      std::fprintf(stderr, "granite local: cannot start etcd: %s\n",
                   std::string(started.status().message()).c_str());
      return 1;
    }
    etcd = std::move(*started);
    std::fprintf(stderr, "granite local: etcd on %s (pid %d)\n", etcd->endpoint().c_str(),
                 static_cast<int>(etcd->pid()));
  }
  WorkerSupervisor workers(std::move(launches));
  if (!workers.StartAll()) return 1;
  coordinator::CoordinatorOptions coordinator_options;
  coordinator_options.host = options.host;
  coordinator_options.port = options.port;
  coordinator_options.metrics_port = options.metrics_port;
  coordinator_options.http_port = options.http_port;
  coordinator_options.max_concurrent_select_queries = options.max_concurrent_select_queries;
  coordinator_options.max_queued_select_queries = options.max_queued_select_queries;
  coordinator_options.query_thread_nice = options.query_thread_nice;
  coordinator_options.users_file = options.users_file;
  coordinator_options.tls_cert = options.tls_cert;
  coordinator_options.tls_key = options.tls_key;
  coordinator_options.tls_ca = options.tls_ca;
  coordinator_options.replicas = static_cast<size_t>(std::max(1, options.replicas));
  if (etcd != nullptr) {
    coordinator_options.etcd = etcd->endpoint();
  } else if (options.etcd != "none") {
    coordinator_options.etcd = options.etcd;
  }
  coordinator_options.etcd_prefix = options.etcd_prefix;
  for (size_t i = 0; i < workers.size(); ++i) {
    coordinator_options.workers.push_back(workers.address(i));
  }
  std::fprintf(stderr, "granite local (coordinator): %s\n", core::AllocatorSummary().c_str());
  coordinator::CoordinatorServer server;
  absl::StatusOr<int> port = server.Start(coordinator_options);
  if (!port.ok()) {
    std::fprintf(stderr, "granite local: %s\n", std::string(port.status().message()).c_str());
    workers.Stop();
    return 1;
  }
  if (server.metrics_port() >= 0) {
    std::printf("granite local metrics: coordinator http://%s:%d/metrics\n", options.host.c_str(),
                server.metrics_port());
    for (size_t i = 0; i < workers.size(); ++i) {
      std::printf("granite local metrics: worker %zu %s\n", i, workers.metrics_url(i).c_str());
    }
  }
  if (server.http_port() >= 0) {
    std::printf("granite local HTTP on http://%s:%d/\n", options.host.c_str(), server.http_port());
  }
  if (options.replicas > 1) {
    std::printf("granite local listening on %s:%d (%d workers: %d shards x %d replicas)\n",
                options.host.c_str(), *port, processes, options.workers, options.replicas);
  } else {
    std::printf("granite local listening on %s:%d (%d workers)\n", options.host.c_str(), *port,
                options.workers);
  }
  std::fflush(stdout);
  // Supervises on this thread: PR_SET_PDEATHSIG of every worker is tied to the thread that
  // forked it, which must outlive the workers.
  int signal = 0;
  while (signal != SIGINT && signal != SIGTERM) {
    workers.Poll();
    signal = WaitForSignal(workers.NextPollDelay());
  }
  std::fprintf(stderr, "granite local: signal %d, stopping\n", signal);
  server.AbandonMetricsAtExit();
  server.Shutdown();
  workers.Stop();
  return 0;
}

}  // namespace granite
