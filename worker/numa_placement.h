// NUMA placement of a worker: which node it runs on (`granite worker --numa-node N|auto`), the
// CPUs its pool threads are pinned to, its memory policy and its pool size, chosen from the
// topology (numa_topology.h) and then applied to the process.
//
// One worker per NUMA node is the intended layout: the worker binds its memory to its node
// (MPOL_BIND, or MPOL_PREFERRED for a node without memory) so scans, hash tables and arenas stay in
// local memory, and pins pool thread i to cpus[i % cpus.size()] so the kernel does not migrate hot
// threads across sockets. Every choice and every fallback (no NUMA support, a container that may
// not call set_mempolicy) is stated in one start-up log line, and in system.workers.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "worker/numa_topology.h"

namespace granite::worker {

struct NumaPlacement {
  int node = -1;             // the node the worker runs on; -1 when not pinned
  std::vector<int> cpus;     // CPUs for pool threads (thread i -> cpus[i % size]); empty: unpinned
  std::string memory_policy = "default";  // "bind:N", "preferred:N" or "default"
  int threads = 1;           // pool size: --threads, else the CPUs available (cgroup quota too)
  std::string log_line;      // the start-up log line, "NUMA: ..."
};

// Chooses the placement. `numa_node_flag` is "" (no pinning: memory policy default, threads =
// allowed CPUs), "auto" (the node with the most allowed CPUs, lowest id on ties; falls back to
// unpinned without NUMA support) or a node number. `threads` is --threads (0 = one per CPU of
// the placement, capped by the cgroup CPU quota).
// Errors (BAD_ARGUMENTS, naming the value): a flag that is neither, a node that is not online, a
// node with no CPU this process may use, negative threads.
absl::StatusOr<NumaPlacement> ChooseNumaPlacement(const NumaTopology& topology,
                                                  std::string_view numa_node_flag, int threads);

// The kernel calls ApplyNumaPlacement makes; tests substitute a fake.
class NumaKernel {
 public:
  virtual ~NumaKernel() = default;
  // True when libnuma reports NUMA available (numa_available() >= 0).
  virtual bool Available() = 0;
  // Sets the calling thread's memory policy: MPOL_BIND (bind) or MPOL_PREFERRED to `node`.
  virtual absl::Status SetMemoryPolicy(bool bind, int node) = 0;
  // Restricts the calling thread to `cpus` (sched_setaffinity).
  virtual absl::Status SetThreadAffinity(const std::vector<int>& cpus) = 0;
};

// Returns the process-wide implementation over libnuma and sched_setaffinity.
NumaKernel& RealNumaKernel();

// Applies `placement` to the calling thread — memory policy and CPU affinity to all its CPUs —
// so that every thread started afterwards inherits both. Degrades gracefully: when libnuma reports
// no NUMA, or set_mempolicy is refused (a container's seccomp profile without CAP_SYS_NICE), the
// memory policy becomes "default" and `log_line` says why; the call still succeeds.
// Returns an error only when the CPU affinity cannot be set.
// REQUIRES: called on the main thread before any other thread (pool, gRPC) starts.
absl::Status ApplyNumaPlacement(NumaPlacement* placement, NumaKernel& kernel = RealNumaKernel());

// Pins the calling thread to one CPU.
absl::Status PinCurrentThreadToCpu(int cpu);

// Returns the ThreadPool on_thread_start hook that pins thread i to cpus[i % cpus.size()], or
// nullptr when the placement is unpinned. A failure is logged once to stderr, not fatal.
std::function<void(size_t)> MakeThreadPinner(const NumaPlacement& placement);

}  // namespace granite::worker
