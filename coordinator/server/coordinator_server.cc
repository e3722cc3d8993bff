#include "coordinator/server/coordinator_server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "coordinator/access/access_control.h"
#include "coordinator/access/ip_network.h"
#include "coordinator/server/admission_queue.h"
#include "coordinator/cluster/catalog.h"
#include "coordinator/coord/etcd_catalog.h"
#include "coordinator/coord/etcd_shard_log.h"
#include "coordinator/server/clickhouse_service.h"
#include "coordinator/http/http_server.h"
#include "coordinator/cluster/membership.h"
#include "coordinator/exec/query_executor.h"
#include "coordinator/server/query_scheduler.h"
#include "core/thread_priority.h"
#include "coordinator/server/query_registry.h"
#include "coordinator/cluster/worker_set.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "core/metrics/callback_metrics.h"
#include "core/metrics/grpc_metrics_interceptor.h"
#include "core/metrics/prometheus_exporter.h"
#include "core/process.h"
#include "core/thread_pool.h"
#include "core/tls.h"
#include "coordinator/cluster/replica_repair.h"

namespace granite::coordinator {

struct CoordinatorServer::State {
  std::unique_ptr<WorkerSet> workers;
  Catalog catalog;
  std::unique_ptr<EtcdClient> etcd_client;
  std::unique_ptr<EtcdCatalog> etcd;  // with --etcd; stopped before the executor goes
  std::unique_ptr<EtcdShardLog> shard_log;  // with --etcd and replicas (cluster/shard_log.h)
  QueryRegistry queries;
  std::unique_ptr<Membership> membership;  // health of each worker, for granite_worker_up
  std::unique_ptr<ReplicaRepair> repair;  // with replicas: copies blocks a replica missed
  std::unique_ptr<core::ThreadPool> pool;
  std::unique_ptr<AdmissionQueue> admission;
  std::unique_ptr<QueryScheduler> scheduler;  // runs the callback server's queries
  std::unique_ptr<QueryExecutor> executor;
  std::unique_ptr<ClickHouseService> service;
  std::unique_ptr<http::HttpServer> http;  // after `service`: stopped before it goes
  std::unique_ptr<grpc::Server> server;
  std::vector<core::CallbackRegistration> gauges;  // before `metrics`: unregistered after it stops
  std::unique_ptr<core::MetricsServer> metrics;
};

namespace {

// Threads that run INSERTs, DDL, KILL QUERY and system-table queries of the callback server.
constexpr size_t kOtherQueryThreads = 16;

// Registers the coordinator's gauges: running and queued queries, and each worker's health.
std::vector<core::CallbackRegistration> RegisterCoordinatorGauges(QueryRegistry* queries,
                                                                  Membership* membership,
                                                                  AdmissionQueue* admission) {
  std::vector<core::CallbackRegistration> gauges;
  gauges.push_back(core::RegisterGauge(
      "granite_running_queries", "RunningQueries", "Client queries running on the coordinator",
      [queries] { return static_cast<int64_t>(queries->RunningCount()); }));
  gauges.push_back(core::RegisterGauge(
      "granite_queued_queries", "QueuedQueries",
      "SELECTs waiting for an execution slot (max_concurrent_select_queries)",
      [admission] { return static_cast<int64_t>(admission->queued()); }));
  core::CallbackMetricInfo up{"granite_worker_up", "WorkerUp",
                              "1 if the worker answers health checks (SERVING), else 0"};
  gauges.push_back(core::RegisterCallbackMetric(up, [membership] {
    std::vector<core::CallbackSample> samples;
    std::vector<WorkerHealth> health = membership->Snapshot();
    for (size_t i = 0; i < health.size(); ++i) {
      samples.push_back({{{"worker", std::to_string(i)}, {"address", health[i].address}},
                         health[i].state == ServingState::kServing ? 1 : 0});
    }
    return samples;
  }));
  return gauges;
}

// Returns the users of options.users_file, or without one the default access — which a
// coordinator listening beyond loopback must not offer: its `default` user has no password.
absl::StatusOr<std::shared_ptr<access::AccessControl>> LoadAccessControl(
    const CoordinatorOptions& options) {
  if (options.users_file.empty()) {
    if (!access::IsLoopbackHost(options.host)) {
      return core::Error(
          core::ErrorCode::kBadArguments,
          "Refusing to listen on " + options.host +
              " without --users_file: with no users file the only user is `default` without a "
              "password, which must not be reachable from other machines. Give --users_file "
              "(see docs/users.md) or listen on a loopback address such as 127.0.0.1");
    }
    return std::make_shared<access::AccessControl>();
  }
  ASSIGN_OR_RETURN(auto users, access::LoadUsersFile(options.users_file));
  return std::make_shared<access::AccessControl>(std::move(users));
}

// The host other processes reach this coordinator at: its name when it listens on every
// address (each pod of a Deployment listens on 0.0.0.0, and their etcd membership keys must differ).
std::string AdvertisedHost(const std::string& host) {
  if (host != "0.0.0.0" && host != "::" && host != "[::]") return host;
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return host;
  return name;
}

}  // namespace

CoordinatorServer::CoordinatorServer() : state_(std::make_unique<State>()) {}

CoordinatorServer::~CoordinatorServer() { Shutdown(); }

absl::StatusOr<int> CoordinatorServer::Start(const CoordinatorOptions& options) {
  if (options.workers.empty()) {
    return core::Error(core::ErrorCode::kBadArguments, "The coordinator needs at least one worker");
  }
  RETURN_IF_ERROR(
      core::ValidateThreadPriorityDelta(options.query_thread_nice, "--query_thread_nice"));
  ASSIGN_OR_RETURN(std::shared_ptr<access::AccessControl> access, LoadAccessControl(options));
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> credentials,
                   core::ServerCredentialsFromFiles(options.tls_cert, options.tls_key,
                                                    options.tls_ca));
  access::AccessControl::SetCurrent(std::move(access));
  State& s = *state_;
  if (options.replicas == 0 || options.workers.size() % options.replicas != 0) {
    return core::Error(core::ErrorCode::kBadArguments,
                       "The coordinator has " + std::to_string(options.workers.size()) +
                           " workers, not a multiple of " + std::to_string(options.replicas) +
                           " replicas per shard");
  }
  if (!options.etcd.empty()) {
    // A bad --etcd stops the start-up with a clear message rather than failing every DDL later.
    ASSIGN_OR_RETURN(s.etcd_client, EtcdClient::Create(options.etcd));
    RETURN_IF_ERROR(s.etcd_client->Revision("/").status());
  }
  s.workers = std::make_unique<WorkerSet>(options.workers, options.replicas);
  EtcdCatalog::Options etcd_options;
  if (!options.etcd_prefix.empty()) etcd_options.prefix = options.etcd_prefix;
  while (etcd_options.prefix.size() > 1 && etcd_options.prefix.back() == '/') {
    etcd_options.prefix.pop_back();
  }
  if (s.etcd_client != nullptr && options.replicas > 1) {
    s.shard_log = std::make_unique<EtcdShardLog>(s.etcd_client.get(), etcd_options.prefix);
    s.workers->set_shard_log(s.shard_log.get());
  }
  size_t threads = options.threads > 0 ? options.threads : std::thread::hardware_concurrency();
  // A fixed priority lowers the merge pool for good; the automatic one (-1) leaves its threads to
  // take each task's priority (core::ThreadPool).
  int nice = options.query_thread_nice;
  s.pool = std::make_unique<core::ThreadPool>(
      threads, [nice](size_t) { if (nice > 0) (void)core::LowerThreadPriority(nice); },
      core::ThreadPool::kDefaultYieldsBeforeSleep, "merge_pool");
  size_t max_select = options.max_concurrent_select_queries >= 0
                          ? static_cast<size_t>(options.max_concurrent_select_queries)
                          : 2 * std::max(1u, std::thread::hardware_concurrency());
  s.admission = std::make_unique<AdmissionQueue>(max_select, options.max_queued_select_queries);
  // The automatic priority with the default limit: while small INSERTs arrive, one SELECT per two
  // hardware threads (each SELECT's morsels already run on every core; on 2 cores one INSERT
  // client's p50 under 64 SELECT clients went from 1.27x to 1.18x of alone with 1 slot instead
  // of 2, for 17% fewer SELECTs: bench/results/parts-2026-11-23.md, Session 10), two per
  // hardware thread otherwise.
  if (options.query_thread_nice == core::kAutoThreadPriority &&
      options.max_concurrent_select_queries < 0) {
    s.admission->SetLimitDuringSmallWrites(std::max(1u, std::thread::hardware_concurrency() / 2));
  }
  s.membership = std::make_unique<Membership>(options.workers);
  s.membership->SetReplicas(options.replicas);
  s.membership->Start();
  s.workers->monitor()->SetMembership(s.membership.get());
  if (options.replicas > 1) {
    s.repair = std::make_unique<ReplicaRepair>(s.workers.get());
    s.repair->Start();
  }
  s.executor = std::make_unique<QueryExecutor>(s.workers.get(), &s.catalog, s.pool.get(),
                                               &s.queries, s.membership.get());
  s.executor->set_admission_queue(s.admission.get());
  s.executor->set_select_nice(options.query_thread_nice);
  // One SELECT executor thread per execution slot (a running SELECT blocks its thread on worker
  // RPCs; queued ones hold none); "no limit" gets 64. INSERTs, DDL and system queries run on their
  // own threads and never wait behind a SELECT. A SELECT from a client that runs queries one at a
  // time runs on gRPC's callback thread (no hand-off; QueryScheduler::ScheduleSelect), unless
  // it runs at a lowered priority (always with a fixed --query_thread_nice, while small INSERTs
  // arrive with the automatic one): a gRPC thread must not be SCHED_IDLE while it holds gRPC's
  // locks.
  s.scheduler = std::make_unique<QueryScheduler>(s.admission.get(), max_select > 0 ? max_select : 64,
                                                 kOtherQueryThreads,
                                                 /*run_alone_inline=*/options.query_thread_nice <= 0);
  s.service = std::make_unique<ClickHouseService>(s.executor.get(), &s.queries, s.scheduler.get());
  // Registered even without the endpoint: system.metrics shows them too.
  s.gauges = RegisterCoordinatorGauges(&s.queries, s.membership.get(), s.admission.get());
  if (options.metrics_port >= 0) {
    ASSIGN_OR_RETURN(s.metrics, core::MetricsServer::Start(options.host, options.metrics_port));
  }
  if (options.http_port >= 0) {
    ASSIGN_OR_RETURN(s.http, http::HttpServer::Start(options.host, options.http_port,
                                                     s.service.get()));
  }

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.host + ":" + std::to_string(options.port), credentials, &port);
  builder.SetMaxReceiveMessageSize(1 << 30);
  builder.SetMaxSendMessageSize(1 << 30);
  builder.RegisterService(s.service.get());
  // For the sync methods (ExecuteQueryWithStreamIO is a callback method and takes no handler thread):
  // gRPC's sync server ends a handler thread after its call whenever more than MAX_POLLERS
  // (default 2) threads are idle, so with dozens of concurrent queries nearly every call started
  // and ended a thread (stack mapping, page faults, TLB-shootdown IPIs at exit). Idle threads
  // block on the completion queue and cost no CPU.
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, 256);
  builder.experimental().SetInterceptorCreators(core::MetricsInterceptorCreators());
  s.server = builder.BuildAndStart();
  if (!s.server || port == 0) {
    return core::Error(core::ErrorCode::kBadArguments,
                       "Cannot listen on " + options.host + ":" + std::to_string(options.port));
  }
  if (s.etcd_client != nullptr) {
    etcd_options.id = AdvertisedHost(options.host) + ":" + std::to_string(port);
    s.etcd = std::make_unique<EtcdCatalog>(s.etcd_client.get(), etcd_options, &s.catalog);
    RETURN_IF_ERROR(s.etcd->Start());
    s.executor->set_etcd_catalog(s.etcd.get());
  }
  return port;
}

