// Tests system.workers against real gRPC servers: a worker with a placement, an older worker
// without GetInfo, a closed port and a listener that never answers.
#include "coordinator/system/workers_table.h"

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "granite/worker/v1/worker.grpc.pb.h"

namespace granite::coordinator {
namespace {

namespace pb = granite::worker::v1;
using std::chrono::milliseconds;

// Answers ListTables with `tables` and, when `info` is set, GetInfo with it (else UNIMPLEMENTED,
// like a worker built before GetInfo existed).
class FakeWorker : public pb::Worker::Service {
 public:
  FakeWorker(std::vector<uint64_t> table_rows, std::optional<pb::GetInfoResponse> info)
      : table_rows_(std::move(table_rows)), info_(std::move(info)) {}

  grpc::Status ListTables(grpc::ServerContext*, const pb::ListTablesRequest*,
                          pb::ListTablesResponse* response) override {
    for (size_t i = 0; i < table_rows_.size(); ++i) {
      pb::TableInfo* table = response->add_tables();
      table->mutable_schema()->set_name("t" + std::to_string(i));
      table->set_rows(table_rows_[i]);
    }
    return grpc::Status::OK;
  }
  grpc::Status GetInfo(grpc::ServerContext*, const pb::GetInfoRequest*,
                       pb::GetInfoResponse* response) override {
    if (!info_) return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "");
    *response = *info_;
    return grpc::Status::OK;
  }

