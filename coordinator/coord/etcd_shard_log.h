// EtcdShardLog: the shards' logs of committed insert blocks in etcd (cluster/shard_log.h), one
// key per block: P/shards/<shard>/blocks/<table>/<block name>, value empty; a key's
// create_revision orders the blocks. An INSERT's blocks are put in one transaction; trimming
// deletes the oldest in transactions of at most kOpsPerTxn operations (etcd's default
// --max-txn-ops is 128). Block data never goes to etcd.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "coordinator/cluster/shard_log.h"
#include "coordinator/coord/etcd_client.h"

namespace granite::coordinator {

// Thread-safety: as EtcdClient: safe for concurrent use.
class EtcdShardLog final : public ShardLog {
 public:
  static constexpr size_t kOpsPerTxn = 100;

  // REQUIRES: `client` outlives the log. `prefix` is the cluster's (e.g. /granite/default).
  EtcdShardLog(EtcdClient* client, std::string prefix)
      : client_(client), prefix_(std::move(prefix)) {}

  absl::Status Record(const std::string& table,
                      const std::vector<std::pair<size_t, std::string>>& blocks) override;
  absl::StatusOr<std::vector<std::string>> List(const std::string& table, size_t shard) override;
  absl::Status Forget(const std::string& table, size_t shard,
                      const std::vector<std::string>& names) override;

 private:
  std::string Dir(const std::string& table, size_t shard) const;

  EtcdClient* const client_;
  const std::string prefix_;
};

}  // namespace granite::coordinator
