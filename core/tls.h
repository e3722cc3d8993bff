// TLS credentials of granite's gRPC ports from PEM files: a server certificate and key, optionally
// a CA whose certificates clients must present (mutual TLS); and the client side, trusting a CA
// (or the system's roots) and optionally presenting a certificate of its own.
#pragma once

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace granite::core {

// Returns TLS server credentials from `cert_file` and `key_file`; with `ca_file`, clients must
// present a certificate signed by it. Insecure credentials when all three are empty.
// BAD_ARGUMENTS when only one of cert and key is given, CANNOT_READ_FROM_FILE_DESCRIPTOR naming a
// file that cannot be read.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFromFiles(
    const std::string& cert_file, const std::string& key_file, const std::string& ca_file);

// Returns TLS channel credentials trusting `ca_file` (empty: the system's roots), presenting
// `cert_file` / `key_file` when given (mutual TLS).
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentialsFromFiles(
    const std::string& ca_file, const std::string& cert_file, const std::string& key_file);

}  // namespace granite::core
