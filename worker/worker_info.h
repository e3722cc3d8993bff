// WorkerInfo: what a worker tells the coordinator about itself through the GetInfo RPC, and so
// what system.workers shows next to each worker's health: its NUMA node, the CPUs it runs on, its
// memory policy and pool size (from the placement applied at start-up, numa_placement.h), plus
// its pid, host name, version, data directory and uptime.
//
// RunWorker describes the placement once, after ApplyNumaPlacement (so a memory policy that fell
// back to "default" shows as such), and hands the result to WorkerService.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/worker_api.h"
#include "worker/numa_placement.h"
#include "worker/numa_topology.h"

namespace granite::worker {

struct WorkerInfo {
  int numa_node = -1;                     // -1: not pinned
  std::vector<int> cpus;                  // pinned CPUs, or every allowed CPU when not pinned
  std::string memory_policy = "default";  // "bind", "preferred", "default" or "unsupported"
  int threads = 0;                        // pool threads
  bool numa_supported = false;
  int numa_nodes = 0;                     // online nodes (1 pseudo-node without NUMA support)
  std::string placement;                  // the start-up "NUMA: ..." log line
  int64_t pid = 0;
  std::string hostname;
  std::string data_dir;
  std::chrono::steady_clock::time_point started;
};

// Returns the policy kind of a NumaPlacement::memory_policy ("bind:1" -> "bind",
// "preferred:0" -> "preferred", "default" -> "default"); "unsupported" when the machine has no
// NUMA support, whatever the placement says.
std::string MemoryPolicyKind(std::string_view placement_policy, bool numa_supported);

// Describes this process: `placement` as applied (after ApplyNumaPlacement), the machine's
// `topology`, the store's `data_dir`; pid, host name and start time of the calling process.
WorkerInfo DescribeWorker(const NumaTopology& topology, const NumaPlacement& placement,
                          std::string data_dir);

// Returns the GetInfo answer; the uptime is measured from `info.started` to `now`.
core::worker_api::ProcessInfo ProcessInfoOf(const WorkerInfo& info,
                                            std::chrono::steady_clock::time_point now);

}  // namespace granite::worker
