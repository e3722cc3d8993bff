// PeerSocket: tells whether the client of an HTTP request has gone away, so that its query is
// cancelled as a gRPC query is when its call ends (ClickHouseService's ClientGone, polled by
// core::CancellationPoller). civetweb does not expose a connection's socket, so it is found once
// per request among the process's descriptors by its two ends (the client's address and port and
// the listening port), then polled for a hang-up.
#pragma once

#include <string_view>

namespace granite::coordinator::http {

// Returns the descriptor of this process's TCP socket whose peer is remote_addr:remote_port and
// whose local port is `server_port`, or -1 when there is none.
int FindPeerSocket(std::string_view remote_addr, int remote_port, int server_port);

// Returns true once the peer of socket `fd` closed or reset the connection.
bool PeerClosed(int fd);

}  // namespace granite::coordinator::http
