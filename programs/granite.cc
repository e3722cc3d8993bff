// The granite multi-tool binary: granite coordinator | worker | client | local | benchmark.
// Flags are absl flags; each may also come from the environment as GRANITE_<FLAG> (for containers).
// Dashes in flag names are accepted for underscores (--metrics-port = --metrics_port).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "client/benchmark.h"
#include "client/client.h"
#include "coordinator/server/coordinator_server.h"
#include "coordinator/cluster/health_prober.h"
#include "coordinator/cluster/membership.h"
#include "coordinator/cluster/topology.h"
#include "core/interserver_secret.h"
#include "core/process.h"
#include "core/memory/memory_tracker.h"
#include "core/version.h"
#include "programs/local_cluster.h"
#include "storage/uncompressed_cache.h"
#include "tools/hits_generator.h"
#include "worker/worker_server.h"

ABSL_FLAG(std::string, host, "127.0.0.1", "Address to listen on (servers) or connect to (client)");
ABSL_FLAG(int, port, -1, "Port (default: 9100 coordinator/local/client, 9200 worker; 0 = ephemeral)");
ABSL_FLAG(std::string, data, "data", "Data directory (worker, local)");
ABSL_FLAG(std::string, workers, "",
          "coordinator: comma-separated worker addresses; local: number of workers (default 2)");
ABSL_FLAG(std::string, shards, "",
          "coordinator: shards separated by ';', each shard's replicas by ',' "
          "('h1:9200,h2:9200;h3:9200,h4:9200'); instead of --workers");
ABSL_FLAG(int, replicas, 1,
          "coordinator: replicas per shard, --workers listed shard-major; local: worker processes "
          "per shard (--workers N shards x R replicas)");
ABSL_FLAG(std::string, etcd, "",
          "coordinator: etcd endpoints host:port[,host:port] holding the catalog and membership "
          "(docs/adr/0005-etcd-coordination.md); local: the same, or 'auto' to start an etcd in "
          "--data (the default with --replicas > 1), or 'none'");
ABSL_FLAG(std::string, etcd_prefix, "",
          "coordinator, local: prefix of granite's keys in etcd (default /granite/default)");
ABSL_FLAG(int, threads, 0,
          "Worker / merge threads (0 = one per allowed CPU; local: the allowed CPUs shared out "
          "among the workers)");
ABSL_FLAG(std::string, query, "", "client: query to run (-q)");
ABSL_FLAG(std::string, format, "", "client: output format (-f)");
ABSL_FLAG(std::string, user, "default", "client: user name");
ABSL_FLAG(std::string, password, "", "client: password");
ABSL_FLAG(bool, interactive, false, "client: interactive mode even with a query or piped input");
ABSL_FLAG(std::string, database, "", "client: the database of every query (-d)");
ABSL_FLAG(bool, time, false, "client: print each query's elapsed seconds to stderr (-t)");
ABSL_FLAG(bool, multiquery, true,
          "client: accepted for clickhouse-client compatibility (-n); several statements "
          "separated by ';' always run");
ABSL_FLAG(int, metrics_port, -1,
          "Prometheus /metrics port (coordinator, worker; local: coordinator on P, worker i on "
          "P+1+i); -1 = off, 0 = ephemeral");
ABSL_FLAG(int, http_port, -2,
          "ClickHouse HTTP interface port (coordinator, local): default 8123, or ephemeral when "
          "--port is 0; -1 = off, 0 = ephemeral");
ABSL_FLAG(std::string, numa_node, "",
          "worker: NUMA node to run on: a number, \"auto\" (the node of the allowed CPUs) or empty "
          "(not pinned)");
ABSL_FLAG(int, shutdown_timeout, 30,
          "Seconds that SIGTERM leaves running queries and fragments before cancelling them");
ABSL_FLAG(int, max_concurrent_select_queries, -1,
          "coordinator, local: SELECTs over tables that execute at once, the rest wait in a FIFO "
          "queue (INSERT, DDL and system tables never wait); -1 = 2 x hardware threads, 0 = no "
          "limit");
