#include "programs/local_cluster.h"

#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "coordinator/coordinator_server.h"
#include "core/process.h"
#include "storage/uncompressed_cache.h"

namespace granite {

namespace {

struct WorkerProcess {
  pid_t pid = -1;
  std::string address;
  std::string metrics_url;  // empty when metrics are off
};

// Returns how many CPUs this process may run on (its affinity mask), at least 1.
int AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// Starts `granite worker` as a child process and waits for its "listening on" line.
bool StartWorker(const LocalOptions& options, int index, WorkerProcess* worker) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return false;
  std::string data = options.data_dir + "/worker-" + std::to_string(index);
  std::filesystem::create_directories(data);
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    // The child starts with the shutdown signals unblocked so SIGTERM stops it.
    sigset_t set;
    sigemptyset(&set);
    pthread_sigmask(SIG_SETMASK, &set, nullptr);
    std::string port = "--port=0";
    std::string data_flag = "--data=" + data;
    std::string threads =
        "--threads=" +
        std::to_string(LocalWorkerThreads(options.threads, AllowedCpus(), options.workers, index));
    std::string host = "--host=" + options.host;
    int metrics = options.metrics_port < 0    ? -1
                  : options.metrics_port == 0 ? 0
                                              : options.metrics_port + 1 + index;
    std::string metrics_port = "--metrics-port=" + std::to_string(metrics);
    std::string nice = "--query_thread_nice=" + std::to_string(options.query_thread_nice);
    int64_t cache_total = options.uncompressed_cache_size < 0
                              ? static_cast<int64_t>(storage::UncompressedCache::DefaultCapacity())
                              : options.uncompressed_cache_size;
    std::string cache =
        "--uncompressed_cache_size=" + std::to_string(cache_total / std::max(1, options.workers));
    execl("/proc/self/exe", "granite", "worker", port.c_str(), data_flag.c_str(),
          threads.c_str(), host.c_str(), metrics_port.c_str(), nice.c_str(), cache.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipe_fds[1]);
  worker->pid = pid;
  // Read up to the ready line, noting the metrics line before it; the pipe stays open (the worker
  // prints nothing else to stdout).
  const std::string metrics_marker = " metrics on ";
  const std::string marker = " listening on ";
  while (true) {
    std::string line;
    char c;
    bool got = false;
    while (read(pipe_fds[0], &c, 1) == 1) {
      got = true;
      if (c == '\n') break;
      line.push_back(c);
    }
    if (!got) return false;
    size_t at = line.find(metrics_marker);
    if (at != std::string::npos) {
      worker->metrics_url = line.substr(at + metrics_marker.size());
      continue;
    }
    at = line.find(marker);
    if (at == std::string::npos) return false;
    worker->address = line.substr(at + marker.size());
    return true;
  }
}

void StopWorkers(std::vector<WorkerProcess>& workers) {
  for (const auto& worker : workers) {
    if (worker.pid > 0) kill(worker.pid, SIGTERM);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (auto& worker : workers) {
    if (worker.pid <= 0) continue;
    while (waitpid(worker.pid, nullptr, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(worker.pid, SIGKILL);
        waitpid(worker.pid, nullptr, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
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
  std::vector<WorkerProcess> workers(options.workers);
  coordinator::CoordinatorOptions coordinator_options;
  coordinator_options.host = options.host;
  coordinator_options.port = options.port;
  coordinator_options.metrics_port = options.metrics_port;
  coordinator_options.max_concurrent_select_queries = options.max_concurrent_select_queries;
  coordinator_options.max_queued_select_queries = options.max_queued_select_queries;
  coordinator_options.query_thread_nice = options.query_thread_nice;
  for (int i = 0; i < options.workers; ++i) {
    if (!StartWorker(options, i, &workers[i])) {
      std::fprintf(stderr, "granite local: worker %d failed to start\n", i);
      StopWorkers(workers);
      return 1;
    }
    coordinator_options.workers.push_back(workers[i].address);
  }
  std::fprintf(stderr, "granite local (coordinator): %s\n", core::AllocatorSummary().c_str());
  coordinator::CoordinatorServer server;
  absl::StatusOr<int> port = server.Start(coordinator_options);
  if (!port.ok()) {
    std::fprintf(stderr, "granite local: %s\n", std::string(port.status().message()).c_str());
    StopWorkers(workers);
    return 1;
  }
  if (server.metrics_port() >= 0) {
    std::printf("granite local metrics: coordinator http://%s:%d/metrics\n", options.host.c_str(),
                server.metrics_port());
    for (int i = 0; i < options.workers; ++i) {
      std::printf("granite local metrics: worker %d %s\n", i, workers[i].metrics_url.c_str());
    }
  }
  std::printf("granite local listening on %s:%d (%d workers)\n", options.host.c_str(), *port,
              options.workers);
  std::fflush(stdout);
  int signal = core::WaitForShutdownSignal();
  std::fprintf(stderr, "granite local: signal %d, stopping\n", signal);
  server.AbandonMetricsAtExit();
  server.Shutdown();
  StopWorkers(workers);
  return 0;
}

}  // namespace granite
