// The inter-server secret: a shared string the coordinator sends with every call to a worker
// (gRPC metadata `x-granite-interserver-secret`, added by a channel interceptor) and every worker
// requires, so a client that reaches a worker's port directly cannot run fragments, inserts or
// DDL there: its calls get AUTHENTICATION_FAILED. Each process sets it once at start-up
// (--interserver_secret, --interserver_secret_file or GRANITE_INTERSERVER_SECRET; `granite local`
// generates one and hands it to its workers through the environment).
// Thread-safety: SetInterServerSecret before any channel or server uses it; the rest from any
// thread.
#pragma once

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/client_interceptor.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace granite::core {

inline constexpr char kInterServerSecretHeader[] = "x-granite-interserver-secret";
inline constexpr char kInterServerSecretEnv[] = "GRANITE_INTERSERVER_SECRET";

// Sets the process's secret (empty: none, which workers accept only on loopback).
void SetInterServerSecret(std::string secret);
const std::string& InterServerSecret();

// Returns the secret given by `value`, else read from `file` (whitespace at its end dropped);
// empty when both are. CANNOT_READ_FROM_FILE_DESCRIPTOR for a file that cannot be read.
absl::StatusOr<std::string> ResolveInterServerSecret(const std::string& value,
                                                     const std::string& file);

// Returns 32 random bytes as 64 hex digits (from the kernel's random source).
std::string GenerateInterServerSecret();

// Interceptors for a channel to a worker: each call carries the process's secret.
std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
InterServerClientInterceptors();

// Checks a worker call's metadata: OK if the process has no secret or the call carries it
// (compared in constant time); else UNAUTHENTICATED with AUTHENTICATION_FAILED (516) in its
// details (core/rpc_status.h), logged and counted.
grpc::Status CheckInterServerSecret(const grpc::ServerContext& context);

}  // namespace granite::core
