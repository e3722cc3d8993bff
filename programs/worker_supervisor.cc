#include "programs/worker_supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "core/port_reservation.h"

namespace granite {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kFirstRestartDelay{100};
constexpr std::chrono::milliseconds kMaxRestartDelay{10000};
constexpr std::chrono::milliseconds kIdleTick{500};
constexpr std::chrono::seconds kStopGrace{10};

// Returns the port at the end of "host:port" or "http://host:port/metrics", 0 if none.
int PortOf(const std::string& address) {
  std::string text = address;
  size_t scheme = text.find("://");
  if (scheme != std::string::npos) text = text.substr(scheme + 3);
  text = text.substr(0, text.find('/'));
  size_t colon = text.rfind(':');
  return colon == std::string::npos ? 0 : std::atoi(text.c_str() + colon + 1);
}

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

}  // namespace

std::chrono::milliseconds RestartDelay(int consecutive_failures) {
  std::chrono::milliseconds delay = kFirstRestartDelay;
  for (int i = 0; i < consecutive_failures && delay < kMaxRestartDelay; ++i) delay *= 2;
  return std::min(delay, kMaxRestartDelay);
}

WorkerSupervisor::WorkerSupervisor(std::vector<WorkerLaunch> launches) {
  for (WorkerLaunch& launch : launches) {
    Worker worker;
    worker.launch = std::move(launch);
    // Without a reservation the worker picks its own port, and restarts ask for that one.
    absl::StatusOr<core::PortReservation> reserved = core::PortReservation::Reserve(worker.launch.host);
    if (reserved.ok()) {
      worker.port = reserved->port();
      worker.reservation.emplace(*std::move(reserved));
    } else {
      std::fprintf(stderr, "granite local: %s\n", std::string(reserved.status().message()).c_str());
    }
    workers_.push_back(std::move(worker));
  }
}

WorkerSupervisor::~WorkerSupervisor() { Stop(); }

bool WorkerSupervisor::StartAll() {
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (!Launch(i)) {
      std::fprintf(stderr, "granite local: worker %zu failed to start\n", i);
      Stop();
      return false;
    }
  }
  return true;
}

bool WorkerSupervisor::Launch(size_t i) {
  Worker& w = workers_[i];
  const WorkerLaunch& launch = w.launch;
  // Everything the child needs is built before fork: the launcher has threads (the coordinator's),
  // so the child may only make async-signal-safe calls until exec.
  std::vector<std::string> args = {
      "granite",
      "worker",
      "--port=" + std::to_string(w.port),
      "--data=" + launch.data_dir,
      "--threads=" + std::to_string(launch.threads),
      "--host=" + launch.host,
      "--metrics-port=" + std::to_string(launch.metrics_port),
      "--query_thread_nice=" + std::to_string(launch.query_thread_nice),
      "--uncompressed_cache_size=" + std::to_string(launch.uncompressed_cache_size),
      "--max_server_memory_usage=" + std::to_string(launch.max_server_memory_usage)};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  const pid_t launcher = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);  // the duplicate is not close-on-exec; the pipe's ends are
    // The child starts with every signal unblocked so SIGTERM stops it.
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, nullptr);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    // The launcher may have died before prctl: then no signal will come.
    if (getppid() != launcher) _exit(1);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  close(fds[1]);
  w.pid = pid;
  w.stdout_fd = fds[0];
  w.started = Clock::now();
  // Reads up to the listening line, noting the metrics line before it; the pipe stays open while
  // the worker runs (it prints nothing else to stdout).
  const std::string metrics_marker = " metrics on ";
  const std::string marker = " listening on ";
  const Clock::time_point deadline = w.started + kStartTimeout;
  std::string line;
  std::string address;
  while (address.empty()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    pollfd readable{w.stdout_fd, POLLIN, 0};
    int ready = poll(&readable, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    char c;
    ssize_t n = read(w.stdout_fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the worker exited
    if (c != '\n') {
      line.push_back(c);
      continue;
    }
    if (size_t at = line.find(metrics_marker); at != std::string::npos) {
      w.metrics_url = line.substr(at + metrics_marker.size());
      // An ephemeral metrics port is kept for restarts too.
      if (w.launch.metrics_port == 0) w.launch.metrics_port = PortOf(w.metrics_url);
    } else if (size_t at = line.find(marker); at != std::string::npos) {
      address = line.substr(at + marker.size());
    } else {
      break;
    }
    line.clear();
  }
  bool ok = !address.empty() && (w.address.empty() || address == w.address);
  if (!address.empty() && !ok) {
    std::fprintf(stderr, "granite local: worker %zu came back on %s instead of %s\n", i,
                 address.c_str(), w.address.c_str());
  }
  if (!ok) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    close(w.stdout_fd);
    w.stdout_fd = -1;
    w.pid = -1;
    return false;
  }
  w.address = address;
  if (w.port == 0) w.port = PortOf(address);
  return true;
}

