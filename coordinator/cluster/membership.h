// Membership: which workers the coordinator has, and whether each one is up.
//
// The worker list comes from --workers (or GRANITE_WORKERS), expanded by ExpandWorkerSpec:
//   "10.0.0.1:9200,10.0.0.2:9200"                            a list
//   "granite-worker-{0..3}.granite-worker.granite.svc:9200"  a brace range: the DNS names of a
//                                                            StatefulSet's pods, in ordinal order
//                                                            (worker i = pod i)
//   "@/etc/granite/workers.conf"                              a file: one item per line
// Worker i always owns shard i, so the list is fixed at start-up and its order matters: a
// StatefulSet's stable pod names give exactly that, even while a pod is rescheduled.
//
// Each worker is health-checked with grpc.health.v1 every `interval`; the states show in
// system.workers. A query calls EnsureAvailable() before fanning out: a worker that is not serving
// is probed once more (bounded by `timeout`) and, if still down, the query fails at once with
// ALL_CONNECTION_TRIES_FAILED naming the worker, instead of waiting on a dead connection.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/cluster/health_prober.h"
#include "core/mutex.h"

namespace granite::coordinator {

// Expands a worker specification (see the file comment) into host:port addresses, in order.
// Items are separated by commas or newlines; in a file, '#' starts a comment. Errors
// (BAD_ARGUMENTS, naming the item): no workers, an item without a valid port, a malformed or
// reversed brace range, more than 4096 workers, a duplicate address, an unreadable file.
absl::StatusOr<std::vector<std::string>> ExpandWorkerSpec(std::string_view spec);

struct WorkerHealth {
  std::string address;
  ServingState state = ServingState::kUnknown;
  std::string detail;  // the last probe's error, "" when serving
  std::chrono::system_clock::time_point last_check;   // epoch: never checked
  std::chrono::system_clock::time_point last_serving; // epoch: never seen serving
  int consecutive_failures = 0;
};

// Tracks the health of a fixed list of workers.
// Thread-safety: all methods are safe to call concurrently; Start() and the destructor from the
// owning thread only.
class Membership {
 public:
  struct Options {
    std::chrono::milliseconds interval{2000};  // between background checks
    std::chrono::milliseconds timeout{1000};   // per probe
    bool log_transitions = true;               // "granite coordinator: worker 1 (...) ..." lines
  };

  Membership(std::vector<std::string> addresses, std::unique_ptr<HealthProber> prober,
             Options options);
  // Uses GrpcHealthProber and default options.
  explicit Membership(std::vector<std::string> addresses);
  ~Membership();
  Membership(const Membership&) = delete;
  Membership& operator=(const Membership&) = delete;

  // With replicas (processes shard-major, as WorkerSet numbers them): EnsureAllAvailable then
  // asks for one serving replica per shard. Call before Start().
  void SetReplicas(size_t replicas) { replicas_ = replicas == 0 ? 1 : replicas; }

  // Starts the background checker (first round at once).
  void Start() EXCLUDES(stop_mu_);

  // Probes every worker once, in parallel, and returns when all have answered or timed out.
  void CheckNow() EXCLUDES(mu_);

  size_t size() const { return addresses_.size(); }
  const std::vector<std::string>& addresses() const { return addresses_; }
  WorkerHealth Health(size_t index) const EXCLUDES(mu_);
  std::vector<WorkerHealth> Snapshot() const EXCLUDES(mu_);

  // Returns OK when every worker in `indices` is serving. Workers not known to be serving are
  // probed again (in parallel, within `timeout`); those still down make the error:
  // ALL_CONNECTION_TRIES_FAILED "All connection tries failed: worker 2 (host:9200) is unreachable
  // (connection refused); last serving 12 s ago".
  absl::Status EnsureAvailable(const std::vector<size_t>& indices) EXCLUDES(mu_);
  // EnsureAvailable over every worker; with replicas, OK when every shard has a serving replica
  // (probing the shards that have none), else ALL_CONNECTION_TRIES_FAILED naming the shard and
  // each of its replicas.
  absl::Status EnsureAllAvailable() EXCLUDES(mu_);

 private:
  // Probes `indices` in parallel and records the results.
  void Probe(const std::vector<size_t>& indices) EXCLUDES(mu_);
  void Record(size_t index, const ProbeResult& result) EXCLUDES(mu_);
  void Loop() EXCLUDES(stop_mu_);

  // Constant after construction.
  const std::vector<std::string> addresses_;
  const std::unique_ptr<HealthProber> prober_;
  const Options options_;
  size_t replicas_ = 1;  // set before Start

  mutable core::SharedMutex mu_{"membership"};
  std::vector<WorkerHealth> health_ GUARDED_BY(mu_);

  core::Mutex stop_mu_{"membership_stop"};
  std::condition_variable_any stop_cv_;
  bool stopping_ GUARDED_BY(stop_mu_) = false;
  std::thread checker_;
};

}  // namespace granite::coordinator
