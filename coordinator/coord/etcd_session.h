// EtcdSession: one etcd lease kept alive by one thread, and the keys attached to it — the
// coordinator's membership key (<prefix>/coordinators/<id>) and, while it runs a DDL, the DDL
// lock. When this process dies the keep-alives stop and etcd deletes the keys after the TTL.
// While etcd is unreachable the thread keeps trying; a lease that expired meanwhile is replaced
// by a new one and the kept keys are written again.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "coordinator/coord/etcd_client.h"
#include "core/mutex.h"

namespace granite::coordinator {

// Thread-safety: every public method may be called from any thread.
class EtcdSession {
 public:
  // REQUIRES: `client` outlives the session; ttl >= 2 s.
  EtcdSession(EtcdClient* client, std::chrono::seconds ttl);
  ~EtcdSession();  // Stop()
  EtcdSession(const EtcdSession&) = delete;
  EtcdSession& operator=(const EtcdSession&) = delete;

  // Starts the keep-alive thread (renewing every ttl / 3).
  void Start() EXCLUDES(mu_);
  // Stops the thread and revokes the lease (its keys disappear at once), best effort.
  void Stop() EXCLUDES(mu_);

  // Returns the live lease, granting one if there is none.
  absl::StatusOr<int64_t> Lease() EXCLUDES(mu_);
  // Drops `lease` if it is the current one (etcd said it no longer exists): the next Lease()
  // grants another, and the keep-alive thread writes the kept keys under it.
  void Forget(int64_t lease) EXCLUDES(mu_);
  // Writes `key` = `value` under the lease now (error if etcd cannot be reached), and again
  // whenever the lease is replaced.
  absl::Status Keep(const std::string& key, const std::string& value) EXCLUDES(mu_);

 private:
  void Loop() EXCLUDES(mu_);
  // One round: renews the lease, or grants a new one and writes the kept keys.
  void Renew() EXCLUDES(mu_);

  // Constant after construction.
  EtcdClient* const client_;
  const std::chrono::seconds ttl_;

  core::Mutex mu_{"etcd_session"};
  std::condition_variable_any stop_cv_;
  int64_t lease_ GUARDED_BY(mu_) = 0;  // 0: none (not granted yet, or expired)
  std::map<std::string, std::string> kept_ GUARDED_BY(mu_);
  int64_t kept_lease_ GUARDED_BY(mu_) = 0;  // the lease every kept key was last written under
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace granite::coordinator
