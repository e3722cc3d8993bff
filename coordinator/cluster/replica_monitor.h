// ReplicaMonitor: what the coordinator knows about the replicas of each shard while it reads —
// the order in which a query tries them (load_balancing), each replica's error count and last
// error (system.clusters, system.replicas), and the watch that cancels a fragment stream whose
// replica stopped answering health checks, so a stalled replica (SIGSTOP, a hung disk) fails over
// instead of holding the query until its timeout.
//
// Failure detection: Membership probes every worker every 2 s with a 1 s deadline; a replica that
// misses a probe is not serving, and the watch (every 200 ms) cancels the streams open on it. A
// stalled replica is thus abandoned about 1-3 s after it stalls; a killed one at once (its
// connection breaks).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/mutex.h"

namespace grpc {
class ClientContext;
}

namespace granite::coordinator {

class Membership;

enum class LoadBalancing { kRandom, kInOrder, kNearestHostname, kFirstOrRandom };

// Parses the load_balancing setting's value (already validated by the settings registry).
LoadBalancing ParseLoadBalancing(std::string_view name);

// Number of positions at which two host names differ (ClickHouse's nearest_hostname distance).
size_t HostnameDistance(std::string_view a, std::string_view b);

// One replica's replication state for one table, as the last repair pass saw it.
struct ReplicaState {
  size_t process = 0;
  std::string table;
  bool reachable = false;
  uint64_t blocks = 0;        // block ids it holds
  uint64_t blocks_behind = 0;  // blocks its peers have and it lacks (lag)
  uint64_t retained = 0;      // blocks whose rows it keeps for peers
  uint64_t repaired = 0;      // blocks copied to it so far
  uint64_t rows = 0;          // rows of the table it holds
  uint64_t clones = 0;        // times it copied the table whole from a peer
  std::string state;          // active, lagging, unreachable; cloning while a copy runs
  std::string last_error;
  std::chrono::system_clock::time_point last_check;
};

struct ReplicaErrors {
  uint64_t errors_count = 0;
  std::string last_error;
  std::chrono::system_clock::time_point last_error_time;  // epoch: never
};

// Thread-safety: all methods are safe to call concurrently; SetMembership before any query.
class ReplicaMonitor {
 public:
  ReplicaMonitor(std::vector<std::string> addresses, size_t replicas);
  ~ReplicaMonitor();
  ReplicaMonitor(const ReplicaMonitor&) = delete;
  ReplicaMonitor& operator=(const ReplicaMonitor&) = delete;

  // Health source for ordering and for the stall watch; may stay null (tests): then every replica
  // counts as serving and only broken connections fail over.
  void SetMembership(Membership* membership) { membership_ = membership; }

  // The processes of `shard`'s replicas, in the order a read tries them: serving replicas first,
  // then those at most `max_delay` blocks behind (the most any of its tables lags, as the last
  // repair pass saw it: ClickHouse's max_replica_delay_for_distributed_queries counted in blocks;
  // when every serving replica lags more, the least behind first), then by fewer errors, then as
  // `policy` says (random: shuffled; in_order: configuration order;
  // first_or_random: the first replica, the rest shuffled; nearest_hostname: fewest differing
  // characters from this host's name).
  std::vector<size_t> ReadOrder(size_t shard, LoadBalancing policy,
                                uint64_t max_delay = 0) const EXCLUDES(mu_);
  // The blocks `process` lags behind its shard on its worst table (0 before the first pass).
  uint64_t Lag(size_t process) const EXCLUDES(mu_);

  void RecordError(size_t process, const std::string& error) EXCLUDES(mu_);
  // The repair loop's view (replica_repair.h): replaced whole after each pass.
  void PublishStates(std::vector<ReplicaState> states) EXCLUDES(mu_);
  // Sets the `state` shown for `process`'s `table` until the next PublishStates (a copy of the
  // table in progress: "cloning").
  void MarkState(size_t process, const std::string& table, const std::string& state)
      EXCLUDES(mu_);
  std::vector<ReplicaState> States() const EXCLUDES(mu_);
  ReplicaErrors Errors(size_t process) const EXCLUDES(mu_);
  bool Serving(size_t process) const;

  // While registered, `context`'s call is cancelled and *stalled set when `process` stops
  // serving. Unwatch before the context dies.
  void Watch(size_t process, grpc::ClientContext* context, std::atomic<bool>* stalled) EXCLUDES(watch_mu_);
  void Unwatch(grpc::ClientContext* context) EXCLUDES(watch_mu_);

 private:
  void WatchLoop() EXCLUDES(watch_mu_);

  // Constant after construction.
  const std::vector<std::string> addresses_;
  const size_t replicas_;
  const std::string local_hostname_;
  Membership* membership_ = nullptr;  // set before the first query

  mutable core::Mutex mu_{"replica_monitor"};
  std::vector<ReplicaErrors> errors_ GUARDED_BY(mu_);
  std::vector<ReplicaState> states_ GUARDED_BY(mu_);
  std::vector<uint64_t> lag_ GUARDED_BY(mu_);  // per process: the largest blocks_behind

  struct Watched {
    size_t process;
    std::atomic<bool>* stalled;
  };
  core::Mutex watch_mu_{"replica_watch"};
  std::condition_variable_any watch_cv_;
  std::map<grpc::ClientContext*, Watched> watched_ GUARDED_BY(watch_mu_);
  bool stopping_ GUARDED_BY(watch_mu_) = false;
  std::thread watcher_;  // started with the first Watch
};

}  // namespace granite::coordinator
