#include "worker/worker_server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <cstdio>
#include <optional>
#include <thread>

#include "core/interserver_secret.h"
#include "core/metrics/callback_metrics.h"
#include "core/metrics/events.h"
#include "core/metrics/grpc_metrics_interceptor.h"
#include "core/metrics/prometheus_exporter.h"
#include "core/port_reservation.h"
#include "core/process.h"
#include "core/thread_pool.h"
#include "core/thread_priority.h"
#include "core/join/spill_file.h"
#include "storage/data_dir_lock.h"
#include "storage/store.h"
#include "worker/numa_placement.h"
#include "worker/worker_service.h"

namespace granite::worker {

namespace {

// Registers the worker's gauges: parts and tables in the store, running fragments, pool size.
std::vector<core::CallbackRegistration> RegisterWorkerGauges(storage::Store* store,
                                                             core::ThreadPool* pool) {
  std::vector<core::CallbackRegistration> gauges;
  gauges.push_back(core::RegisterGauge(
      "granite_active_parts", "ActiveParts", "Active data parts in this worker's tables", [store] {
        int64_t parts = 0;
        for (const auto& table : store->Tables()) parts += table->Snapshot()->parts.size();
        return parts;
      }));
  gauges.push_back(core::RegisterGauge(
      "granite_tables", "Tables", "Tables in this worker's store",
      [store] { return static_cast<int64_t>(store->Tables().size()); }));
  gauges.push_back(core::RegisterGauge(
      "granite_running_fragments", "RunningFragments", "Plan fragments executing on this worker",
      [] {
        return static_cast<int64_t>(core::EventTotal(core::Event::kFragmentsStarted) -
                                    core::EventTotal(core::Event::kFragmentsFinished));
      }));
  gauges.push_back(core::RegisterGauge("granite_thread_pool_threads", "ThreadPoolThreads",
                                       "Threads of the process-wide pool", [pool] {
                                         return static_cast<int64_t>(pool->size());
                                       }));
  return gauges;
}

}  // namespace

int RunWorker(const WorkerOptions& options) {
  std::fprintf(stderr, "granite worker: %s\n", core::AllocatorSummary().c_str());
  // NUMA placement first: the memory policy and CPU mask it sets are inherited only by threads
  // started after it (store, pool, gRPC).
  absl::StatusOr<NumaTopology> topology = ReadTopology(SysfsReader());
  absl::StatusOr<NumaPlacement> placement =
      topology.ok() ? ChooseNumaPlacement(*topology, options.numa_node, options.threads)
                    : absl::StatusOr<NumaPlacement>(topology.status());
  absl::Status applied = placement.ok() ? ApplyNumaPlacement(&*placement) : placement.status();
  if (!applied.ok()) {
    std::fprintf(stderr, "granite worker: %s\n", std::string(applied.message()).c_str());
    return 2;
  }
  std::fprintf(stderr, "granite worker: %s\n", placement->log_line.c_str());
  // One process per data directory: a second worker on it would write and merge the same parts.
  absl::StatusOr<storage::DataDirLock> lock =
      storage::DataDirLock::Acquire(options.data_dir, "granite worker");
  if (!lock.ok()) {
    std::fprintf(stderr, "%s\n", std::string(lock.status().message()).c_str());
    return 1;
  }
  WorkerInfo info = DescribeWorker(*topology, *placement, options.data_dir);  // for GetInfo
  auto store = storage::Store::Open(options.data_dir);
  if (!store.ok()) {
    std::fprintf(stderr, "granite worker: cannot open %s: %s\n", options.data_dir.c_str(),
                 std::string(store.status().message()).c_str());
    return 1;
  }
  // Spill files of a grace hash join this worker's previous process did not finish.
  core::RemoveSpillFiles(options.data_dir + "/tmp");
  int nice = options.query_thread_nice;
  if (absl::Status valid = core::ValidateThreadPriorityDelta(nice, "--query_thread_nice");
      !valid.ok()) {
    std::fprintf(stderr, "granite worker: %s\n", std::string(valid.message()).c_str());
    return 2;
  }
  core::ThreadPool pool(placement->threads,
                        [pin = MakeThreadPinner(*placement), nice](size_t i) {
                          if (pin) pin(i);
                          // A fixed priority for good; the automatic one (-1): each
                          // task's (core::ThreadPool).
                          if (nice > 0) (void)core::LowerThreadPriority(nice);
                        },
                        core::ThreadPool::kDefaultYieldsBeforeSleep, "query_pool");
  WorkerService service(store->get(), &pool, std::move(info), nice);
  std::vector<core::CallbackRegistration> gauges = RegisterWorkerGauges(store->get(), &pool);
  std::unique_ptr<core::MetricsServer> metrics;
  if (options.metrics_port >= 0) {
    auto started = core::MetricsServer::Start(options.host, options.metrics_port);
    if (!started.ok()) {
      std::fprintf(stderr, "granite worker: %s\n", std::string(started.status().message()).c_str());
      return 1;
    }
    metrics = std::move(*started);
    std::printf("granite worker metrics on %s\n", metrics->url().c_str());
  }

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  // "Any port" is chosen here, not by gRPC: with port 0 each of its listening sockets picks its
  // own (core/port_reservation.h), and the worker listened on two ports.
  int requested = options.port;
  std::optional<core::PortReservation> reservation;
  if (requested == 0) {
    absl::StatusOr<core::PortReservation> reserved = core::PortReservation::Reserve(options.host);
    if (reserved.ok()) {
      requested = reserved->port();
      reservation.emplace(*std::move(reserved));
    }
  }
  builder.AddListeningPort(options.host + ":" + std::to_string(requested),
                           grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(1 << 30);
  builder.SetMaxSendMessageSize(1 << 30);
  builder.RegisterService(&service);
  // Keeps idle handler threads instead of ending one after nearly every call under concurrency
  // (gRPC's default MAX_POLLERS is 2); see coordinator_server.cc.
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, 256);
  builder.experimental().SetInterceptorCreators(core::MetricsInterceptorCreators());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "granite worker: cannot listen on %s:%d\n", options.host.c_str(),
                 options.port);
    return 1;
  }
  reservation.reset();  // the listeners hold the port now
  std::printf("granite worker listening on %s:%d\n", options.host.c_str(), port);
  std::fflush(stdout);
  const std::string& host = options.host;
  bool loopback = host.rfind("127.", 0) == 0 || host == "localhost" || host == "::1" ||
                  host == "[::1]";
  if (core::InterServerSecret().empty() && !loopback) {
    std::fprintf(stderr,
                 "granite worker: WARNING: no inter-server secret (--interserver_secret, "
                 "GRANITE_INTERSERVER_SECRET): anyone who reaches %s:%d can run queries, inserts "
                 "and DDL on this shard (docs/users.md)\n",
                 host.c_str(), port);
  }
  int signal = core::WaitForShutdownSignal();
  std::fprintf(stderr, "granite worker: signal %d, shutting down (running fragments get %d s)\n",
               signal, options.shutdown_timeout_seconds);
  // Not serving first: health checks (coordinator, kubelet) stop sending work; then Shutdown
  // refuses new RPCs, waits for running ones, and cancels those left at the deadline.
  server->GetHealthCheckService()->SetServingStatus(false);
  server->Shutdown(std::chrono::system_clock::now() +
                   std::chrono::seconds(options.shutdown_timeout_seconds));
  std::fprintf(stderr, "granite worker: stopped\n");
  // The process exits next; skip civetweb's ~2 s shutdown.
  if (metrics) core::MetricsServer::AbandonAtExit(std::move(metrics));
  return 0;
}

}  // namespace granite::worker