std::chrono::milliseconds WorkerSupervisor::ScheduleRestart(size_t i) {
  Worker& w = workers_[i];
  const Clock::time_point now = Clock::now();
  if (now - w.started >= kStableRun) w.consecutive_failures = 0;
  std::chrono::milliseconds delay = RestartDelay(w.consecutive_failures);
  ++w.consecutive_failures;
  w.restart_at = now + delay;
  return delay;
}

void WorkerSupervisor::Died(size_t i, int status) {
  Worker& w = workers_[i];
  std::chrono::milliseconds delay = ScheduleRestart(i);
  std::fprintf(stderr, "granite local: worker %zu (pid %d) %s; restarting it on %s in %.1f s\n", i,
               static_cast<int>(w.pid), DescribeExit(status).c_str(), w.address.c_str(),
               static_cast<double>(delay.count()) / 1000.0);
  if (w.stdout_fd >= 0) close(w.stdout_fd);
  w.stdout_fd = -1;
  w.pid = -1;
}

void WorkerSupervisor::Poll() {
  if (stopped_) return;
  for (size_t i = 0; i < workers_.size(); ++i) {
    Worker& w = workers_[i];
    if (w.pid <= 0) continue;
    int status = 0;
    pid_t reaped = waitpid(w.pid, &status, WNOHANG);
    if (reaped == w.pid || (reaped < 0 && errno == ECHILD)) Died(i, status);
  }
  const Clock::time_point now = Clock::now();
  for (size_t i = 0; i < workers_.size(); ++i) {
    Worker& w = workers_[i];
    if (w.pid > 0 || now < w.restart_at) continue;
    if (Launch(i)) {
      std::fprintf(stderr, "granite local: worker %zu restarted (pid %d) on %s\n", i,
                   static_cast<int>(w.pid), w.address.c_str());
    } else {
      std::chrono::milliseconds delay = ScheduleRestart(i);
      std::fprintf(stderr, "granite local: worker %zu failed to restart; trying again in %.1f s\n",
                   i, static_cast<double>(delay.count()) / 1000.0);
    }
  }
}

std::chrono::milliseconds WorkerSupervisor::NextPollDelay() const {
  std::chrono::milliseconds delay = kIdleTick;
  const Clock::time_point now = Clock::now();
  for (const Worker& w : workers_) {
    if (w.pid > 0) continue;
    auto until = std::chrono::duration_cast<std::chrono::milliseconds>(w.restart_at - now);
    delay = std::min(delay, std::max(until, std::chrono::milliseconds(0)));
  }
  return delay;
}

void WorkerSupervisor::Stop() {
  if (stopped_) return;
  stopped_ = true;
  for (const Worker& w : workers_) {
    if (w.pid > 0) kill(w.pid, SIGTERM);
  }
  const Clock::time_point deadline = Clock::now() + kStopGrace;
  for (Worker& w : workers_) {
    if (w.pid > 0) {
      while (waitpid(w.pid, nullptr, WNOHANG) == 0) {
        if (Clock::now() > deadline) {
          kill(w.pid, SIGKILL);
          waitpid(w.pid, nullptr, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      w.pid = -1;
    }
    if (w.stdout_fd >= 0) close(w.stdout_fd);
    w.stdout_fd = -1;
    w.reservation.reset();
  }
}

}  // namespace granite
