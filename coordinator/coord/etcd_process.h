// EtcdProcess: a one-member etcd server (Debian's `etcd` binary) started by this process, for
// `granite local` (programs/local_cluster.h) and tests: data in a given folder, client and peer
// ports picked free on loopback, output in <data>/etcd.log. The child dies with the thread that
// started it (PR_SET_PDEATHSIG), so an etcd never outlives its launcher.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace granite::coordinator {

// Thread-safety: none; one thread calls everything (the one that must outlive the child).
class EtcdProcess {
 public:
  // Starts etcd with its data in `data_dir` (created if missing) and waits (up to 30 s) until it
  // answers. Errors: the binary is missing or exits (with the end of its log), or never answers.
  static absl::StatusOr<std::unique_ptr<EtcdProcess>> Start(const std::string& data_dir,
                                                           const std::string& host = "127.0.0.1");
  ~EtcdProcess();  // Stop()
  EtcdProcess(const EtcdProcess&) = delete;
  EtcdProcess& operator=(const EtcdProcess&) = delete;

  // SIGTERM, SIGKILL after 5 s, and reaps it.
  void Stop();
  // SIGKILL and reap (fault tests).
  void Kill();
  // Starts it again on the same ports and data after Kill or Stop, and waits until it answers.
  absl::Status Restart();

  // "host:port" of its client API: the --etcd argument.
  std::string endpoint() const { return host_ + ":" + std::to_string(client_port_); }
  pid_t pid() const { return pid_; }

 private:
  EtcdProcess(std::string data_dir, std::string host, int client_port, int peer_port)
      : data_dir_(std::move(data_dir)), host_(std::move(host)), client_port_(client_port),
        peer_port_(peer_port) {}
  absl::Status Launch();

  const std::string data_dir_;
  const std::string host_;
  const int client_port_;
  const int peer_port_;
  pid_t pid_ = -1;
};

}  // namespace granite::coordinator
