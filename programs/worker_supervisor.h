// WorkerSupervisor: the `granite worker` child processes of `granite local` (local_cluster.h),
// kept running for as long as the launcher runs.
//
//   - Each worker gets one loopback port for good, reserved before the first start and held until
//     Stop() (core/port_reservation.h) and passed as --port: a restarted worker comes back on
//     the address the coordinator knows, and never listens on a second, ephemeral port.
//   - A worker that exits or is killed is reaped and restarted after a back-off (RestartDelay):
//     100 ms, doubling while it keeps dying within kStableRun of its start, at most 10 s.
//   - Each worker dies with the launcher: the child sets PR_SET_PDEATHSIG (SIGTERM) before exec
//     and exits at once if the launcher is already gone (getppid() changed between fork and
//     prctl). PR_SET_PDEATHSIG fires when the *thread* that forked ends, so every fork happens on
//     the thread that calls Start/Poll, which must live as long as the workers (RunLocalCluster's
//     main thread).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/port_reservation.h"

namespace granite {

struct WorkerLaunch {
  std::string host = "127.0.0.1";
  std::string data_dir;           // this worker's folder
  int threads = 1;                // --threads
  int metrics_port = -1;          // -1 off, 0 ephemeral (kept across restarts once known), else P
  int query_thread_nice = -1;     // --query_thread_nice
  int64_t uncompressed_cache_size = 0;  // --uncompressed_cache_size
  int64_t max_server_memory_usage = 0;  // --max_server_memory_usage
};

// Returns the wait before restart number `consecutive_failures` + 1 of a worker that died within
// kStableRun of its start `consecutive_failures` times in a row: 100 ms doubled per failure, at
// most 10 s.
std::chrono::milliseconds RestartDelay(int consecutive_failures);

// Starts, watches and restarts the workers.
// Thread-safety: none; one thread (the one that lives as long as the workers) calls everything.
class WorkerSupervisor {
 public:
  // A worker that runs this long has its back-off reset.
  static constexpr std::chrono::seconds kStableRun{10};
  // How long a starting worker may take to print its listening line.
  static constexpr std::chrono::seconds kStartTimeout{60};

  explicit WorkerSupervisor(std::vector<WorkerLaunch> launches);
  ~WorkerSupervisor();  // Stop()
  WorkerSupervisor(const WorkerSupervisor&) = delete;
  WorkerSupervisor& operator=(const WorkerSupervisor&) = delete;

  // Starts every worker and waits for each one's listening line; false (after a message on
  // stderr and stopping those started) if one fails.
  bool StartAll();

  // Reaps workers that died and restarts those whose back-off has passed; logs each. Call
  // periodically (RunLocalCluster: on SIGCHLD, and at least every NextPollDelay()).
  void Poll();

  // How long Poll may wait before the next due restart (a default tick when none is due).
  std::chrono::milliseconds NextPollDelay() const;

  // SIGTERM to every worker, SIGKILL after 10 s, reaps them and releases the ports.
  void Stop();

  size_t size() const { return workers_.size(); }
  // Worker i's "host:port" (its listening line) and Prometheus URL ("" when metrics are off).
  const std::string& address(size_t i) const { return workers_[i].address; }
  const std::string& metrics_url(size_t i) const { return workers_[i].metrics_url; }

 private:
  struct Worker {
    WorkerLaunch launch;
    int port = 0;           // 0 until known
    std::optional<core::PortReservation> reservation;  // holds `port` while the launcher runs
    pid_t pid = -1;         // -1: not running
    int stdout_fd = -1;     // read end of the worker's stdout (kept open while it runs)
    std::string address;    // from the first listening line; restarts must print the same
    std::string metrics_url;
    std::chrono::steady_clock::time_point started;
    std::chrono::steady_clock::time_point restart_at;
    int consecutive_failures = 0;
  };

  // Forks and execs worker i and waits (bounded) for its listening line; false if it died, timed
  // out (then it is killed) or printed another address than before.
  bool Launch(size_t i);
  // Sets worker i's restart time by its back-off and returns the delay.
  std::chrono::milliseconds ScheduleRestart(size_t i);
  // Records (and logs) that worker i ended with wait status `status`; schedules its restart.
  void Died(size_t i, int status);

  std::vector<Worker> workers_;
  bool stopped_ = false;
};

}  // namespace granite
