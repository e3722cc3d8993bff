#include "coordinator/worker_set.h"

#include <grpcpp/grpcpp.h>

#include <thread>

#include "core/thread_priority.h"

namespace granite::coordinator {

WorkerSet::WorkerSet(const std::vector<std::string>& addresses) : addresses_(addresses) {
  for (const std::string& address : addresses_) {
    for (int fragments = 0; fragments < 2; ++fragments) {
      grpc::ChannelArguments args;
      args.SetMaxReceiveMessageSize(1 << 30);
      args.SetMaxSendMessageSize(1 << 30);
      // Reconnect quickly after a worker restarts instead of backing off for minutes.
      args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
      args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
      args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
      // Distinct arguments: gRPC would otherwise share one subchannel (one connection).
      args.SetInt("granite.fragment_channel", fragments);
      auto channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
      auto& stubs = fragments ? fragment_stubs_ : stubs_;
      stubs.push_back(granite::worker::v1::Worker::NewStub(channel));
    }
  }
}

}  // namespace granite::coordinator

namespace granite::coordinator {

absl::Status WorkerSet::CallAll(const std::function<absl::Status(size_t)>& call) const {
  // At normal priority, as all gRPC calls (core/thread_priority.h); the threads started here
  // inherit it.
  core::ScopedNormalPriority grpc_calls;
  std::vector<absl::Status> statuses(size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i + 1 < size(); ++i) {
    threads.emplace_back([&, i] { statuses[i] = call(i); });
  }
  if (size() > 0) statuses[size() - 1] = call(size() - 1);
  for (auto& thread : threads) thread.join();
  for (const absl::Status& status : statuses) {
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace granite::coordinator
