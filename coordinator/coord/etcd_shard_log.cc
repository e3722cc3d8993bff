#include "coordinator/coord/etcd_shard_log.h"

#include <algorithm>

#include "core/status_macros.h"

namespace granite::coordinator {

std::string EtcdShardLog::Dir(const std::string& table, size_t shard) const {
  return prefix_ + "/shards/" + std::to_string(shard) + "/blocks/" + table + "/";
}

absl::Status EtcdShardLog::Record(const std::string& table,
                                  const std::vector<std::pair<size_t, std::string>>& blocks) {
  for (size_t i = 0; i < blocks.size(); i += kOpsPerTxn) {
    std::vector<EtcdOp> puts;
    for (size_t j = i; j < std::min(blocks.size(), i + kOpsPerTxn); ++j) {
      puts.push_back(EtcdOp::Put(Dir(table, blocks[j].first) + blocks[j].second, ""));
    }
    RETURN_IF_ERROR(client_->Txn({}, puts).status());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> EtcdShardLog::List(const std::string& table,
                                                           size_t shard) {
  const std::string dir = Dir(table, shard);
  ASSIGN_OR_RETURN(EtcdRange range, client_->GetPrefix(dir));
  std::sort(range.kvs.begin(), range.kvs.end(), [](const EtcdKeyValue& a, const EtcdKeyValue& b) {
    return a.create_revision < b.create_revision;
  });
  std::vector<std::string> names;
  for (const EtcdKeyValue& kv : range.kvs) {
    std::string name = kv.key.substr(dir.size());
    if (name.find('/') == std::string::npos) names.push_back(std::move(name));  // not a subtable
  }
  return names;
}

absl::Status EtcdShardLog::Forget(const std::string& table, size_t shard,
                                  const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); i += kOpsPerTxn) {
    std::vector<EtcdOp> deletes;
    for (size_t j = i; j < std::min(names.size(), i + kOpsPerTxn); ++j) {
      deletes.push_back(EtcdOp::Delete(Dir(table, shard) + names[j]));
    }
    RETURN_IF_ERROR(client_->Txn({}, deletes).status());
  }
  return absl::OkStatus();
}

}  // namespace granite::coordinator
