#include "coordinator/system/workers_table.h"

#include <cmath>
#include <string>

#include "coordinator/cluster/worker_client.h"

namespace granite::coordinator {

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

}  // namespace

std::vector<WorkerStatus> FetchWorkerStatus(const WorkerSet& workers,
                                            const WorkersTableOptions& options) {
  std::vector<WorkerStatus> status(workers.size());
  const WorkerClient client(workers);
  (void)workers.CallAll([&](size_t i) {
    WorkerStatus& worker = status[i];
    absl::StatusOr<core::worker_api::ProcessInfo> info = client.GetInfo(i, options.info_timeout);
    worker.has_info = info.ok();
    if (info.ok()) worker.info = *std::move(info);
    if (!info.ok() && Unreachable(info.status())) return absl::OkStatus();
    absl::StatusOr<core::worker_api::TableListing> tables =
        client.ListTables(i, options.tables_timeout);
    worker.up = tables.ok();
    if (tables.ok()) worker.tables = *std::move(tables);
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
    for (const auto& table : worker.tables.tables) rows += table.rows;
    // A worker without GetInfo's answer: numa_node -1, empty strings and zeros.
    const core::worker_api::ProcessInfo& info = worker.info;
    c[kIndex]->Append<uint32_t>(static_cast<uint32_t>(i));
    c[kAddress]->AppendString(workers.address(i));
    c[kState]->AppendString(worker.up ? "up" : "down");
    c[kTables]->Append<uint64_t>(worker.tables.tables.size());
    c[kRows]->Append<uint64_t>(rows);
    c[kNumaNode]->Append<int32_t>(worker.has_info ? info.numa_node : -1);
    c[kCpus]->AppendString(info.cpus);
    c[kCpuCount]->Append<uint32_t>(info.cpu_count);
    c[kMemoryPolicy]->AppendString(info.memory_policy);
    c[kThreads]->Append<uint32_t>(info.threads);
    c[kHostname]->AppendString(info.hostname);
    c[kPid]->Append<uint32_t>(info.pid);
    c[kVersion]->AppendString(info.version);
    c[kUptime]->Append<uint64_t>(static_cast<uint64_t>(std::floor(info.uptime_seconds)));
    c[kDataPath]->AppendString(info.data_dir);
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
