#include "coordinator/cluster/health_prober.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <vector>

namespace granite::coordinator {

std::string_view ServingStateName(ServingState state) {
  switch (state) {
    case ServingState::kUnknown: return "unknown";
    case ServingState::kServing: return "serving";
    case ServingState::kNotServing: return "not_serving";
    case ServingState::kUnreachable: return "unreachable";
  }
  return "unknown";
}

namespace {

constexpr char kCheckMethod[] = "/grpc.health.v1.Health/Check";

// Reads field 1 (a varint) of a HealthCheckResponse; skips any other field. Returns -1 when the
// bytes are not a valid message. An empty message means status 0 (UNKNOWN), as in proto3.
int DecodeServingStatus(const std::string& bytes) {
  int status = 0;
  size_t i = 0;
  auto varint = [&](uint64_t* out) {
    *out = 0;
    for (int shift = 0; i < bytes.size() && shift < 64; shift += 7) {
      uint8_t byte = static_cast<uint8_t>(bytes[i++]);
      *out |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  };
  while (i < bytes.size()) {
    uint64_t key = 0;
    uint64_t value = 0;
    if (!varint(&key)) return -1;
    switch (key & 7) {
      case 0:
        if (!varint(&value)) return -1;
        if ((key >> 3) == 1) status = static_cast<int>(value);
        break;
      case 1: i += 8; break;
      case 2:
        if (!varint(&value) || value > bytes.size() - i) return -1;
        i += value;
        break;
      case 5: i += 4; break;
      default: return -1;
    }
    if (i > bytes.size()) return -1;
  }
  return status;
}

}  // namespace

std::shared_ptr<grpc::Channel> GrpcHealthProber::ChannelFor(const std::string& address) {
  core::MutexLock lock(mu_);
  std::shared_ptr<grpc::Channel>& channel = channels_[address];
  if (!channel) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    // GRPC_ARG_MIN_RECONNECT_BACKOFF_MS is also the shortest time a connection attempt may take
    // (TCP and the HTTP/2 SETTINGS exchange): at 100 ms a worker busy for a moment on a loaded
    // machine failed calls as unreachable. A dead worker still fails at once (refused).
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 2000);
    channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  }
  return channel;
}

ProbeResult GrpcHealthProber::Probe(const std::string& address,
                                    std::chrono::milliseconds timeout) {
  std::shared_ptr<grpc::Channel> channel = ChannelFor(address);
  // A channel that failed to connect waits out its reconnect back-off (up to a second) and fails
  // every call at once meanwhile, with the old error: a worker restarted within that second
  // would still probe unreachable. Connect again now; a call made while the channel connects
  // waits for the attempt (a dead worker still fails at once: refused).
  if (channel->GetState(false) == GRPC_CHANNEL_TRANSIENT_FAILURE) {
    grpc::experimental::ChannelResetConnectionBackoff(channel.get());
    channel->WaitForStateChange(GRPC_CHANNEL_TRANSIENT_FAILURE,
                                std::chrono::system_clock::now() + timeout);
  }
  grpc::TemplatedGenericStub<grpc::ByteBuffer, grpc::ByteBuffer> stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  grpc::Slice empty("");
  grpc::ByteBuffer request(&empty, 1);  // HealthCheckRequest{service: ""}
  grpc::ByteBuffer response;
  grpc::Status status;
  grpc::CompletionQueue queue;
  auto call = stub.PrepareUnaryCall(&context, kCheckMethod, request, &queue);
  call->StartCall();
  call->Finish(&response, &status, reinterpret_cast<void*>(1));
  void* tag = nullptr;
  bool ok = false;
  queue.Next(&tag, &ok);  // the deadline bounds this wait
  queue.Shutdown();
  while (queue.Next(&tag, &ok)) {
  }

  if (!status.ok()) {
    if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      return {ServingState::kNotServing, "the server does not implement grpc.health.v1"};
    }
    return {ServingState::kUnreachable, status.error_message().empty()
                                            ? "gRPC status " + std::to_string(status.error_code())
                                            : status.error_message()};
  }
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (response.Dump(&slices).ok()) {
    for (const grpc::Slice& slice : slices) {
      bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    }
  }
  switch (DecodeServingStatus(bytes)) {
    case 1: return {ServingState::kServing, ""};
    case 2: return {ServingState::kNotServing, "health status NOT_SERVING"};
    case 3: return {ServingState::kNotServing, "health status SERVICE_UNKNOWN"};
    case -1: return {ServingState::kUnknown, "malformed HealthCheckResponse"};
    default: return {ServingState::kUnknown, "health status UNKNOWN"};
  }
}

int RunHealthCheck(const std::string& address, std::chrono::milliseconds timeout) {
  GrpcHealthProber prober;
  ProbeResult result = prober.Probe(address, timeout);
  std::string state(ServingStateName(result.state));
  if (result.detail.empty()) {
    std::printf("%s: %s\n", address.c_str(), state.c_str());
  } else {
    std::printf("%s: %s (%s)\n", address.c_str(), state.c_str(), result.detail.c_str());
  }
  return result.state == ServingState::kServing ? 0 : 1;
}

}  // namespace granite::coordinator
