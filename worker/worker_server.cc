#include "worker/worker_server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <cstdio>
#include <thread>

#include "core/process.h"
#include "core/thread_pool.h"
#include "storage/store.h"
#include "worker/worker_service.h"

namespace granite::worker {

int RunWorker(const WorkerOptions& options) {
  std::fprintf(stderr, "granite worker: %s\n", core::AllocatorSummary().c_str());
  auto store = storage::Store::Open(options.data_dir);
  if (!store.ok()) {
    std::fprintf(stderr, "granite worker: cannot open %s: %s\n", options.data_dir.c_str(),
                 std::string(store.status().message()).c_str());
    return 1;
  }
  size_t threads = options.threads > 0 ? options.threads : std::thread::hardware_concurrency();
  core::ThreadPool pool(threads);
  WorkerService service(store->get(), &pool);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.host + ":" + std::to_string(options.port),
                           grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(1 << 30);
  builder.SetMaxSendMessageSize(1 << 30);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "granite worker: cannot listen on %s:%d\n", options.host.c_str(),
                 options.port);
    return 1;
  }
  std::printf("granite worker listening on %s:%d\n", options.host.c_str(), port);
  std::fflush(stdout);
  int signal = core::WaitForShutdownSignal();
  std::fprintf(stderr, "granite worker: signal %d, shutting down\n", signal);
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  return 0;
}

}  // namespace granite::worker
