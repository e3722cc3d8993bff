#include "coordinator/system/replicas_tables.h"

#include "absl/strings/numbers.h"
#include "coordinator/cluster/health_prober.h"
#include "coordinator/cluster/table_name.h"
#include "coordinator/system/table_builder.h"

namespace granite::coordinator {

using core::TypeId;

namespace {

struct HostPort {
  std::string host;
  uint16_t port = 0;
};

HostPort Split(const std::string& address) {
  HostPort out;
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    out.host = address;
    return out;
  }
  out.host = address.substr(0, colon);
  uint32_t port = 0;
  if (absl::SimpleAtoi(address.substr(colon + 1), &port)) out.port = static_cast<uint16_t>(port);
  return out;
}

bool IsLocalHost(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "[::1]";
}

}  // namespace

LocalTable BuildClustersTable(const WorkerSet& workers) {
  TableBuilder t({"cluster", "shard_num", "shard_weight", "replica_num", "host_name",
                  "host_address", "port", "is_local", "errors_count", "estimated_recovery_time",
                  "worker", "state", "last_error"},
                 {TypeId::kString, TypeId::kUInt32, TypeId::kUInt32, TypeId::kUInt32,
                  TypeId::kString, TypeId::kString, TypeId::kUInt16, TypeId::kUInt8,
                  TypeId::kUInt32, TypeId::kUInt32, TypeId::kUInt32, TypeId::kString,
                  TypeId::kString});
  ReplicaMonitor* monitor = workers.monitor();
  for (size_t p = 0; p < workers.size(); ++p) {
    HostPort hp = Split(workers.address(p));
    ReplicaErrors errors = monitor->Errors(p);
    t[0].AppendString("default");
    t[1].Append<uint32_t>(static_cast<uint32_t>(workers.ShardOf(p) + 1));
    t[2].Append<uint32_t>(1);
    t[3].Append<uint32_t>(static_cast<uint32_t>(workers.ReplicaOf(p) + 1));
    t[4].AppendString(hp.host);
    t[5].AppendString(hp.host);
    t[6].Append<uint16_t>(hp.port);
    t[7].Append<uint8_t>(IsLocalHost(hp.host) ? 1 : 0);
    t[8].Append<uint32_t>(static_cast<uint32_t>(errors.errors_count));
    t[9].Append<uint32_t>(0);
    t[10].Append<uint32_t>(static_cast<uint32_t>(p));
    t[11].AppendString(monitor->Serving(p) ? "serving" : "down");
    t[12].AppendString(errors.last_error);
  }
  return t.Build();
}

LocalTable BuildReplicasTable(const WorkerSet& workers) {
  TableBuilder t({"database", "table", "shard_num", "replica_num", "host_name", "port", "worker",
                  "is_active", "total_replicas", "blocks", "blocks_behind", "retained_blocks",
                  "repaired_blocks", "last_error", "state", "total_rows", "clones"},
                 {TypeId::kString, TypeId::kString, TypeId::kUInt32, TypeId::kUInt32,
                  TypeId::kString, TypeId::kUInt16, TypeId::kUInt32, TypeId::kUInt8,
                  TypeId::kUInt32, TypeId::kUInt64, TypeId::kUInt64, TypeId::kUInt64,
                  TypeId::kUInt64, TypeId::kString, TypeId::kString, TypeId::kUInt64,
                  TypeId::kUInt64});
  if (workers.replica_count() > 1) {
    for (const ReplicaState& state : workers.monitor()->States()) {
      QualifiedTable table = SplitTableName(state.table);
      HostPort hp = Split(workers.address(state.process));
      t[0].AppendString(table.database);
      t[1].AppendString(table.table);
      t[2].Append<uint32_t>(static_cast<uint32_t>(workers.ShardOf(state.process) + 1));
      t[3].Append<uint32_t>(static_cast<uint32_t>(workers.ReplicaOf(state.process) + 1));
      t[4].AppendString(hp.host);
      t[5].Append<uint16_t>(hp.port);
      t[6].Append<uint32_t>(static_cast<uint32_t>(state.process));
      t[7].Append<uint8_t>(state.reachable ? 1 : 0);
      t[8].Append<uint32_t>(static_cast<uint32_t>(workers.replica_count()));
      t[9].Append<uint64_t>(state.blocks);
      t[10].Append<uint64_t>(state.blocks_behind);
      t[11].Append<uint64_t>(state.retained);
      t[12].Append<uint64_t>(state.repaired);
      t[13].AppendString(state.last_error);
      t[14].AppendString(state.state);
      t[15].Append<uint64_t>(state.rows);
      t[16].Append<uint64_t>(state.clones);
    }
  }
  return t.Build();
}

}  // namespace granite::coordinator
