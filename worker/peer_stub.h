// PeerStub: this worker's client of another worker (replica copies, shuffle exchanges), one
// channel per address for the life of the process, each call carrying the inter-server secret
// (core/interserver_secret.h).
#pragma once

#include <string>

#include "granite/worker/v1/worker.grpc.pb.h"

namespace granite::worker {

// Returns the stub of the worker at `address`, created on first use.
// Thread-safety: callable from any thread; the stub is shared and lives until exit.
granite::worker::v1::Worker::Stub* PeerStub(const std::string& address);

}  // namespace granite::worker
