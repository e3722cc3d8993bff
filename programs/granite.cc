// The granite multi-tool binary: granite coordinator | worker | client | local.
// Flags are absl flags; each may also come from the environment as GRANITE_<FLAG> (for containers).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "client/client.h"
#include "coordinator/coordinator_server.h"
#include "core/process.h"
#include "programs/local_cluster.h"
#include "worker/worker_server.h"

ABSL_FLAG(std::string, host, "127.0.0.1", "Address to listen on (servers) or connect to (client)");
ABSL_FLAG(int, port, -1, "Port (default: 9100 coordinator/local/client, 9200 worker; 0 = ephemeral)");
ABSL_FLAG(std::string, data, "data", "Data directory (worker, local)");
ABSL_FLAG(std::string, workers, "",
          "coordinator: comma-separated worker addresses; local: number of workers (default 2)");
ABSL_FLAG(int, threads, 0, "Worker / merge threads (0 = hardware concurrency)");
ABSL_FLAG(std::string, query, "", "client: query to run (-q)");
ABSL_FLAG(std::string, format, "", "client: output format (-f)");
ABSL_FLAG(std::string, user, "default", "client: user name");
ABSL_FLAG(std::string, password, "", "client: password");
ABSL_FLAG(bool, interactive, false, "client: interactive mode even with a query or piped input");

namespace {

constexpr char kUsage[] =
    "usage: granite <command> [flags]\n"
    "  coordinator --port 9100 --workers host:port,...   serve SQL (ClickHouse gRPC protocol)\n"
    "  worker      --port 9200 --data DIR [--threads T]   serve one shard\n"
    "  local       --workers N --data DIR --port 9100      coordinator + N workers on loopback\n"
    "  client      --host H --port P --query SQL [--format F]\n";

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

int PortOr(int fallback) {
  int port = absl::GetFlag(FLAGS_port);
  return port >= 0 ? port : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string command = argv[1];
  // Short client options, as ClickHouse's client spells them.
  std::vector<char*> args = {argv[0]};
  static std::string kQuery = "--query", kFormat = "--format";
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-q") args.push_back(kQuery.data());
    else if (arg == "-f") args.push_back(kFormat.data());
    else args.push_back(argv[i]);
  }
  ApplyEnvironment();
  absl::ParseCommandLine(static_cast<int>(args.size()), args.data());

  if (command == "client") {
    granite::client::ClientOptions options;
    options.host = absl::GetFlag(FLAGS_host);
    options.port = PortOr(9100);
    options.query = absl::GetFlag(FLAGS_query);
    options.format = absl::GetFlag(FLAGS_format);
    options.user = absl::GetFlag(FLAGS_user);
    options.password = absl::GetFlag(FLAGS_password);
    options.interactive = absl::GetFlag(FLAGS_interactive);
    return granite::client::RunClient(options);
  }
  granite::core::BlockShutdownSignals();
  if (command == "worker") {
    granite::worker::WorkerOptions options;
    options.host = absl::GetFlag(FLAGS_host);
    options.port = PortOr(9200);
    options.data_dir = absl::GetFlag(FLAGS_data);
    options.threads = absl::GetFlag(FLAGS_threads);
    return granite::worker::RunWorker(options);
  }
  if (command == "coordinator") {
    granite::coordinator::CoordinatorOptions options;
    options.host = absl::GetFlag(FLAGS_host);
    options.port = PortOr(9100);
    options.threads = absl::GetFlag(FLAGS_threads);
    for (absl::string_view address :
         absl::StrSplit(absl::GetFlag(FLAGS_workers), ',', absl::SkipEmpty())) {
      options.workers.emplace_back(address);
    }
    return granite::coordinator::RunCoordinator(options);
  }
  if (command == "local") {
    granite::LocalOptions options;
    options.host = absl::GetFlag(FLAGS_host);
    options.port = PortOr(9100);
    options.data_dir = absl::GetFlag(FLAGS_data);
    options.threads = absl::GetFlag(FLAGS_threads);
    std::string workers = absl::GetFlag(FLAGS_workers);
    options.workers = workers.empty() ? 2 : std::atoi(workers.c_str());
    return granite::RunLocalCluster(options);
  }
  std::fputs(kUsage, stderr);
  return 2;
}