 private:
  std::vector<uint64_t> table_rows_;
  std::optional<pb::GetInfoResponse> info_;
};

// Serves one FakeWorker on a loopback port until destroyed.
class FakeServer {
 public:
  explicit FakeServer(std::unique_ptr<FakeWorker> worker) : worker_(std::move(worker)) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(worker_.get());
    server_ = builder.BuildAndStart();
  }
  ~FakeServer() { server_->Shutdown(); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  std::unique_ptr<FakeWorker> worker_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

// Returns a loopback port that listens but never accepts: TCP connects, HTTP/2 never answers.
int SilentListener(int* fd) {
  *fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(*fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  EXPECT_EQ(listen(*fd, 16), 0);
  socklen_t length = sizeof(address);
  getsockname(*fd, reinterpret_cast<sockaddr*>(&address), &length);
  return ntohs(address.sin_port);
}

pb::GetInfoResponse PinnedInfo() {
  pb::GetInfoResponse info;
  info.set_numa_node(1);
  info.set_cpus("4-7");
  info.set_cpu_count(4);
  info.set_memory_policy("bind");
  info.set_threads(4);
  info.set_hostname("host-a");
  info.set_pid(4242);
  info.set_version("0.1.0");
  info.set_uptime_seconds(61.9);
  info.set_data_dir("/data/w0");
  return info;
}

// Returns the index of column `name`, failing the test when it is missing.
size_t ColumnIndex(const LocalTable& table, const std::string& name) {
  for (size_t i = 0; i < table.names.size(); ++i) {
    if (table.names[i] == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

std::string Text(const LocalTable& table, const std::string& name, size_t row) {
  return std::string(table.block.columns[ColumnIndex(table, name)]->StringAt(row));
}

template <typename T>
T Number(const LocalTable& table, const std::string& name, size_t row) {
  return table.block.columns[ColumnIndex(table, name)]->Get<T>(row);
}

TEST(WorkersTableTest, ShowsPlacementAndKeepsDownWorkersFromBlocking) {
  FakeServer pinned(std::make_unique<FakeWorker>(std::vector<uint64_t>{10, 5}, PinnedInfo()));
  FakeServer older(std::make_unique<FakeWorker>(std::vector<uint64_t>{7}, std::nullopt));
  int closed_fd = 0;
  std::string closed = "127.0.0.1:" + std::to_string(SilentListener(&closed_fd));
  close(closed_fd);  // connection refused
  int silent_fd = 0;
  std::string silent = "127.0.0.1:" + std::to_string(SilentListener(&silent_fd));

  WorkerSet workers({pinned.address(), older.address(), closed, silent});
  WorkersTableOptions options;
  options.info_timeout = milliseconds(500);
  options.tables_timeout = milliseconds(5000);
  auto start = std::chrono::steady_clock::now();
  LocalTable table = BuildWorkersTable(workers, options);
  auto elapsed = std::chrono::steady_clock::now() - start;
  close(silent_fd);
  // The silent worker costs one GetInfo deadline, not the ListTables one after it.
  EXPECT_LT(elapsed, std::chrono::milliseconds(3000));

  EXPECT_THAT(table.names,
              ::testing::ElementsAre("index", "address", "state", "tables", "rows", "numa_node",
                                     "cpus", "cpu_count", "memory_policy", "threads", "hostname",
                                     "pid", "version", "uptime", "data_path"));
  ASSERT_EQ(table.types.size(), table.names.size());
  ASSERT_EQ(table.block.columns.size(), table.names.size());
  ASSERT_EQ(table.block.rows(), 4u);

  // A worker with a placement.
  EXPECT_EQ(Number<uint32_t>(table, "index", 0), 0u);
  EXPECT_EQ(Text(table, "address", 0), pinned.address());
  EXPECT_EQ(Text(table, "state", 0), "up");
  EXPECT_EQ(Number<uint64_t>(table, "tables", 0), 2u);
  EXPECT_EQ(Number<uint64_t>(table, "rows", 0), 15u);
  EXPECT_EQ(Number<int32_t>(table, "numa_node", 0), 1);
  EXPECT_EQ(Text(table, "cpus", 0), "4-7");
  EXPECT_EQ(Number<uint32_t>(table, "cpu_count", 0), 4u);
  EXPECT_EQ(Text(table, "memory_policy", 0), "bind");
  EXPECT_EQ(Number<uint32_t>(table, "threads", 0), 4u);
  EXPECT_EQ(Text(table, "hostname", 0), "host-a");
  EXPECT_EQ(Number<uint32_t>(table, "pid", 0), 4242u);
  EXPECT_EQ(Text(table, "version", 0), "0.1.0");
  EXPECT_EQ(Number<uint64_t>(table, "uptime", 0), 61u);
  EXPECT_EQ(Text(table, "data_path", 0), "/data/w0");

  // An older worker: up, with its tables, but no placement.
  EXPECT_EQ(Text(table, "state", 1), "up");
  EXPECT_EQ(Number<uint64_t>(table, "rows", 1), 7u);
  EXPECT_EQ(Number<int32_t>(table, "numa_node", 1), -1);
  EXPECT_EQ(Text(table, "cpus", 1), "");
  EXPECT_EQ(Number<uint32_t>(table, "cpu_count", 1), 0u);
  EXPECT_EQ(Text(table, "memory_policy", 1), "");

  // Refused and silent workers: down, empty placement.
  for (size_t row : {2, 3}) {
    SCOPED_TRACE(row);
    EXPECT_EQ(Text(table, "state", row), "down");
    EXPECT_EQ(Number<uint64_t>(table, "tables", row), 0u);
    EXPECT_EQ(Number<int32_t>(table, "numa_node", row), -1);
    EXPECT_EQ(Text(table, "cpus", row), "");
    EXPECT_EQ(Number<uint32_t>(table, "threads", row), 0u);
    EXPECT_EQ(Text(table, "hostname", row), "");
  }
  EXPECT_EQ(Text(table, "address", 2), closed);
  EXPECT_EQ(Text(table, "address", 3), silent);
}

TEST(WorkersTableTest, FetchReportsWhoAnswered) {
  FakeServer pinned(std::make_unique<FakeWorker>(std::vector<uint64_t>{}, PinnedInfo()));
  int closed_fd = 0;
  std::string closed = "127.0.0.1:" + std::to_string(SilentListener(&closed_fd));
  close(closed_fd);
  WorkerSet workers({closed, pinned.address()});
  std::vector<WorkerStatus> status = FetchWorkerStatus(workers, WorkersTableOptions());
  ASSERT_EQ(status.size(), 2u);
  EXPECT_FALSE(status[0].up);
  EXPECT_FALSE(status[0].has_info);
  EXPECT_TRUE(status[1].up);
  EXPECT_TRUE(status[1].has_info);
  EXPECT_EQ(status[1].info.cpus, "4-7");
}

}  // namespace
}  // namespace granite::coordinator
