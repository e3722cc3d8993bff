// Fuzz target: the ClickHouse gRPC handler (coordinator/server/clickhouse_service.h) fed a QueryInfo
// decoded from arbitrary protobuf bytes, through an in-process gRPC channel (no port, no network).
// The coordinator has one worker whose address refuses connections at once (127.0.0.1 port 1), so
// a statement that needs workers fails with their error like a cluster whose worker is down, and
// everything before that runs: UTF-8 checks, settings, query ids, sessions, parsing, formats,
// SELECTs without tables on the coordinator, input data of INSERTs. Inputs that do not decode as
// a QueryInfo are skipped.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>

#include "clickhouse/grpc/clickhouse_grpc.grpc.pb.h"
#include "coordinator/cluster/catalog.h"
#include "coordinator/cluster/worker_set.h"
#include "coordinator/exec/query_executor.h"
#include "coordinator/server/admission_queue.h"
#include "coordinator/server/clickhouse_service.h"
#include "coordinator/server/query_registry.h"
#include "coordinator/server/query_scheduler.h"
#include "core/thread_pool.h"
#include "fuzz/fuzz_check.h"

namespace {

namespace coordinator = granite::coordinator;

struct Coordinator {
  Coordinator()
      : workers(std::vector<std::string>{"127.0.0.1:1"}),
        pool(1),
        admission(4, 16),
        scheduler(&admission, 2, 2),
        executor(&workers, &catalog, &pool, &registry),
        service(&executor, &registry, &scheduler) {
    catalog.Reset(std::vector<granite::core::TableSchema>{});  // loaded, no tables
    executor.set_admission_queue(&admission);
    grpc::ServerBuilder builder;
    builder.RegisterService(&service);
    server = builder.BuildAndStart();
    stub = clickhouse::grpc::ClickHouse::NewStub(server->InProcessChannel(grpc::ChannelArguments()));
  }

  coordinator::WorkerSet workers;
  coordinator::Catalog catalog;
  granite::core::ThreadPool pool;
  coordinator::QueryRegistry registry;
  coordinator::AdmissionQueue admission;
  coordinator::QueryScheduler scheduler;
  coordinator::QueryExecutor executor;
  coordinator::ClickHouseService service;
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<clickhouse::grpc::ClickHouse::Stub> stub;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 14) return 0;
  clickhouse::grpc::QueryInfo info;
  if (!info.ParseFromArray(data, static_cast<int>(size))) return 0;
  static Coordinator* c = new Coordinator();  // lives for the process: servers do not restart
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  clickhouse::grpc::Result result;
  grpc::Status status = c->stub->ExecuteQuery(&context, info, &result);
  // An answer, or the handler's own refusal; never a missed deadline (a hang).
  FUZZ_CHECK(status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED, "the handler answers");
  return 0;
}
