// Fuzz target: the ClickHouse gRPC handler (coordinator/server/clickhouse_service.h) fed a QueryInfo
// decoded from arbitrary protobuf bytes, run through ClickHouseService::RunQuery (what the gRPC
// and HTTP methods share) from a loopback client's address, never cancelled: a round trip
// through an in-process channel cost a few thread hand-offs per run and reached no more code.
// The coordinator has one worker whose address refuses connections at once (127.0.0.1 port 1), so
// a statement that needs workers fails with their error like a cluster whose worker is down, and
// everything before that runs: UTF-8 checks, settings, query ids, sessions, parsing, formats,
// SELECTs without tables on the coordinator, input data of INSERTs. Inputs that do not decode as
// a QueryInfo are skipped. A hang is libFuzzer's -timeout.
#include <grpcpp/grpcpp.h>

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
  }

  coordinator::WorkerSet workers;
  coordinator::Catalog catalog;
  granite::core::ThreadPool pool;
  coordinator::QueryRegistry registry;
  coordinator::AdmissionQueue admission;
  coordinator::QueryScheduler scheduler;
  coordinator::QueryExecutor executor;
  coordinator::ClickHouseService service;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 14) return 0;
  clickhouse::grpc::QueryInfo info;
  if (!info.ParseFromArray(data, static_cast<int>(size))) return 0;
  static Coordinator* c = new Coordinator();  // lives for the process: servers do not restart
  // From a loopback client's address: the default user may connect from there, so the query
  // gets past authentication (a ServerContext of no call has no peer, which no user's networks
  // allow: every input stopped at AUTHENTICATION_FAILED before).
  clickhouse::grpc::Result result;
  c->service.RunQuery(info, "ipv4:127.0.0.1:40000", nullptr, [] { return false; },
                      [&](clickhouse::grpc::Result& part) {
                        result.MergeFrom(part);
                        return true;
                      });
  // Errors travel in the Result (as ClickHouse's server does), each with its text.
  FUZZ_CHECK(!result.has_exception() || !result.exception().display_text().empty(),
             "an exception has a message");
  // What the channel did before: the Result must reach a client (its strings valid UTF-8).
  clickhouse::grpc::Result received;
  FUZZ_CHECK(received.ParseFromString(result.SerializeAsString()), "a client can read the Result");
  return 0;
}
