// HealthProber: asks a server for its grpc.health.v1 status (service "", the whole server). The
// coordinator's Membership probes every worker with it; `granite health` (the container health
// check) probes one address and exits 0 when it is SERVING.
//
// The health protocol is two tiny messages (HealthCheckRequest{string service = 1},
// HealthCheckResponse{ServingStatus status = 1}), so they are encoded by hand over a generic stub
// rather than generated: no .proto is needed.
#pragma once

#include <chrono>
#include <memory>
#include <map>
#include <string>
#include <string_view>

#include "core/mutex.h"

namespace grpc {
class Channel;
}

namespace granite::coordinator {

enum class ServingState { kUnknown, kServing, kNotServing, kUnreachable };

// Returns "unknown", "serving", "not_serving" or "unreachable" (the system.workers spelling).
std::string_view ServingStateName(ServingState state);

struct ProbeResult {
  ServingState state = ServingState::kUnknown;
  std::string detail;  // why it is not serving: the gRPC error, or the status the server sent
};

// Probes one address.
// Thread-safety: implementations are called concurrently for different addresses.
class HealthProber {
 public:
  virtual ~HealthProber() = default;
  // Checks `address` (host:port) within `timeout`. Never blocks longer than `timeout`.
  virtual ProbeResult Probe(const std::string& address, std::chrono::milliseconds timeout) = 0;
};

// Calls /grpc.health.v1.Health/Check over one cached channel per address, so a probe reuses the
// connection and a restarted server is seen within the reconnect backoff (at most 1 s).
// Thread-safety: safe for concurrent use.
class GrpcHealthProber : public HealthProber {
 public:
  ProbeResult Probe(const std::string& address, std::chrono::milliseconds timeout) override
      EXCLUDES(mu_);

 private:
  std::shared_ptr<grpc::Channel> ChannelFor(const std::string& address) EXCLUDES(mu_);

  core::Mutex mu_{"health_prober_channels"};
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_ GUARDED_BY(mu_);
};

// `granite health`: probes `address` once, prints "<address>: serving" (or the state and detail)
// and returns the exit status: 0 when SERVING, 1 otherwise.
int RunHealthCheck(const std::string& address, std::chrono::milliseconds timeout);

}  // namespace granite::coordinator