void CoordinatorServer::Shutdown() {
  if (state_->server) {
    state_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(10));
    state_->server.reset();
  }
  state_->http.reset();
  state_->scheduler.reset();  // runs the queries still queued (their calls are cancelled)
  // Close the worker channels too, so workers stopping next see no open connection.
  state_->service.reset();
  state_->executor.reset();
  if (state_->etcd) state_->etcd->Stop();  // deregisters this coordinator at once
  state_->etcd.reset();
  state_->metrics.reset();
  state_->gauges.clear();
  state_->repair.reset();
  state_->membership.reset();
  state_->workers.reset();
}

int CoordinatorServer::http_port() const { return state_->http ? state_->http->port() : -1; }

int CoordinatorServer::metrics_port() const {
  return state_->metrics ? state_->metrics->port() : -1;
}

void CoordinatorServer::AbandonMetricsAtExit() {
  if (state_->metrics) core::MetricsServer::AbandonAtExit(std::move(state_->metrics));
  http::HttpServer::AbandonAtExit(std::move(state_->http), std::chrono::seconds(10));
}

int RunCoordinator(const CoordinatorOptions& options) {
  std::fprintf(stderr, "granite coordinator: %s\n", core::AllocatorSummary().c_str());
  CoordinatorServer server;
  absl::StatusOr<int> port = server.Start(options);
  if (!port.ok()) {
    std::fprintf(stderr, "granite coordinator: %s\n", std::string(port.status().message()).c_str());
    return 1;
  }
  if (server.metrics_port() >= 0) {
    std::printf("granite coordinator metrics on http://%s:%d/metrics\n", options.host.c_str(),
                server.metrics_port());
  }
  if (server.http_port() >= 0) {
    std::printf("granite coordinator HTTP on http://%s:%d/\n", options.host.c_str(),
                server.http_port());
  }
  std::printf("granite coordinator listening on %s:%d\n", options.host.c_str(), *port);
  std::fflush(stdout);
  int signal = core::WaitForShutdownSignal();
  std::fprintf(stderr, "granite coordinator: signal %d, shutting down\n", signal);
  server.AbandonMetricsAtExit();
  server.Shutdown();
  return 0;
}

}  // namespace granite::coordinator