ABSL_FLAG(int, max_queued_select_queries, 10000,
          "coordinator, local: SELECTs that may wait for a slot; beyond, "
          "TOO_MANY_SIMULTANEOUS_QUERIES");
ABSL_FLAG(int, query_thread_nice, -1,
          "Nice value (0-19) added to the threads that do heavy work (SELECTs: worker fragment "
          "pool and handlers, coordinator merge pool and SELECT handlers; bulk inserts; merges), "
          "so small inserts win the CPU; 20 = SCHED_IDLE (they run only when nothing else wants "
          "the CPU); -1 = automatic: SCHED_IDLE, and one SELECT slot per hardware thread, only "
          "while small inserts arrive (one in the last second); 0 = off");
ABSL_FLAG(int64_t, uncompressed_cache_size, -1,
          "worker, local: bytes of decompressed granule blocks a worker keeps so hot scans skip "
          "pread, checksum and LZ4 (SETTINGS use_uncompressed_cache = 0 bypasses it); -1 = 1/8 of "
          "the smaller of RAM and the cgroup limit, at most 8 GiB and (worker) a quarter of "
          "max_server_memory_usage; 0 = off; local: the amount is shared among the workers");
ABSL_FLAG(int64_t, max_server_memory_usage, 0,
          "coordinator, worker: bytes all queries of this process may hold before the one "
          "allocating fails with MEMORY_LIMIT_EXCEEDED; 0 = "
          "max_server_memory_usage_to_ram_ratio of the smaller of RAM and the cgroup limit; "
          "local: the amount is shared evenly by the coordinator and the workers");
ABSL_FLAG(double, max_server_memory_usage_to_ram_ratio, 0.9,
          "the default max_server_memory_usage as a fraction of RAM (or the cgroup limit)");
ABSL_FLAG(std::string, users_file, "",
          "coordinator, local: the users file (docs/users.md); without one only the user "
          "`default`, without a password, from loopback — and the coordinator must listen on a "
          "loopback address");
ABSL_FLAG(std::string, tls_cert, "",
          "coordinator, local: PEM certificate of the client port (TLS); client: the client's "
          "certificate for mutual TLS");
ABSL_FLAG(std::string, tls_key, "", "The private key (PEM) of --tls_cert");
ABSL_FLAG(std::string, tls_ca, "",
          "coordinator, local: PEM CA whose certificates clients must present (mutual TLS)");
ABSL_FLAG(std::string, interserver_secret, "",
          "coordinator, worker: secret the coordinator sends with every worker call and workers "
          "require (also GRANITE_INTERSERVER_SECRET); local: generated when not given");
ABSL_FLAG(std::string, interserver_secret_file, "",
          "coordinator, worker, local: file holding the inter-server secret");
ABSL_FLAG(bool, secure, false, "client: connect with TLS");
ABSL_FLAG(std::string, ca, "",
          "client: PEM CA to verify the server's certificate with (default: the system's roots)");
ABSL_FLAG(int, concurrency, 1, "benchmark: concurrent clients (-c)");
ABSL_FLAG(uint64_t, iterations, 0, "benchmark: total queries to run, 0 = no limit (-i)");
ABSL_FLAG(double, timelimit, 0, "benchmark: seconds to run, 0 = no limit (-t)");
ABSL_FLAG(std::string, queries_file, "", "benchmark: file of queries, one per line");
ABSL_FLAG(bool, server_report, true,
          "benchmark: report the servers' CPU time and lock waits during the run");
ABSL_FLAG(bool, json, false, "benchmark: print the report as JSON");
ABSL_FLAG(int, client_threads, 0,
          "benchmark: threads that drive the clients (asynchronous gRPC), 0 = one per core");

