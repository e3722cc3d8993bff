#include "coordinator/http/peer_socket.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

namespace granite::coordinator::http {
namespace {

// Returns the port of `address` and sets *text to its IP address, or returns -1.
int PortOf(const sockaddr_storage& address, std::string* text) {
  char buffer[INET6_ADDRSTRLEN] = {0};
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    inet_ntop(AF_INET, &v4->sin_addr, buffer, sizeof(buffer));
    *text = buffer;
    return ntohs(v4->sin_port);
  }
  if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    inet_ntop(AF_INET6, &v6->sin6_addr, buffer, sizeof(buffer));
    *text = buffer;
    return ntohs(v6->sin6_port);
  }
  return -1;
}

}  // namespace

int FindPeerSocket(std::string_view remote_addr, int remote_port, int server_port) {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int found = -1;
  while (dirent* entry = readdir(dir)) {
    char* end = nullptr;
    long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == dirfd(dir)) continue;
    struct stat info;
    if (fstat(static_cast<int>(fd), &info) != 0 || !S_ISSOCK(info.st_mode)) continue;
    sockaddr_storage local{}, peer{};
    socklen_t local_size = sizeof(local), peer_size = sizeof(peer);
    if (getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&local), &local_size) != 0 ||
        getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0) {
      continue;
    }
    std::string local_text, peer_text;
    if (PortOf(local, &local_text) != server_port || PortOf(peer, &peer_text) != remote_port) {
      continue;
    }
    if (peer_text == remote_addr || peer_text == "::ffff:" + std::string(remote_addr)) {
      found = static_cast<int>(fd);
      break;
    }
  }
  closedir(dir);
  return found;
}

bool PeerClosed(int fd) {
  pollfd watch{fd, POLLRDHUP, 0};
  if (poll(&watch, 1, 0) <= 0) return false;
  return (watch.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

}  // namespace granite::coordinator::http
