#include "coordinator/system/workers_table.h"

#include <grpcpp/grpcpp.h>

#include <cmath>
#include <string>

namespace granite::coordinator {

namespace pb = granite::worker::v1;
using core::TypeId;

namespace {

// Column order of system.workers; WorkersTable appends in this order.
enum Column {
  kIndex, kAddress, kState, kTables, kRows, kNumaNode, kCpus, kCpuCount, kMemoryPolicy,
  kThreads, kHostname, kPid, kVersion, kUptime, kDataPath, kColumnCount
};

const char* const kNames[kColumnCount] = {
    "index",         "address", "state",    "tables", "rows",    "numa_node", "cpus", "cpu_count",
    "memory_policy", "threads", "hostname", "pid",    "version", "uptime",    "data_path"};

const TypeId kTypes[kColumnCount] = {
    TypeId::kUInt32, TypeId::kString, TypeId::kString, TypeId::kUInt64, TypeId::kUInt64,
    TypeId::kInt32,  TypeId::kString, TypeId::kUInt32, TypeId::kString, TypeId::kUInt32,
    TypeId::kString, TypeId::kUInt32, TypeId::kString, TypeId::kUInt64, TypeId::kString};

// True when a call's failure means nothing answers at the address (not merely an RPC the worker
// does not implement), so further calls would only wait.
bool Unreachable(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE ||
         status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
}

std::chrono::system_clock::time_point After(std::chrono::milliseconds timeout) {
  return std::chrono::system_clock::now() + timeout;
}

}  // namespace

std::vector<WorkerStatus> FetchWorkerStatus(const WorkerSet& workers,
                                            const WorkersTableOptions& options) {
  std::vector<WorkerStatus> status(workers.size());
  (void)workers.CallAll([&](size_t i) {
    WorkerStatus& worker = status[i];
    {
      grpc::ClientContext context;
      context.set_deadline(After(options.info_timeout));
      grpc::Status info = workers.stub(i)->GetInfo(&context, pb::GetInfoRequest(), &worker.info);
      worker.has_info = info.ok();
      if (!info.ok()) worker.info.Clear();
      if (Unreachable(info)) return absl::OkStatus();
    }
    grpc::ClientContext context;
    context.set_deadline(After(options.tables_timeout));
    worker.up =
        workers.stub(i)->ListTables(&context, pb::ListTablesRequest(), &worker.tables).ok();
    return absl::OkStatus();
  });
  return status;
}

LocalTable WorkersTable(const WorkerSet& workers, const std::vector<WorkerStatus>& status) {
  std::vector<core::MutableColumnPtr> c;
  for (TypeId type : kTypes) c.push_back(std::make_shared<core::Column>(type));
  for (size_t i = 0; i < workers.size(); ++i) {
    const WorkerStatus& worker = status[i];
    uint64_t rows = 0;
    for (const auto& table : worker.tables.tables()) rows += table.rows();
    // A worker without GetInfo's answer: numa_node -1 (GetInfoResponse's 0 would claim node 0).
    const pb::GetInfoResponse& info = worker.info;
    c[kIndex]->Append<uint32_t>(static_cast<uint32_t>(i));
    c[kAddress]->AppendString(workers.address(i));
    c[kState]->AppendString(worker.up ? "up" : "down");
    c[kTables]->Append<uint64_t>(worker.tables.tables_size());
    c[kRows]->Append<uint64_t>(rows);
    c[kNumaNode]->Append<int32_t>(worker.has_info ? info.numa_node() : -1);
    c[kCpus]->AppendString(info.cpus());
    c[kCpuCount]->Append<uint32_t>(info.cpu_count());
    c[kMemoryPolicy]->AppendString(info.memory_policy());
    c[kThreads]->Append<uint32_t>(info.threads());
    c[kHostname]->AppendString(info.hostname());
    c[kPid]->Append<uint32_t>(info.pid());
    c[kVersion]->AppendString(info.version());
    c[kUptime]->Append<uint64_t>(static_cast<uint64_t>(std::floor(info.uptime_seconds())));
    c[kDataPath]->AppendString(info.data_dir());
  }
  LocalTable table;
  table.names.assign(std::begin(kNames), std::end(kNames));
  table.types.assign(std::begin(kTypes), std::end(kTypes));
  table.block.rows_without_columns = workers.size();
  for (auto& column : c) table.block.columns.push_back(std::move(column));
  return table;
}

LocalTable BuildWorkersTable(const WorkerSet& workers, const WorkersTableOptions& options) {
  return WorkersTable(workers, FetchWorkerStatus(workers, options));
}

}  // namespace granite::coordinator