namespace {

constexpr char kClientUsage[] =
    "usage: granite client [flags]   (ClickHouse's gRPC protocol; also talks to ClickHouse)\n"
    "  --host H              server address (default 127.0.0.1)\n"
    "  --port P              gRPC port (default 9100)\n"
    "  -q, --query SQL       run SQL (statements separated by ';') and exit; stdin feeds an\n"
    "                        INSERT ... FORMAT; without -q: interactive on a terminal, else a\n"
    "                        script from stdin\n"
    "  -f, --format F        output format (default TabSeparated; PrettyCompact interactively)\n"
    "  -d, --database DB     database of every query\n"
    "  -t, --time            print each query's elapsed seconds to stderr\n"
    "  -n, --multiquery      accepted; several statements always run\n"
    "  --param_NAME=VALUE    value of {NAME:Type} in the queries\n"
    "  --user U, --password P\n"
    "  --interactive         interactive loop even with a query or piped stdin\n"
    "  --version, -h/--help\n"
    "Interactive: line editing and history (~/.granite-client-history), statements may span\n"
    "lines and end with ';' or \\G (vertical output); Ctrl+C cancels the running query.\n";

constexpr char kUsage[] =
    "usage: granite <command> [flags]\n"
    "  coordinator --port 9100 --workers host:port,...   serve SQL (ClickHouse gRPC protocol)\n"
    "              [--replicas R | --shards 'a:9200,b:9200;c:9200,d:9200']  replicated shards\n"
    "              [--etcd host:2379,... [--etcd_prefix /granite/NAME]]  catalog in etcd\n"
    "  worker      --port 9200 --data DIR [--threads T]   serve one shard\n"
    "  local       --workers N --data DIR --port 9100      coordinator + N workers on loopback\n"
    "              [--replicas R]                          N shards x R replicas (N*R workers)\n"
    "              [--etcd auto|none|host:2379]            etcd (auto: started in DIR/etcd)\n"
    "  client      --host H --port P --query SQL [--format F] [--user U --password P]\n"
    "              [--secure [--ca CA.pem] [--tls_cert C --tls_key K]]\n"
    "  benchmark   --host H --port P --concurrency N [--query SQL | --queries_file F | < F]\n"
    "              [--iterations N] [--timelimit S] [--json] [--client_threads T]\n"
    "                                                      load generator\n"
    "servers and local take --metrics-port P to serve Prometheus metrics; coordinator and local\n"
    "serve ClickHouse's HTTP interface on --http-port (default 8123) and take --users_file F and\n"
    "--tls_cert C --tls_key K [--tls_ca CA] (docs/users.md).\n";

// Applies GRANITE_<NAME> environment variables as flag values (command-line flags still win).
void ApplyEnvironment() {
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    std::string env = "GRANITE_" + absl::AsciiStrToUpper(std::string(name));
    const char* value = std::getenv(env.c_str());
    std::string error;
    if (value != nullptr && !flag->ParseFrom(value, &error)) {
      std::fprintf(stderr, "granite: bad %s: %s\n", env.c_str(), error.c_str());
    }
  }
}

