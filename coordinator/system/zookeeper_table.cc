#include "coordinator/system/zookeeper_table.h"

#include <map>
#include <string>

#include "coordinator/system/table_builder.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator {

namespace {

using core::TypeId;

constexpr core::ErrorCode kNoZookeeper = static_cast<core::ErrorCode>(225);

struct Node {
  const EtcdKeyValue* kv = nullptr;  // null for a node that is only a prefix of keys
  int32_t children = 0;
};

// Splits "/a/b/c" into its parent "/a/b" and name "c" (the parent of "/a" is "/").
std::pair<std::string, std::string> ParentAndName(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {"/", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

}  // namespace

absl::StatusOr<LocalTable> BuildZookeeperTable(const EtcdCatalog* etcd) {
  if (etcd == nullptr) {
    return core::Error(kNoZookeeper,
                       "system.zookeeper needs etcd: this coordinator runs without --etcd");
  }
  ASSIGN_OR_RETURN(EtcdRange range, etcd->client()->GetPrefix(etcd->prefix() + "/"));
  std::map<std::string, Node> nodes;  // by full path
  for (const EtcdKeyValue& kv : range.kvs) {
    nodes[kv.key].kv = &kv;
    for (std::string path = ParentAndName(kv.key).first; path != "/" && !path.empty();
         path = ParentAndName(path).first) {
      nodes.try_emplace(path);
    }
  }
  for (const auto& [path, node] : nodes) {
    std::string parent = ParentAndName(path).first;
    auto found = nodes.find(parent);
    if (found != nodes.end()) ++found->second.children;
  }
  TableBuilder table({"name", "value", "czxid", "mzxid", "version", "ephemeralOwner",
                      "dataLength", "numChildren", "path"},
                     {TypeId::kString, TypeId::kString, TypeId::kInt64, TypeId::kInt64,
                      TypeId::kInt32, TypeId::kInt64, TypeId::kInt32, TypeId::kInt32,
                      TypeId::kString});
  for (const auto& [path, node] : nodes) {
    auto [parent, name] = ParentAndName(path);
    const EtcdKeyValue empty;
    const EtcdKeyValue& kv = node.kv != nullptr ? *node.kv : empty;
    table[0].AppendString(name);
    table[1].AppendString(kv.value);
    table[2].Append<int64_t>(kv.create_revision);
    table[3].Append<int64_t>(kv.mod_revision);
    table[4].Append<int32_t>(static_cast<int32_t>(kv.version));
    table[5].Append<int64_t>(kv.lease);
    table[6].Append<int32_t>(static_cast<int32_t>(kv.value.size()));
    table[7].Append<int32_t>(node.children);
    table[8].AppendString(parent);
  }
  return table.Build();
}

}  // namespace granite::coordinator
