#include "coordinator/coord/etcd_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "coordinator/coord/etcd_client.h"
#include "core/error.h"
#include "core/port_reservation.h"
#include "core/status_macros.h"

namespace granite::coordinator {

namespace {

std::string LogTail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  return all.size() > 2000 ? all.substr(all.size() - 2000) : all;
}

}  // namespace

absl::StatusOr<std::unique_ptr<EtcdProcess>> EtcdProcess::Start(const std::string& data_dir,
                                                                const std::string& host) {
  std::error_code error;
  std::filesystem::create_directories(data_dir, error);
  if (error) {
    return core::Error(core::ErrorCode::kBadArguments,
                       "Cannot create etcd's folder " + data_dir + ": " + error.message());
  }
  // Picked free, then released for etcd to bind (it sets no SO_REUSEPORT, so a held reservation
  // would make its bind fail).
  int ports[2];
  for (int& port : ports) {
    ASSIGN_OR_RETURN(core::PortReservation reservation, core::PortReservation::Reserve(host));
    port = reservation.port();
  }
  std::unique_ptr<EtcdProcess> process(new EtcdProcess(data_dir, host, ports[0], ports[1]));
  RETURN_IF_ERROR(process->Launch());
  return process;
}

EtcdProcess::~EtcdProcess() { Stop(); }

absl::Status EtcdProcess::Launch() {
  const std::string client_url = "http://" + host_ + ":" + std::to_string(client_port_);
  const std::string peer_url = "http://" + host_ + ":" + std::to_string(peer_port_);
  const std::string log = data_dir_ + "/etcd.log";
  std::vector<std::string> args = {
      "etcd", "--name", "granite", "--data-dir", data_dir_ + "/member-data",
      "--listen-client-urls", client_url, "--advertise-client-urls", client_url,
      "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
      "--initial-cluster", "granite=" + peer_url, "--initial-cluster-state", "new",
      // Keeps a few hours of history for watches to resume from, and the file small.
      "--auto-compaction-mode", "periodic", "--auto-compaction-retention", "1h"};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    return core::Error(core::ErrorCode::kBadArguments, "Cannot fork to start etcd");
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);  // the launcher blocks its shutdown signals
    execvp("etcd", argv.data());
    dprintf(STDERR_FILENO, "cannot run etcd: %s (install the etcd-server package)\n",
            strerror(errno));
    _exit(127);
  }
  pid_ = pid;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::string last_error;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return core::Error(core::ErrorCode::kBadArguments,
                         "etcd exited at start (status " + std::to_string(status) + "): " +
                             LogTail(log));
    }
    // A new channel each time: one that found the port closed waits out its reconnect back-off.
    ASSIGN_OR_RETURN(std::unique_ptr<EtcdClient> client,
                     EtcdClient::Create(endpoint(), EtcdClient::Options{std::chrono::seconds(1)}));
    absl::Status answered = client->Revision("/").status();
    if (answered.ok()) return absl::OkStatus();
    last_error = std::string(answered.message());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  Kill();
  return core::Error(core::ErrorCode::kBadArguments, "etcd did not answer at " + endpoint() +
                                                         " within 30 s (" + last_error +
                                                         "): " + LogTail(log));
}

void EtcdProcess::Stop() {
  if (pid_ < 0) return;
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Kill();
}

void EtcdProcess::Kill() {
  if (pid_ < 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

absl::Status EtcdProcess::Restart() {
  if (pid_ >= 0) Kill();
  return Launch();
}

}  // namespace granite::coordinator