// Returns true for "--name-with-dashes[=value]": a letter after "--", then only letters, digits,
// '_' and '-' up to '=' or the end, with a '-' among them. Anything else — a query value such as
// "-- comment\nSELECT 5-2" after -q — is left as it is.
bool LooksLikeDashedFlag(const std::string& arg) {
  if (arg.size() < 3 || arg.compare(0, 2, "--") != 0 || !absl::ascii_isalpha(arg[2])) return false;
  size_t name_end = std::min(arg.find('='), arg.size());
  bool dash = false;
  for (size_t i = 2; i < name_end; ++i) {
    char c = arg[i];
    if (c == '-') dash = true;
    else if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return dash;
}

int PortOr(int fallback) {
  int port = absl::GetFlag(FLAGS_port);
  return port >= 0 ? port : fallback;
}

// Returns the HTTP interface's port: --http_port, else 8123 as ClickHouse, or an ephemeral one
// when the gRPC port is ephemeral (test clusters, many at once on one machine).
int HttpPortFor(int grpc_port) {
  int port = absl::GetFlag(FLAGS_http_port);
  if (port >= -1) return port;
  return grpc_port == 0 ? 0 : 8123;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string command = argv[1];
  // Debian builds abseil without NDEBUG, so every absl::Mutex acquisition (all of gRPC's locks)
  // also records lock order in a process-wide graph under one global lock; with hundreds of gRPC
  // threads that was a visible share of the coordinator's CPU. Release abseil never does it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // gen has its own flags (--rows, --seed), parsed before absl sees them.
  if (command == "gen") return granite::tools::RunGenerator(argc - 2, argv + 2);
  // Short client options, as ClickHouse's client spells them.
  std::vector<char*> args = {argv[0]};
  static std::string kQuery = "--query", kFormat = "--format", kConcurrency = "--concurrency",
                     kIterations = "--iterations", kTimelimit = "--timelimit",
                     kDatabase = "--database", kTime = "--time", kMultiquery = "--multiquery";
  static std::vector<std::string> renamed;
  renamed.reserve(argc);
  bool benchmark = command == "benchmark";
  bool query_given = false;  // -q / --query present, even empty or only comments
  const bool client = command == "client";
  std::map<std::string, std::string> client_params;  // --param_NAME=VALUE / --param_NAME VALUE
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (client && (arg == "-h" || arg == "--help")) {
      std::fputs(kClientUsage, stdout);
      return 0;
    }
    if (client && arg == "--version") {
      std::printf("granite client version %s\n", granite::core::kGraniteVersion);
      return 0;
    }
    if (client && arg.rfind("--param_", 0) == 0) {
      size_t eq = arg.find('=');
      std::string name = arg.substr(8, eq == std::string::npos ? std::string::npos : eq - 8);
      if (eq != std::string::npos) {
        client_params[name] = arg.substr(eq + 1);
      } else if (i + 1 < argc) {
        client_params[name] = argv[++i];
      }
      continue;
    }
    if (arg == "-q" || arg == "--query" || arg.rfind("--query=", 0) == 0) query_given = true;
    if (arg == "-q") args.push_back(kQuery.data());
    else if (arg == "-f") args.push_back(kFormat.data());
    else if (client && arg == "-d") args.push_back(kDatabase.data());
    else if (client && arg == "-t") args.push_back(kTime.data());
    else if (client && arg == "-n") args.push_back(kMultiquery.data());
    else if (benchmark && arg == "-c") args.push_back(kConcurrency.data());
    else if (benchmark && arg == "-i") args.push_back(kIterations.data());
    else if (benchmark && arg == "-t") args.push_back(kTimelimit.data());
    else if (LooksLikeDashedFlag(arg)) {
      // --metrics-port[=P] → --metrics_port[=P]: dashes only in the name part.
      size_t name_end = std::min(arg.find('='), arg.size());
      std::replace(arg.begin() + 2, arg.begin() + name_end, '-', '_');
      renamed.push_back(arg);
      args.push_back(renamed.back().data());
    } else {
      args.push_back(argv[i]);
    }
  }
  ApplyEnvironment();
  absl::SetProgramUsageMessage(kUsage);
  absl::ParseCommandLine(static_cast<int>(args.size()), args.data());

  if (command == "client") {
    granite::client::ClientOptions options;
    options.host = absl::GetFlag(FLAGS_host);
    options.port = PortOr(9100);
    options.query = absl::GetFlag(FLAGS_query);
    options.query_given = query_given || std::getenv("GRANITE_QUERY") != nullptr;
    options.format = absl::GetFlag(FLAGS_format);
    options.user = absl::GetFlag(FLAGS_user);
    options.password = absl::GetFlag(FLAGS_password);
    options.interactive = absl::GetFlag(FLAGS_interactive);
    options.database = absl::GetFlag(FLAGS_database);
    options.print_time = absl::GetFlag(FLAGS_time);
    options.params = std::move(client_params);
    options.secure = absl::GetFlag(FLAGS_secure);
    options.ca_file = absl::GetFlag(FLAGS_ca);
    options.cert_file = absl::GetFlag(FLAGS_tls_cert);
    options.key_file = absl::GetFlag(FLAGS_tls_key);
    return granite::client::RunClient(options);
  }
  if (command == "benchmark") {
    granite::client::BenchmarkOptions options;
    options.host = absl::GetFlag(FLAGS_host);
    options.port = PortOr(9100);
    options.user = absl::GetFlag(FLAGS_user);
    options.password = absl::GetFlag(FLAGS_password);
    options.concurrency = absl::GetFlag(FLAGS_concurrency);
    options.iterations = absl::GetFlag(FLAGS_iterations);
    options.timelimit_seconds = absl::GetFlag(FLAGS_timelimit);
    options.server_report = absl::GetFlag(FLAGS_server_report);
    options.client_threads = absl::GetFlag(FLAGS_client_threads);
    options.json = absl::GetFlag(FLAGS_json);
    std::string file = absl::GetFlag(FLAGS_queries_file);
    if (!absl::GetFlag(FLAGS_query).empty()) {
      options.queries.push_back(absl::GetFlag(FLAGS_query));
    } else if (!file.empty()) {
      std::ifstream in(file);
      if (!in) {
        std::fprintf(stderr, "granite benchmark: cannot read --queries_file %s\n", file.c_str());
        return 1;
      }
      options.queries = granite::client::ReadQueries(in);
    } else {
      options.queries = granite::client::ReadQueries(std::cin);
    }
    return granite::client::RunBenchmark(options);
  }
  granite::core::BlockShutdownSignals();
  // Every server command: the secret of the coordinator's calls to the workers.
  absl::StatusOr<std::string> secret = granite::core::ResolveInterServerSecret(
      absl::GetFlag(FLAGS_interserver_secret), absl::GetFlag(FLAGS_interserver_secret_file));
  if (!secret.ok()) {
    std::fprintf(stderr, "granite %s: %s\n", command.c_str(),
                 std::string(secret.status().message()).c_str());
    return 2;
  }
  if (command == "local" && secret->empty()) {
    // The launcher's workers get it through the environment (never on a command line, which
    // every local user can read); they are its children.
    *secret = granite::core::GenerateInterServerSecret();
  }
  if (command == "local") setenv(granite::core::kInterServerSecretEnv, secret->c_str(), 1);
  granite::core::SetInterServerSecret(*secret);
  // Every process stops queries at its own limit (core/memory/memory_tracker.h).
  const int64_t server_memory = absl::GetFlag(FLAGS_max_server_memory_usage);
  granite::core::ServerMemoryTracker().set_limit(
      server_memory > 0 ? server_memory
                        : granite::core::DefaultServerMemoryLimit(
                              absl::GetFlag(FLAGS_max_server_memory_usage_to_ram_ratio)));
  if (command == "worker") {
    granite::worker::WorkerOptions options;
    options.host = absl::GetFlag(FLAGS_host);
    options.port = PortOr(9200);
    options.data_dir = absl::GetFlag(FLAGS_data);
    options.threads = absl::GetFlag(FLAGS_threads);
    options.metrics_port = absl::GetFlag(FLAGS_metrics_port);
    options.numa_node = absl::GetFlag(FLAGS_numa_node);
    options.shutdown_timeout_seconds = absl::GetFlag(FLAGS_shutdown_timeout);
    options.query_thread_nice = absl::GetFlag(FLAGS_query_thread_nice);
    int64_t cache_bytes = absl::GetFlag(FLAGS_uncompressed_cache_size);
    if (cache_bytes < 0) {
      // A full cache leaves queries at least three quarters of the process's memory limit.
      cache_bytes = static_cast<int64_t>(granite::storage::UncompressedCache::DefaultCapacity());
      const int64_t limit = granite::core::ServerMemoryTracker().limit();
      if (limit > 0) cache_bytes = std::min(cache_bytes, limit / 4);
    }
    granite::storage::UncompressedCache::Global().SetCapacity(cache_bytes);
    return granite::worker::RunWorker(options);
  }
  if (command == "coordinator") {
    granite::coordinator::CoordinatorOptions options;
    options.host = absl::GetFlag(FLAGS_host);
    options.port = PortOr(9100);
    options.threads = absl::GetFlag(FLAGS_threads);
    options.metrics_port = absl::GetFlag(FLAGS_metrics_port);
    options.http_port = HttpPortFor(options.port);
    options.max_concurrent_select_queries = absl::GetFlag(FLAGS_max_concurrent_select_queries);
    options.max_queued_select_queries =
        static_cast<size_t>(std::max(0, absl::GetFlag(FLAGS_max_queued_select_queries)));
    options.query_thread_nice = absl::GetFlag(FLAGS_query_thread_nice);
    options.users_file = absl::GetFlag(FLAGS_users_file);
    options.tls_cert = absl::GetFlag(FLAGS_tls_cert);
    options.tls_key = absl::GetFlag(FLAGS_tls_key);
    options.tls_ca = absl::GetFlag(FLAGS_tls_ca);
    options.etcd = absl::GetFlag(FLAGS_etcd);
    options.etcd_prefix = absl::GetFlag(FLAGS_etcd_prefix);
    auto topology = granite::coordinator::ParseTopology(
        absl::GetFlag(FLAGS_shards), absl::GetFlag(FLAGS_workers),
        static_cast<size_t>(std::max(0, absl::GetFlag(FLAGS_replicas))));
    if (!topology.ok()) {
      std::fprintf(stderr, "granite coordinator: %s\n",
                   std::string(topology.status().message()).c_str());
      return 2;
    }
    options.workers = topology->addresses;
    options.replicas = topology->replicas;
    return granite::coordinator::RunCoordinator(options);
  }
  if (command == "health") {
    std::string host = absl::GetFlag(FLAGS_host);
    if (host == "0.0.0.0" || host == "::" || host == "[::]") host = "127.0.0.1";
    return granite::coordinator::RunHealthCheck(host + ":" + std::to_string(PortOr(9100)),
                                                std::chrono::seconds(2));
  }
  if (command == "local") {
    granite::LocalOptions options;
    options.host = absl::GetFlag(FLAGS_host);
    options.port = PortOr(9100);
    options.data_dir = absl::GetFlag(FLAGS_data);
    options.threads = absl::GetFlag(FLAGS_threads);
    options.metrics_port = absl::GetFlag(FLAGS_metrics_port);
    options.http_port = HttpPortFor(options.port);
    options.max_concurrent_select_queries = absl::GetFlag(FLAGS_max_concurrent_select_queries);
    options.max_queued_select_queries =
        static_cast<size_t>(std::max(0, absl::GetFlag(FLAGS_max_queued_select_queries)));
    options.query_thread_nice = absl::GetFlag(FLAGS_query_thread_nice);
    options.uncompressed_cache_size = absl::GetFlag(FLAGS_uncompressed_cache_size);
    options.max_server_memory_usage = absl::GetFlag(FLAGS_max_server_memory_usage);
    options.users_file = absl::GetFlag(FLAGS_users_file);
    options.tls_cert = absl::GetFlag(FLAGS_tls_cert);
    options.tls_key = absl::GetFlag(FLAGS_tls_key);
    options.tls_ca = absl::GetFlag(FLAGS_tls_ca);
    std::string workers = absl::GetFlag(FLAGS_workers);
    options.workers = workers.empty() ? 2 : std::atoi(workers.c_str());
    options.replicas = std::max(1, absl::GetFlag(FLAGS_replicas));
    options.etcd = absl::GetFlag(FLAGS_etcd);
    if (options.etcd.empty()) options.etcd = options.replicas > 1 ? "auto" : "none";
    options.etcd_prefix = absl::GetFlag(FLAGS_etcd_prefix);
    return granite::RunLocalCluster(options);
  }
  std::fputs(kUsage, stderr);
  return 2;
}
