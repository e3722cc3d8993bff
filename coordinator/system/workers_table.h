// system.workers: one row per worker, in --workers order (row i = worker i = shard i), with what
// the worker answers at query time:
//   index, address, state     "up" when it answered ListTables, else "down"
//   tables, rows              its tables and their rows
//   numa_node, cpus, cpu_count, memory_policy, threads
//                             its placement (GetInfo, worker/worker_info.h): the NUMA node it is
//                             pinned to (-1: not pinned), the CPUs it runs on ("0-3,8"), the memory
//                             policy ("bind", "preferred", "default", "unsupported" without NUMA)
//                             and its pool threads
//   hostname, pid, version, uptime, data_path
//                             the worker process
// Workers are asked in parallel and GetInfo first, with a short deadline: a worker it finds
// unreachable is not asked again, so a dead or hung worker costs the query at most that deadline.
// A worker that does not answer GetInfo (down, or an older binary without the RPC) shows
// numa_node -1, empty strings and zeros in the placement and process columns.
#pragma once

#include <chrono>
#include <vector>

#include "coordinator/planner/binder.h"
#include "coordinator/cluster/worker_set.h"
#include "core/worker_api.h"

namespace granite::coordinator {

// What one worker answered.
struct WorkerStatus {
  bool up = false;        // answered ListTables
  bool has_info = false;  // answered GetInfo
  core::worker_api::ProcessInfo info;
  core::worker_api::TableListing tables;
};

struct WorkersTableOptions {
  std::chrono::milliseconds info_timeout{1500};   // GetInfo, per worker
  std::chrono::milliseconds tables_timeout{5000}; // ListTables, per worker
};

// Asks every worker concurrently for GetInfo, then (unless GetInfo found it unreachable:
// UNAVAILABLE or DEADLINE_EXCEEDED) for ListTables. Never fails: a worker that does not answer
// is reported down. Blocks at most info_timeout + tables_timeout.
std::vector<WorkerStatus> FetchWorkerStatus(const WorkerSet& workers,
                                            const WorkersTableOptions& options);

// Builds system.workers from `status` (one entry per worker of `workers`).
// REQUIRES: status.size() == workers.size().
LocalTable WorkersTable(const WorkerSet& workers, const std::vector<WorkerStatus>& status);

// FetchWorkerStatus then WorkersTable.
LocalTable BuildWorkersTable(const WorkerSet& workers,
                             const WorkersTableOptions& options = WorkersTableOptions());

}  // namespace granite::coordinator
