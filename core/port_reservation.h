// PortReservation: a TCP port picked by the kernel and held for a gRPC server that will listen on
// it, so that a server asked for "any port" listens on exactly one.
//
// Why: gRPC (seen in 1.51; grpc/grpc#11920, #24730) opens one listening socket per poller with
// SO_REUSEPORT, and with port 0 each of them binds its own ephemeral port: a worker started with
// --port 0 listened on two ports, one never advertised, both serving the full API. Asking gRPC for
// a concrete port makes every clone bind that one port.
//
// The reservation is a socket bound to host:0 with SO_REUSEADDR and SO_REUSEPORT that never
// listens (so it receives no connections) and is close-on-exec. While it is held, the kernel
// gives the port to no outgoing connection and a bind by another user fails, yet gRPC (which sets
// SO_REUSEPORT on its listeners) can bind it. `granite local` holds its workers' reservations for
// its whole life, so a restarted worker gets its old address back.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace granite::core {

// Holds one reserved port.
// Thread-safety: immutable after Reserve; move-only.
class PortReservation {
 public:
  // Reserves a port on `host` (an IP address, "[v6]" or a name; the first address it resolves
  // to). Errors: UNAVAILABLE naming the host and the failing call.
  static absl::StatusOr<PortReservation> Reserve(const std::string& host);

  PortReservation(PortReservation&& other) noexcept;
  PortReservation& operator=(PortReservation&& other) noexcept;
  PortReservation(const PortReservation&) = delete;
  PortReservation& operator=(const PortReservation&) = delete;
  ~PortReservation();  // releases the port

  int port() const { return port_; }

 private:
  PortReservation(int fd, int port) : fd_(fd), port_(port) {}

  int fd_ = -1;
  int port_ = 0;
};

}  // namespace granite::core
