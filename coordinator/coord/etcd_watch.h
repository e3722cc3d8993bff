// EtcdWatch: one etcd watch stream over a key prefix, run by one thread that hands every change,
// in revision order, to a handler. When the stream breaks (etcd restarted, a member lost, the
// network) the thread reconnects (100 ms to 1 s apart, trying every endpoint) and resumes from
// the revision after the last one it delivered, so no change is lost or delivered twice. When
// etcd has compacted that history away the watch cannot resume: it calls `resync`, which re-reads
// the state and returns the revision to continue from.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/coord/etcd_client.h"
#include "core/mutex.h"

namespace grpc {
class ClientContext;
}

namespace granite::coordinator {

struct EtcdEvent {
  bool deleted = false;  // else a put
  EtcdKeyValue kv;       // a deletion's mod_revision is the revision of the deletion
};

// Thread-safety: every public method may be called from any thread; `handler` and `resync` run
// on the watch thread only, one call at a time.
class EtcdWatch {
 public:
  // Receives the events of one watch response and the revision they bring the watcher to.
  using Handler = std::function<void(const std::vector<EtcdEvent>& events, int64_t revision)>;
  // Re-reads the watched state after a compaction; returns the revision it read at.
  using Resync = std::function<absl::StatusOr<int64_t>()>;

  // Watches keys starting with `prefix`, from the revision after `revision` (the revision at
  // which the caller read the state). REQUIRES: `client` outlives the watch.
  EtcdWatch(EtcdClient* client, std::string prefix, int64_t revision, Handler handler,
            Resync resync);
  ~EtcdWatch();  // Stop()
  EtcdWatch(const EtcdWatch&) = delete;
  EtcdWatch& operator=(const EtcdWatch&) = delete;

  void Start() EXCLUDES(mu_);
  // Ends the stream and joins the thread; the handler is not called after it returns.
  void Stop() EXCLUDES(mu_);

  // The last revision delivered to the handler.
  int64_t revision() const EXCLUDES(mu_);
  // True while the stream is established (created by etcd and not broken since).
  bool connected() const EXCLUDES(mu_);
  // Waits until revision() >= `revision`; false after `timeout`, or at once when the stream is
  // not connected (a caller then goes on with what it has).
  bool WaitFor(int64_t revision, std::chrono::milliseconds timeout) EXCLUDES(mu_);

 private:
  void Loop() EXCLUDES(mu_);
  // Runs one stream until it breaks or Stop(); returns false when the watch must resync.
  bool RunStream() EXCLUDES(mu_);

  // Constant after construction.
  EtcdClient* const client_;
  const std::string prefix_;
  const Handler handler_;
  const Resync resync_;

  mutable core::Mutex mu_{"etcd_watch"};
  std::condition_variable_any changed_;  // revision_, connected_ or stopping_ changed
  int64_t revision_ GUARDED_BY(mu_);
  bool connected_ GUARDED_BY(mu_) = false;
  bool stopping_ GUARDED_BY(mu_) = false;
  grpc::ClientContext* context_ GUARDED_BY(mu_) = nullptr;  // of the open stream, for Stop
  size_t attempt_ = 0;  // watch thread only: endpoint to try next
  std::thread thread_;
};

}  // namespace granite::coordinator
