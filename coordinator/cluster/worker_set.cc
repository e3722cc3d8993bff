#include "coordinator/cluster/worker_set.h"

#include <grpcpp/grpcpp.h>

#include <thread>

#include "core/interserver_secret.h"
#include "core/thread_priority.h"

namespace granite::coordinator {

bool OnLoopback(const std::string& address) {
  return address.rfind("127.", 0) == 0 || address.rfind("localhost:", 0) == 0 ||
         address.rfind("[::1]:", 0) == 0 || address.rfind("unix:", 0) == 0;
}

WorkerSet::WorkerSet(const std::vector<std::string>& addresses, size_t replicas)
    : addresses_(addresses), replicas_(replicas == 0 ? 1 : replicas),
      monitor_(std::make_unique<ReplicaMonitor>(addresses, replicas_)) {
  for (const std::string& address : addresses_) {
    for (int fragments = 0; fragments < 2; ++fragments) {
      grpc::ChannelArguments args;
      args.SetMaxReceiveMessageSize(1 << 30);
      args.SetMaxSendMessageSize(1 << 30);
      // Reconnect quickly after a worker restarts instead of backing off for minutes.
      args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
      args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
      // GRPC_ARG_MIN_RECONNECT_BACKOFF_MS is also the shortest time a connection attempt may take
      // (TCP and the HTTP/2 SETTINGS exchange): at 100 ms a worker busy for a moment on a loaded
      // machine failed calls as unreachable. A dead worker still fails at once (refused).
      args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 2000);
      // Distinct arguments: gRPC would otherwise share one subchannel (one connection).
      args.SetInt("granite.fragment_channel", fragments);
      // Subchannels of this channel only: from the process-wide pool, a new WorkerSet could pick
      // up a subchannel that an earlier one left in backoff after a server on the same address
      // went away, and fail its first call at once ("All connection tries failed"; 1 in ~90 runs
      // of the insert executor tests, whose fake workers reuse ephemeral ports).
      args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
      // Every call carries the inter-server secret the workers require.
      auto channel = grpc::experimental::CreateCustomChannelWithInterceptors(
          address, grpc::InsecureChannelCredentials(), args,
          core::InterServerClientInterceptors());
      auto& stubs = fragments ? fragment_stubs_ : stubs_;
      stubs.push_back(granite::worker::v1::Worker::NewStub(channel));
    }
  }
}

}  // namespace granite::coordinator

namespace granite::coordinator {

absl::Status WorkerSet::CallAll(const std::function<absl::Status(size_t)>& call) const {
  std::vector<size_t> all(size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  return CallEach(all, call);
}

absl::Status WorkerSet::CallEach(const std::vector<size_t>& indices,
                                 const std::function<absl::Status(size_t)>& call) const {
  // At normal priority, as all gRPC calls (core/thread_priority.h); the threads started here
  // inherit it.
  core::ScopedNormalPriority grpc_calls;
  const size_t n = indices.size();
  std::vector<absl::Status> statuses(n);
  std::vector<std::thread> threads;
  for (size_t k = 0; k + 1 < n; ++k) {
    threads.emplace_back([&, k] { statuses[k] = call(indices[k]); });
  }
  if (n > 0) statuses[n - 1] = call(indices[n - 1]);
  for (auto& thread : threads) thread.join();
  for (const absl::Status& status : statuses) {
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace granite::coordinator
