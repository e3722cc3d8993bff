#include "core/rpc_status.h"

#include <string>

#include "core/error.h"
#include "gtest/gtest.h"

namespace granite::core {
namespace {

TEST(RpcStatusTest, RoundTripsTheClickHouseCode) {
  absl::Status original = Error(ErrorCode::kIllegalDivision, "Division by zero");
  absl::Status back = FromGrpcStatus(ToGrpcStatus(original), "127.0.0.1:1");
  EXPECT_EQ(CodeOf(back), ErrorCode::kIllegalDivision);
  EXPECT_EQ(back.message(), "Division by zero");
}

// Issue 19: a worker call that failed with an empty message (gRPC's own failure to parse a
// request) reached the client as a LOGICAL_ERROR with no text.
TEST(RpcStatusTest, AFailureWithoutAMessageNamesTheWorkerAndTheCode) {
  absl::Status internal =
      FromGrpcStatus(grpc::Status(grpc::StatusCode::INTERNAL, ""), "127.0.0.1:9000");
  EXPECT_EQ(CodeOf(internal), ErrorCode::kLogicalError);
  EXPECT_NE(internal.message().find("127.0.0.1:9000"), std::string::npos) << internal;
  EXPECT_NE(internal.message().find("INTERNAL"), std::string::npos) << internal;
  absl::Status coded =
      FromGrpcStatus(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "", "36"), "w:1");
  EXPECT_EQ(CodeOf(coded), ErrorCode::kBadArguments);
  EXPECT_NE(coded.message().find("w:1"), std::string::npos) << coded;
  EXPECT_NE(coded.message().find("INVALID_ARGUMENT"), std::string::npos) << coded;
  absl::Status unavailable = FromGrpcStatus(grpc::Status(grpc::StatusCode::UNAVAILABLE, ""), "w:2");
  EXPECT_EQ(CodeOf(unavailable), ErrorCode::kAllConnectionTriesFailed);
  EXPECT_NE(unavailable.message().find("w:2"), std::string::npos) << unavailable;
  // A code gRPC does not define, inside the enum's range (casting 99 would itself be undefined).
  absl::Status odd = FromGrpcStatus(grpc::Status(static_cast<grpc::StatusCode>(20), ""), "w:3");
  EXPECT_NE(odd.message().find("code 20"), std::string::npos) << odd;
}

}  // namespace
}  // namespace granite::core
