#include "client/benchmark_clients.h"

#include <algorithm>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "client/query_runner.h"
#include "clickhouse/grpc/clickhouse_grpc.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace granite::client {
namespace {

using clickhouse::grpc::QueryInfo;
using clickhouse::grpc::Result;
using Clock = std::chrono::steady_clock;

// What the clients share: the prepared queries and the counter that hands them out.
struct SharedLoad {
  const BenchmarkClientsOptions* options;
  std::vector<QueryInfo> infos;  // one per query text, built once
  std::atomic<uint64_t> next{0};
};

// One client: its connection and its current call. It is the tag of every operation of the call;
// `step` says which operation a completion belongs to (a call has one operation pending at a time).
struct Client {
  enum class Step { kStart, kWrite, kRead, kFinish };

  int index = 0;
  std::unique_ptr<clickhouse::grpc::ClickHouse::Stub> stub;
  ClientResult result;
  // The current call.
  Step step = Step::kStart;
  Clock::time_point started;
  std::unique_ptr<grpc::ClientContext> context;
  std::unique_ptr<grpc::ClientAsyncReaderWriter<QueryInfo, Result>> stream;
  uint64_t query = 0;  // index into SharedLoad::infos
  Result message;
  grpc::Status status;
  bool has_exception = false;
  std::string exception;
  uint64_t call_rows_read = 0;
};

// Starts the client's next query on `cq`; returns false (starting nothing) when the run is over.
bool StartQuery(SharedLoad* load, Client* client, grpc::CompletionQueue* cq) {
  const BenchmarkClientsOptions& options = *load->options;
  if (options.stop != nullptr && options.stop->load(std::memory_order_relaxed)) return false;
  if (Clock::now() >= options.deadline) return false;
  uint64_t i = load->next.fetch_add(1, std::memory_order_relaxed);
  if (options.iterations > 0 && i >= options.iterations) return false;
  client->started = Clock::now();
  client->context = std::make_unique<grpc::ClientContext>();
  client->has_exception = false;
  client->exception.clear();
  client->call_rows_read = 0;
  client->status = grpc::Status::OK;
  client->stream = client->stub->PrepareAsyncExecuteQueryWithStreamIO(client->context.get(), cq);
  client->step = Client::Step::kStart;
  client->stream->StartCall(client);
  client->query = i % load->infos.size();
  return true;
}

// Adds one streamed Result to the current call, as query_runner.cc's Absorb does for what the
// benchmark reads: progress rows and the exception.
void Absorb(const Result& message, Client* client) {
  if (message.has_progress()) client->call_rows_read += message.progress().read_rows();
  if (message.has_exception()) {
    client->has_exception = true;
    client->exception = absl::StrCat("Code: ", message.exception().code(), ". ",
                                     message.exception().display_text());
  }
}

// Records the finished call; the same rules as query_runner.cc's ExecuteQuery: a transport error
// counts unless the server sent an exception (which then is the error).
void Record(Client* client) {
  ClientResult& out = client->result;
  out.latencies_ms.push_back(
      std::chrono::duration<double, std::milli>(Clock::now() - client->started).count());
  std::string error;
  if (client->has_exception) {
    error = client->exception;
  } else if (!client->status.ok()) {
    error = client->status.error_message();
    if (error.empty()) error = absl::StrCat("gRPC status ", client->status.error_code());
  } else {
    out.rows_read += client->call_rows_read;
  }
  if (!error.empty() && out.errors++ == 0) out.first_error = error;
  client->stream.reset();
  client->context.reset();
}

// Advances `client` after the completion of its pending operation (`ok` as the queue said);
// returns false once the client has no more queries to run.
bool Advance(SharedLoad* load, Client* client, bool ok, grpc::CompletionQueue* cq) {
  switch (client->step) {
    case Client::Step::kStart: {
      if (ok) {
        client->step = Client::Step::kWrite;
        client->stream->WriteLast(load->infos[client->query], grpc::WriteOptions(), client);
        return true;
      }
      client->step = Client::Step::kFinish;
      client->stream->Finish(&client->status, client);
      return true;
    }
    case Client::Step::kWrite:
      // A failed write shows in the status that Finish reports; reading first drains the call.
      client->step = Client::Step::kRead;
      client->stream->Read(&client->message, client);
      return true;
    case Client::Step::kRead:
      if (ok) {
        Absorb(client->message, client);
        client->stream->Read(&client->message, client);
        return true;
      }
      client->step = Client::Step::kFinish;
      client->stream->Finish(&client->status, client);
      return true;
    case Client::Step::kFinish:
      Record(client);
      return StartQuery(load, client, cq);
  }
  return false;
}

// Drives `clients` on one completion queue until all of them are done.
void DriveClients(SharedLoad* load, std::vector<Client*> clients) {
  grpc::CompletionQueue cq;
  size_t active = 0;
  for (Client* client : clients) active += StartQuery(load, client, &cq) ? 1 : 0;
  if (active == 0) cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
    Client* client = static_cast<Client*>(tag);
    if (!Advance(load, client, ok, &cq) && --active == 0) cq.Shutdown();
  }
}

}  // namespace

std::shared_ptr<grpc::Channel> NewBenchmarkConnection(const std::string& host, int port,
                                                     int index) {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  arguments.SetInt("granite.benchmark_connection", index);
  return grpc::CreateCustomChannel(HostPort(host, port), grpc::InsecureChannelCredentials(),
                                   arguments);
}

std::vector<ClientResult> RunBenchmarkClients(const BenchmarkClientsOptions& options) {
  SharedLoad load;
  load.options = &options;
  for (const std::string& sql : options.queries) {
    QueryInfo info;
    info.set_query(sql);
    info.set_user_name(options.user);
    info.set_password(options.password);
    info.set_output_format("TabSeparated");
    load.infos.push_back(std::move(info));
  }
  int concurrency = std::max(1, options.concurrency);
  std::vector<Client> clients(concurrency);
  for (int i = 0; i < concurrency; ++i) {
    clients[i].index = i;
    clients[i].stub = clickhouse::grpc::ClickHouse::NewStub(NewBenchmarkConnection(options.host, options.port, i));
  }
  int threads = std::clamp(options.threads, 1, concurrency);
  std::vector<std::vector<Client*>> groups(threads);
  for (int i = 0; i < concurrency; ++i) groups[i % threads].push_back(&clients[i]);
  std::vector<std::thread> drivers;
  for (int t = 1; t < threads; ++t) drivers.emplace_back(DriveClients, &load, groups[t]);
  DriveClients(&load, groups[0]);
  for (std::thread& driver : drivers) driver.join();

  std::vector<ClientResult> results;
  results.reserve(clients.size());
  for (Client& client : clients) results.push_back(std::move(client.result));
  return results;
}

}  // namespace granite::client
