// system.zookeeper: the coordinator's keys in etcd (--etcd, coordinator/coord/etcd_catalog.h)
// shown as ClickHouse shows its Keeper's nodes: `WHERE path = '/granite/default'` lists that
// node's children. etcd's keys are flat, so every '/'-separated prefix of a key is shown as a
// node too (with an empty value). Unlike ClickHouse, a query without a path condition lists every
// node under the coordinator's prefix instead of failing.
#pragma once

#include "absl/status/statusor.h"
#include "coordinator/coord/etcd_catalog.h"
#include "coordinator/planner/binder.h"

namespace granite::coordinator {

// Columns: name, value, czxid (the key's create revision), mzxid (mod revision), version,
// ephemeralOwner (its lease, 0 if none), dataLength, numChildren, path (the parent node).
// Errors: NO_ZOOKEEPER (225) without etcd; KEEPER_EXCEPTION when etcd does not answer.
absl::StatusOr<LocalTable> BuildZookeeperTable(const EtcdCatalog* etcd);

}  // namespace granite::coordinator
