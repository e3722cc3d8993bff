#include "coordinator/coordinator_server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <cstdio>
#include <thread>

#include "coordinator/catalog.h"
#include "coordinator/clickhouse_service.h"
#include "coordinator/query_executor.h"
#include "coordinator/worker_set.h"
#include "core/error.h"
#include "core/process.h"
#include "core/thread_pool.h"

namespace granite::coordinator {

struct CoordinatorServer::State {
  std::unique_ptr<WorkerSet> workers;
  Catalog catalog;
  std::unique_ptr<core::ThreadPool> pool;
  std::unique_ptr<QueryExecutor> executor;
  std::unique_ptr<ClickHouseService> service;
  std::unique_ptr<grpc::Server> server;
};

CoordinatorServer::CoordinatorServer() : state_(std::make_unique<State>()) {}

CoordinatorServer::~CoordinatorServer() { Shutdown(); }

absl::StatusOr<int> CoordinatorServer::Start(const CoordinatorOptions& options) {
  if (options.workers.empty()) {
    return core::Error(core::ErrorCode::kBadArguments, "The coordinator needs at least one worker");
  }
  State& s = *state_;
  s.workers = std::make_unique<WorkerSet>(options.workers);
  size_t threads = options.threads > 0 ? options.threads : std::thread::hardware_concurrency();
  s.pool = std::make_unique<core::ThreadPool>(threads);
  s.executor = std::make_unique<QueryExecutor>(s.workers.get(), &s.catalog, s.pool.get());
  s.service = std::make_unique<ClickHouseService>(s.executor.get());

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.host + ":" + std::to_string(options.port),
                           grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(1 << 30);
  builder.SetMaxSendMessageSize(1 << 30);
  builder.RegisterService(s.service.get());
  s.server = builder.BuildAndStart();
  if (!s.server || port == 0) {
    return core::Error(core::ErrorCode::kBadArguments,
                       "Cannot listen on " + options.host + ":" + std::to_string(options.port));
  }
  return port;
}

void CoordinatorServer::Shutdown() {
  if (state_->server) {
    state_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(10));
    state_->server.reset();
  }
  // Close the worker channels too, so workers stopping next see no open connection.
  state_->service.reset();
  state_->executor.reset();
  state_->workers.reset();
}

int RunCoordinator(const CoordinatorOptions& options) {
  std::fprintf(stderr, "granite coordinator: %s\n", core::AllocatorSummary().c_str());
  CoordinatorServer server;
  absl::StatusOr<int> port = server.Start(options);
  if (!port.ok()) {
    std::fprintf(stderr, "granite coordinator: %s\n", std::string(port.status().message()).c_str());
    return 1;
  }
  std::printf("granite coordinator listening on %s:%d\n", options.host.c_str(), *port);
  std::fflush(stdout);
  int signal = core::WaitForShutdownSignal();
  std::fprintf(stderr, "granite coordinator: signal %d, shutting down\n", signal);
  server.Shutdown();
  return 0;
}

}  // namespace granite::coordinator
