// IpNetwork: a client network of the users file (`networks = 10.0.0.0/8, ::1, loopback`) and the
// address of a connected client as gRPC names its peer. Authentication (access_control.h) checks
// that a user connects from one of its networks.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace granite::coordinator::access {

// An IPv6 address; IPv4 addresses are held IPv4-mapped (::ffff:a.b.c.d), so one network type
// matches clients of either family.
using IpAddress = std::array<uint8_t, 16>;

// An address prefix.
struct IpNetwork {
  IpAddress address{};
  int prefix_bits = 128;  // of the 128-bit (mapped) form

  bool Contains(const IpAddress& ip) const;
  std::string ToString() const;
};

// Parses "a.b.c.d", "a.b.c.d/n", an IPv6 address with optional "/n", or the names `loopback`
// (127.0.0.0/8 and ::1) and `any` (every address); appends the networks to `out`.
// BAD_ARGUMENTS naming the text otherwise.
absl::Status ParseNetworks(std::string_view text, std::vector<IpNetwork>* out);

// Returns the address of a gRPC peer ("ipv4:127.0.0.1:5000", "ipv6:[::1]:5000"); a Unix socket
// peer ("unix:...") is loopback. BAD_ARGUMENTS for anything else.
absl::StatusOr<IpAddress> PeerAddress(std::string_view peer);

// True for 127.0.0.0/8 and ::1.
bool IsLoopback(const IpAddress& ip);
// True if `host` (a listening address: name or literal) is a loopback address or "localhost".
bool IsLoopbackHost(std::string_view host);

}  // namespace granite::coordinator::access
