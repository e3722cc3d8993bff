#include "coordinator/coord/etcd_session.h"

#include <cstdio>
#include <vector>

#include "core/status_macros.h"
#include "core/thread_name.h"

namespace granite::coordinator {

EtcdSession::EtcdSession(EtcdClient* client, std::chrono::seconds ttl)
    : client_(client), ttl_(ttl) {}

EtcdSession::~EtcdSession() { Stop(); }

void EtcdSession::Start() {
  thread_ = std::thread([this] {
    core::SetCurrentThreadName("etcd_session");
    Loop();
  });
}

void EtcdSession::Stop() {
  int64_t lease = 0;
  {
    core::MutexLock lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    lease = lease_;
    lease_ = 0;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (lease != 0) client_->RevokeLease(lease).IgnoreError();
}

absl::StatusOr<int64_t> EtcdSession::Lease() {
  {
    core::MutexLock lock(mu_);
    if (lease_ != 0) return lease_;
  }
  ASSIGN_OR_RETURN(int64_t granted, client_->GrantLease(ttl_));
  core::MutexLock lock(mu_);
  if (lease_ != 0) {
    // Another caller granted one meanwhile; this one expires unused.
    return lease_;
  }
  lease_ = granted;
  return lease_;
}

void EtcdSession::Forget(int64_t lease) {
  core::MutexLock lock(mu_);
  if (lease_ == lease) lease_ = 0;
}

absl::Status EtcdSession::Keep(const std::string& key, const std::string& value) {
  ASSIGN_OR_RETURN(int64_t lease, Lease());
  RETURN_IF_ERROR(client_->Put(key, value, lease).status());
  core::MutexLock lock(mu_);
  if (kept_.empty()) kept_lease_ = lease;  // else Renew checks that all are under one lease
  kept_[key] = value;
  return absl::OkStatus();
}

void EtcdSession::Loop() {
  const auto interval = std::chrono::duration_cast<std::chrono::milliseconds>(ttl_) / 3;
  while (true) {
    {
      core::MutexLock lock(mu_);
      stop_cv_.wait_for(mu_, interval, [this]() NO_THREAD_SAFETY_ANALYSIS { return stopping_; });
      if (stopping_) return;
    }
    Renew();
  }
}

void EtcdSession::Renew() {
  int64_t lease;
  int64_t kept_lease;
  std::map<std::string, std::string> kept;
  {
    core::MutexLock lock(mu_);
    lease = lease_;
    kept_lease = kept_lease_;
    kept = kept_;
  }
  if (lease != 0) {
    absl::StatusOr<int64_t> ttl = client_->KeepAlive(lease);
    if (!ttl.ok()) return;  // etcd unreachable: try again next round
    if (*ttl == 0) {
      // Expired while etcd was away (or unrenewed too long): etcd deleted its keys.
      Forget(lease);
      lease = 0;
    }
  }
  if (kept.empty() || (lease != 0 && lease == kept_lease)) return;
  // The kept keys are not under the live lease (a new one was granted): write them again.
  absl::StatusOr<int64_t> granted = Lease();
  if (!granted.ok()) return;
  for (const auto& [key, value] : kept) {
    absl::Status status = client_->Put(key, value, *granted).status();
    if (!status.ok()) {
      std::fprintf(stderr, "etcd session: %s\n", std::string(status.message()).c_str());
      return;
    }
  }
  core::MutexLock lock(mu_);
  kept_lease_ = *granted;
}

}  // namespace granite::coordinator
