#include "core/port_reservation.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <utility>

namespace granite::core {

absl::StatusOr<PortReservation> PortReservation::Reserve(const std::string& host) {
  std::string name = host;
  if (name.size() > 2 && name.front() == '[' && name.back() == ']') {
    name = name.substr(1, name.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int error = getaddrinfo(name.c_str(), "0", &hints, &found); error != 0 || found == nullptr) {
    return absl::UnavailableError("cannot reserve a port on " + host + ": " +
                                  (error != 0 ? gai_strerror(error) : "no address"));
  }
  int fd = socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const char* failed = fd < 0 ? "socket" : nullptr;
  int one = 1;
  if (failed == nullptr && (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
                            setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0)) {
    failed = "setsockopt";
  }
  if (failed == nullptr && bind(fd, found->ai_addr, found->ai_addrlen) != 0) failed = "bind";
  freeaddrinfo(found);
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  if (failed == nullptr && getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0) {
    failed = "getsockname";
  }
  if (failed != nullptr) {
    std::string message = "cannot reserve a port on " + host + ": " + failed + ": " +
                          std::strerror(errno);
    if (fd >= 0) close(fd);
    return absl::UnavailableError(message);
  }
  int port = ntohs(bound.ss_family == AF_INET6
                       ? reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port
                       : reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
  return PortReservation(fd, port);
}

PortReservation::PortReservation(PortReservation&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), port_(other.port_) {}

PortReservation& PortReservation::operator=(PortReservation&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    port_ = other.port_;
  }
  return *this;
}

PortReservation::~PortReservation() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace granite::core
