// Conversions between absl::Status (with granite's ClickHouse error code) and grpc::Status on the
// worker API, so an error raised on a worker reaches the client with its original code.
#pragma once

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace granite::core {

// Returns the grpc::Status for `status`; the ClickHouse code travels in error_details.
grpc::Status ToGrpcStatus(const absl::Status& status);

// Returns the absl::Status for a failed worker RPC; `peer` names the worker for transport errors.
absl::Status FromGrpcStatus(const grpc::Status& status, const std::string& peer);

}  // namespace granite::core
