// A gRPC server interceptor that counts calls, messages and message bytes (GrpcServerCalls,
// GrpcReceived/SentMessages, GrpcReceived/SentBytes in events.h) for every service of the server
// it is added to.
// Sent bytes are the serialized size of each message; received bytes are counted for granite's
// and ClickHouse's protobuf services (the messages reach interceptors already parsed, so their
// serialized size is recomputed).
#pragma once

#include <memory>
#include <vector>

#include <grpcpp/support/server_interceptor.h>

namespace granite::core {

// Returns the interceptor factory list to hand to
// ServerBuilder::experimental().SetInterceptorCreators().
std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
MetricsInterceptorCreators();

}  // namespace granite::core
