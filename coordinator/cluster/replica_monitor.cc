#include "coordinator/cluster/replica_monitor.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <random>

#include "coordinator/cluster/membership.h"
#include "core/thread_name.h"

namespace granite::coordinator {

namespace {

std::string LocalHostname() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

std::string_view HostOf(std::string_view address) {
  size_t colon = address.rfind(':');
  return colon == std::string_view::npos ? address : address.substr(0, colon);
}

}  // namespace

LoadBalancing ParseLoadBalancing(std::string_view name) {
  if (name == "in_order") return LoadBalancing::kInOrder;
  if (name == "nearest_hostname") return LoadBalancing::kNearestHostname;
  if (name == "first_or_random") return LoadBalancing::kFirstOrRandom;
  return LoadBalancing::kRandom;
}

size_t HostnameDistance(std::string_view a, std::string_view b) {
  size_t common = std::min(a.size(), b.size());
  size_t distance = std::max(a.size(), b.size()) - common;
  for (size_t i = 0; i < common; ++i) distance += a[i] != b[i];
  return distance;
}

ReplicaMonitor::ReplicaMonitor(std::vector<std::string> addresses, size_t replicas)
    : addresses_(std::move(addresses)), replicas_(std::max<size_t>(1, replicas)),
      local_hostname_(LocalHostname()), errors_(addresses_.size()),
      lag_(addresses_.size(), 0) {}

ReplicaMonitor::~ReplicaMonitor() {
  {
    core::MutexLock lock(watch_mu_);
    stopping_ = true;
  }
  watch_cv_.notify_all();
  if (watcher_.joinable()) watcher_.join();
}

bool ReplicaMonitor::Serving(size_t process) const {
  if (membership_ == nullptr) return true;
  ServingState state = membership_->Health(process).state;
  return state == ServingState::kServing || state == ServingState::kUnknown;
}

std::vector<size_t> ReplicaMonitor::ReadOrder(size_t shard, LoadBalancing policy,
                                              uint64_t max_delay) const {
  struct Candidate {
    size_t process;
    bool serving;
    uint64_t lag;  // 0 when within max_delay
    uint64_t errors;
    size_t rank;  // the policy's preference, lower first
  };
  thread_local std::mt19937_64 random(std::random_device{}());
  std::vector<Candidate> candidates;
  {
    core::MutexLock lock(mu_);
    for (size_t r = 0; r < replicas_; ++r) {
      size_t process = shard * replicas_ + r;
      const uint64_t lag = lag_[process] > max_delay ? lag_[process] : 0;
      candidates.push_back({process, true, lag, errors_[process].errors_count, r});
    }
  }
  for (Candidate& c : candidates) {
    c.serving = Serving(c.process);
    switch (policy) {
      case LoadBalancing::kInOrder: break;
      case LoadBalancing::kRandom: c.rank = random(); break;
      case LoadBalancing::kFirstOrRandom: c.rank = c.rank == 0 ? 0 : 1 + random() % 1024; break;
      case LoadBalancing::kNearestHostname:
        c.rank = HostnameDistance(HostOf(addresses_[c.process]), local_hostname_) * 1024 + c.rank;
        break;
    }
  }
  // Errors decay: a replica that failed once is not avoided for good, only while it fails more
  // often than its peers (ClickHouse's errors_count, without the decay period).
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.serving != b.serving) return a.serving;
    if (a.lag != b.lag) return a.lag < b.lag;
    if (a.errors != b.errors) return a.errors < b.errors;
    return a.rank < b.rank;
  });
  std::vector<size_t> order;
  for (const Candidate& c : candidates) order.push_back(c.process);
  return order;
}

void ReplicaMonitor::RecordError(size_t process, const std::string& error) {
  core::MutexLock lock(mu_);
  ReplicaErrors& e = errors_[process];
  ++e.errors_count;
  e.last_error = error;
  e.last_error_time = std::chrono::system_clock::now();
}

void ReplicaMonitor::PublishStates(std::vector<ReplicaState> states) {
  core::MutexLock lock(mu_);
  std::fill(lag_.begin(), lag_.end(), 0);
  for (const ReplicaState& state : states) {
    lag_[state.process] = std::max(lag_[state.process], state.blocks_behind);
  }
  states_ = std::move(states);
}

void ReplicaMonitor::MarkState(size_t process, const std::string& table,
                               const std::string& state) {
  core::MutexLock lock(mu_);
  for (ReplicaState& known : states_) {
    if (known.process == process && known.table == table) {
      known.state = state;
      return;
    }
  }
  ReplicaState added;
  added.process = process;
  added.table = table;
  added.reachable = true;
  added.state = state;
  states_.push_back(std::move(added));
}

uint64_t ReplicaMonitor::Lag(size_t process) const {
  core::MutexLock lock(mu_);
  return lag_[process];
}

std::vector<ReplicaState> ReplicaMonitor::States() const {
  core::MutexLock lock(mu_);
  return states_;
}

ReplicaErrors ReplicaMonitor::Errors(size_t process) const {
  core::MutexLock lock(mu_);
  return errors_[process];
}

void ReplicaMonitor::Watch(size_t process, grpc::ClientContext* context, std::atomic<bool>* stalled) {
  core::MutexLock lock(watch_mu_);
  watched_[context] = Watched{process, stalled};
  if (!watcher_.joinable()) watcher_ = std::thread([this] { WatchLoop(); });
}

void ReplicaMonitor::Unwatch(grpc::ClientContext* context) {
  core::MutexLock lock(watch_mu_);
  watched_.erase(context);
}

void ReplicaMonitor::WatchLoop() {
  core::SetCurrentThreadName("replica_watch");
  core::MutexLock lock(watch_mu_);
  while (!stopping_) {
    watch_cv_.wait_for(watch_mu_, std::chrono::milliseconds(200));
    for (auto& [context, watched] : watched_) {
      if (*watched.stalled || Serving(watched.process)) continue;
      *watched.stalled = true;
      context->TryCancel();
    }
  }
}

}  // namespace granite::coordinator
