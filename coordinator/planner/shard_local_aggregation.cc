#include "coordinator/planner/shard_local_aggregation.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;

ShardLocalDecision DecideShardLocalAggregation(const pb::Fragment& fragment,
                                               const pb::TableSchema& schema,
                                               size_t worker_count,
                                               const core::Settings& settings) {
  auto no = [](std::string reason) { return ShardLocalDecision{false, std::move(reason)}; };
  if (!fragment.aggregate() || fragment.group_keys_size() == 0) return no("no GROUP BY keys");
  if (!settings.shard_local_aggregation) {
    return no("turned off by SETTINGS shard_local_aggregation = 0");
  }
  const pb::Source& source = fragment.source();
  if (!source.has_table() || source.table() != schema.name()) return no("not a table");
  if (schema.sharding_key_size() == 0) return no("table has no sharding key");
  if (schema.shard_count() != worker_count) {
    return no("table was sharded for " + std::to_string(schema.shard_count()) + " workers, not " +
              std::to_string(worker_count));
  }
  for (const std::string& key : schema.sharding_key()) {
    bool grouped = false;
    for (const pb::Expr& group_key : fragment.group_keys()) {
      // A plain column reference: the node is a column index into the source columns.
      grouped = grouped ||
                (group_key.node_case() == pb::Expr::kColumn &&
                 static_cast<int>(group_key.column()) < source.columns_size() &&
                 source.columns(static_cast<int>(group_key.column())) == key);
    }
    if (!grouped) return no("sharding key column " + key + " is not a GROUP BY key");
  }
  return ShardLocalDecision{true, "every group lives on one worker"};
}

bool IsWholeShardingKey(const pb::TableSchema& schema, std::string_view column,
                        size_t worker_count) {
  return worker_count > 0 && schema.shard_count() == worker_count &&
         schema.sharding_key_size() == 1 && schema.sharding_key(0) == column;
}

}  // namespace granite::coordinator
