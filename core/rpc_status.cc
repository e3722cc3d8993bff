#include "core/rpc_status.h"

#include <iterator>
#include <string>

#include "absl/strings/numbers.h"
#include "core/error.h"

namespace granite::core {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()),
                      std::to_string(static_cast<int>(CodeOf(status))));
}

namespace {

std::string GrpcCodeName(grpc::StatusCode code) {
  static constexpr const char* kNames[] = {
      "OK",        "CANCELLED",          "UNKNOWN",           "INVALID_ARGUMENT",
      "DEADLINE_EXCEEDED", "NOT_FOUND",   "ALREADY_EXISTS",    "PERMISSION_DENIED",
      "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
      "UNIMPLEMENTED", "INTERNAL",       "UNAVAILABLE",       "DATA_LOSS",
      "UNAUTHENTICATED"};
  const int index = static_cast<int>(code);
  if (index >= 0 && index < static_cast<int>(std::size(kNames))) return kNames[index];
  return "code " + std::to_string(index);
}

}  // namespace

absl::Status FromGrpcStatus(const grpc::Status& status, const std::string& peer) {
  if (status.ok()) return absl::OkStatus();
  int code = 0;
  if (!status.error_details().empty() && absl::SimpleAtoi(status.error_details(), &code)) {
    if (status.error_message().empty()) {
      // Never an empty error: say who failed and how.
      return Error(static_cast<ErrorCode>(code),
                   "Worker " + peer + " failed with code " + std::to_string(code) +
                       " and no message (gRPC " + GrpcCodeName(status.error_code()) + ")");
    }
    return Error(static_cast<ErrorCode>(code), status.error_message());
  }
  const std::string message =
      status.error_message().empty() ? std::string("no message") : status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      return Error(ErrorCode::kAllConnectionTriesFailed,
                   "All connection tries failed: worker " + peer + " is unavailable (" +
                       message + ")");
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return Error(ErrorCode::kTimeoutExceeded, "Timeout exceeded talking to worker " + peer);
    case grpc::StatusCode::CANCELLED:
      return Error(ErrorCode::kQueryWasCancelled, "Query was cancelled");
    default:
      return Error(ErrorCode::kLogicalError, "Worker " + peer + " failed with gRPC " +
                                                 GrpcCodeName(status.error_code()) + ": " +
                                                 message);
  }
}

}  // namespace granite::core
