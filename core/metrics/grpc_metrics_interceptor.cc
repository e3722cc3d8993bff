#include "core/metrics/grpc_metrics_interceptor.h"

#include <google/protobuf/message_lite.h>
#include <grpcpp/support/byte_buffer.h>

#include <cstring>

#include "core/metrics/events.h"

namespace granite::core {
namespace {

using grpc::experimental::InterceptionHookPoints;

class MetricsInterceptor : public grpc::experimental::Interceptor {
 public:
  explicit MetricsInterceptor(bool protobuf_requests) : protobuf_requests_(protobuf_requests) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_MESSAGE)) {
      CountEvent(Event::kGrpcSentMessages);
      if (grpc::ByteBuffer* buffer = methods->GetSerializedSendMessage()) {
        CountEvent(Event::kGrpcSentBytes, buffer->Length());
      }
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE)) {
      // Null after the last message of a stream.
      if (void* message = methods->GetRecvMessage()) {
        CountEvent(Event::kGrpcReceivedMessages);
        if (protobuf_requests_) {
          CountEvent(Event::kGrpcReceivedBytes,
                     static_cast<google::protobuf::MessageLite*>(message)->ByteSizeLong());
        }
      }
    }
    methods->Proceed();
  }

 private:
  const bool protobuf_requests_;
};

class MetricsInterceptorFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    CountEvent(Event::kGrpcServerCalls);
    // Only these services are known to receive generated protobuf messages (health checks and
    // reflection may use raw byte buffers).
    const char* method = info->method();
    bool protobuf = method != nullptr && (std::strncmp(method, "/granite.", 9) == 0 ||
                                          std::strncmp(method, "/clickhouse.", 12) == 0);
    return new MetricsInterceptor(protobuf);
  }
};

}  // namespace

std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
MetricsInterceptorCreators() {
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
  creators.push_back(std::make_unique<MetricsInterceptorFactory>());
  return creators;
}

}  // namespace granite::core
