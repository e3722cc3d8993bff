// system.* tables, built on demand from the catalog, the workers and the query registry:
//   tables, parts                     the catalog and what the workers store
//   workers                           health, tables and placement of each worker
//                                     (workers_table.h)
//   clusters, replicas                shards x replicas, each replica's state and lag
//                                     (replicas_tables.h)
//   metrics, events, locks            current values, event counters and named-lock statistics of
//                                     the coordinator and (via GetMetrics) every worker; column
//                                     `worker` is "coordinator" or the worker's index
//   processes, query_log              running queries and recently finished ones
//   users                             the coordinator's users (access/users_table.h)
//   one, databases, columns           the catalog alone (catalog_tables.h)
//   functions                         scalar and aggregate functions (functions_table.h)
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "coordinator/planner/binder.h"
#include "coordinator/cluster/catalog.h"
#include "coordinator/server/query_registry.h"
#include "coordinator/cluster/worker_set.h"

namespace granite::coordinator {

// Builds system.<name>; UNKNOWN_TABLE for names granite does not have. `queries` may be null
// (processes and query_log are then empty). Workers that do not answer are left out of metrics,
// events and locks (system.workers shows them down).
absl::StatusOr<LocalTable> BuildSystemTable(const std::string& name, const WorkerSet& workers,
                                            const Catalog& catalog, const QueryRegistry* queries);

}  // namespace granite::coordinator
