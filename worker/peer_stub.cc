#include "worker/peer_stub.h"

#include <grpcpp/grpcpp.h>

#include <map>
#include <memory>

#include "core/interserver_secret.h"
#include "core/mutex.h"

namespace granite::worker {

granite::worker::v1::Worker::Stub* PeerStub(const std::string& address) {
  static core::Mutex mu("peer_stubs");
  // Leaked on purpose: stubs outlive every caller, including threads still running at exit.
  static auto* stubs =
      new std::map<std::string, std::unique_ptr<granite::worker::v1::Worker::Stub>>();
  core::MutexLock lock(mu);
  auto& stub = (*stubs)[address];
  if (!stub) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(1 << 30);
    args.SetMaxSendMessageSize(1 << 30);
    stub = granite::worker::v1::Worker::NewStub(
        grpc::experimental::CreateCustomChannelWithInterceptors(
            address, grpc::InsecureChannelCredentials(), args,
            core::InterServerClientInterceptors()));
  }
  return stub.get();
}

}  // namespace granite::worker
