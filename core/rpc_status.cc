#include "core/rpc_status.h"

#include <string>

#include "absl/strings/numbers.h"
#include "core/error.h"

namespace granite::core {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()),
                      std::to_string(static_cast<int>(CodeOf(status))));
}

absl::Status FromGrpcStatus(const grpc::Status& status, const std::string& peer) {
  if (status.ok()) return absl::OkStatus();
  int code = 0;
  if (!status.error_details().empty() && absl::SimpleAtoi(status.error_details(), &code)) {
    return Error(static_cast<ErrorCode>(code), status.error_message());
  }
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      return Error(ErrorCode::kAllConnectionTriesFailed,
                   "All connection tries failed: worker " + peer + " is unavailable (" +
                       status.error_message() + ")");
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return Error(ErrorCode::kTimeoutExceeded, "Timeout exceeded talking to worker " + peer);
    case grpc::StatusCode::CANCELLED:
      return Error(ErrorCode::kQueryWasCancelled, "Query was cancelled");
    default:
      return Error(ErrorCode::kLogicalError,
                   "Worker " + peer + " failed: " + status.error_message());
  }
}

}  // namespace granite::core
