// NUMA topology of the machine as this process sees it: the online nodes, their CPUs and memory,
// and the CPUs this process may run on (its affinity mask intersected with its cgroup's cpuset),
// plus the cgroup CPU quota. The worker reads it once at start-up to choose its node and the CPUs
// it pins its pool threads to (numa_placement.h).
//
// Every read goes through SysfsReader, whose root defaults to "/" and which tests point at a fake
// tree, so 1-, 2- and 4-node machines, containers with cpusets and kernels without NUMA support are
// all tested on a one-node machine. Files read, relative to the root:
//   sys/devices/system/node/online            online nodes, e.g. "0-1" (missing: no NUMA support)
//   sys/devices/system/node/node<N>/cpulist   CPUs of node N, e.g. "0-15,32-47" (may be empty)
//   sys/devices/system/node/node<N>/meminfo   "Node N MemTotal: <kB> kB"
//   sys/devices/system/cpu/online             all online CPUs (used when there is no NUMA support)
//   proc/self/cgroup                          "0::/<path>" gives the cgroup v2 directory
//   sys/fs/cgroup/<path>/cpuset.cpus.effective, sys/fs/cgroup/<path>/cpu.max  (cgroup v2)
//   sys/fs/cgroup/cpuset/cpuset.effective_cpus, sys/fs/cgroup/cpu/cpu.cfs_quota_us (cgroup v1)
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace granite::worker {

// Parses a kernel CPU or node list such as "0-3,8,10-11" (whitespace and a trailing newline are
// ignored; "" is the empty list). Returns the sorted, de-duplicated ids, or INCORRECT_DATA naming
// the bad item.
absl::StatusOr<std::vector<int>> ParseCpuList(std::string_view text);

// Formats sorted ids as a kernel list with ranges: {0,1,2,3,8} -> "0-3,8"; {} -> "".
std::string FormatCpuList(const std::vector<int>& ids);

// Reads topology files under a root directory and the process's CPU affinity.
// Thread-safety: const methods are safe to call concurrently.
class SysfsReader {
 public:
  using AffinityFn = std::function<absl::StatusOr<std::vector<int>>()>;

  // Reads the real machine: root "/" and sched_getaffinity(0).
  SysfsReader();
  // Reads files under `root` (a directory shaped like "/"); `affinity` replaces
  // sched_getaffinity when set (tests).
  explicit SysfsReader(std::string root, AffinityFn affinity = nullptr);

  // Returns the contents of `path` ("sys/devices/system/node/online", relative to the root), or
  // NotFound when it does not exist.
  absl::StatusOr<std::string> ReadFile(std::string_view path) const;

  // Returns the CPUs the calling thread may run on (sched_getaffinity, or the injected function).
  absl::StatusOr<std::vector<int>> AllowedCpus() const;

  const std::string& root() const { return root_; }

 private:
  std::string root_;
  AffinityFn affinity_;
};

struct NumaNode {
  int id = 0;
  std::vector<int> cpus;      // every CPU of the node (sorted); empty for a memory-only node
  uint64_t memory_bytes = 0;  // MemTotal of the node; 0 when unknown or memory-less
};

struct NumaTopology {
  // False when the kernel exposes no NUMA nodes (CONFIG_NUMA off, or /sys hidden): `nodes` then
  // holds one pseudo-node 0 with every online CPU.
  bool numa_supported = false;
  std::vector<NumaNode> nodes;    // online nodes, ascending id
  std::vector<int> allowed_cpus;  // sched_getaffinity ∩ cgroup cpuset (sorted)
  // Where `allowed_cpus` came from, for the start-up log: "sched_getaffinity" or
  // "sched_getaffinity ∩ cgroup cpuset.cpus.effective".
  std::string allowed_source;
  // CPUs granted by the cgroup's CPU quota (cpu.max "200000 100000" -> 2.0); unset when unlimited.
  std::optional<double> cpu_quota;

  // Returns the node with `id`, or nullptr.
  const NumaNode* FindNode(int id) const;
  // Returns the CPUs of node `id` this process may use (node CPUs ∩ allowed CPUs).
  std::vector<int> AllowedCpusOf(int id) const;
};

// Reads the topology through `reader`. A machine without NUMA support is not an error (see
// NumaTopology::numa_supported); unreadable or malformed files that must exist are
// (CANNOT_READ_FROM_FILE / INCORRECT_DATA naming the file).
absl::StatusOr<NumaTopology> ReadTopology(const SysfsReader& reader);

}  // namespace granite::worker
