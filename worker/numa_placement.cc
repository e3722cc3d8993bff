#include "worker/numa_placement.h"

#include <numa.h>
#include <numaif.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/absl_compat.h"
#include "core/error.h"

namespace granite::worker {

using core::Error;
using core::ErrorCode;

namespace {

std::string FormatBytes(uint64_t bytes) {
  if (bytes == 0) return "memory unknown";
  return absl::StrFormat("%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
}

std::string DescribeNodes(const NumaTopology& topology) {
  std::string out = absl::StrCat(topology.nodes.size(),
                                 topology.nodes.size() == 1 ? " node" : " nodes", " online (");
  for (size_t i = 0; i < topology.nodes.size(); ++i) {
    const NumaNode& node = topology.nodes[i];
    absl::StrAppend(&out, i == 0 ? "" : "; ", "node ", node.id, ": CPUs ",
                    node.cpus.empty() ? "none" : FormatCpuList(node.cpus), ", ",
                    FormatBytes(node.memory_bytes));
  }
  return out + ")";
}

std::string DescribeAllowed(const NumaTopology& topology) {
  std::string out = absl::StrCat("allowed CPUs ", FormatCpuList(topology.allowed_cpus), " (",
                                 topology.allowed_source, ")");
  if (topology.cpu_quota) {
    absl::StrAppend(&out, absl::StrFormat(", CPU quota %.2f", *topology.cpu_quota));
  }
  return out;
}

// One thread per CPU, but no more than the cgroup quota grants (rounded up: a quota of 2.5 CPUs
// keeps 3 threads busy).
int DefaultThreads(const NumaTopology& topology, size_t cpus) {
  int threads = static_cast<int>(std::max<size_t>(cpus, 1));
  if (topology.cpu_quota) {
    threads = std::min(threads, std::max(1, static_cast<int>(std::ceil(*topology.cpu_quota))));
  }
  return threads;
}

NumaPlacement Unpinned(const NumaTopology& topology, int threads, std::string_view why) {
  NumaPlacement placement;
  placement.threads =
      threads > 0 ? threads : DefaultThreads(topology, topology.allowed_cpus.size());
  placement.log_line =
      absl::StrCat("NUMA: ", core::ToAbsl(why), "; running unpinned, memory policy default, ",
                   placement.threads, " threads; ", DescribeNodes(topology), "; ",
                   DescribeAllowed(topology));
  return placement;
}

}  // namespace

absl::StatusOr<NumaPlacement> ChooseNumaPlacement(const NumaTopology& topology,
                                                  std::string_view numa_node_flag, int threads) {
  if (threads < 0) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("--threads must be 0 (one per CPU) or positive, got ", threads));
  }
  std::string flag(absl::StripAsciiWhitespace(core::ToAbsl(numa_node_flag)));
  if (flag.empty()) return Unpinned(topology, threads, "not pinned (no --numa-node)");

  int node_id = -1;
  std::string how;
  if (flag == "auto") {
    if (!topology.numa_supported) {
      return Unpinned(topology, threads,
                      "not supported on this machine (no /sys/devices/system/node), "
                      "--numa-node=auto falls back");
    }
    size_t best = 0;
    for (const NumaNode& node : topology.nodes) {
      size_t count = topology.AllowedCpusOf(node.id).size();
      if (count > best) {
        best = count;
        node_id = node.id;
      }
    }
    if (node_id < 0) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("--numa-node=auto found no node with an allowed CPU: ",
                                DescribeAllowed(topology), "; ", DescribeNodes(topology)));
    }
    how = " (auto: most allowed CPUs)";
  } else {
    if (!absl::SimpleAtoi(flag, &node_id) || node_id < 0) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("Cannot parse --numa-node \"", flag,
                                "\": expected a node number or \"auto\""));
    }
    if (!topology.numa_supported) {
      if (node_id == 0) {
        return Unpinned(topology, threads,
                        "not supported on this machine (no /sys/devices/system/node), "
                        "--numa-node=0 falls back");
      }
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("NUMA node ", node_id,
                                " does not exist: this machine has no NUMA support"));
    }
    if (topology.FindNode(node_id) == nullptr) {
      std::vector<int> ids;
      for (const NumaNode& node : topology.nodes) ids.push_back(node.id);
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("NUMA node ", node_id, " does not exist: online nodes are ",
                                FormatCpuList(ids)));
    }
  }

  const NumaNode& node = *topology.FindNode(node_id);
  NumaPlacement placement;
  placement.node = node_id;
  placement.cpus = topology.AllowedCpusOf(node_id);
  if (placement.cpus.empty()) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("NUMA node ", node_id, " has no CPU this process may use: node CPUs ",
                              node.cpus.empty() ? "none" : FormatCpuList(node.cpus), ", ",
                              DescribeAllowed(topology)));
  }
  // A node without memory of its own (some CPUs-only nodes) cannot be bound to: prefer it and let
  // the kernel fall back to the nearest node.
  bool has_memory = node.memory_bytes > 0;
  placement.memory_policy = absl::StrCat(has_memory ? "bind:" : "preferred:", node_id);
  placement.threads = threads > 0 ? threads : DefaultThreads(topology, placement.cpus.size());
  placement.log_line = absl::StrCat(
      "NUMA: node ", node_id, how, ", CPUs ", FormatCpuList(placement.cpus), ", memory policy ",
      placement.memory_policy, ", ", placement.threads, " threads");
  if (placement.threads > static_cast<int>(placement.cpus.size())) {
    absl::StrAppend(&placement.log_line, " (more threads than CPUs: several per CPU)");
  }
  absl::StrAppend(&placement.log_line, "; ", DescribeNodes(topology), "; ",
                  DescribeAllowed(topology));
  size_t elsewhere = topology.allowed_cpus.size() - placement.cpus.size();
  if (elsewhere > 0) {
    absl::StrAppend(&placement.log_line, "; ", elsewhere,
                    " allowed CPUs on other nodes left unused (run one worker per node)");
  }
  return placement;
}

namespace {

class LibnumaKernel : public NumaKernel {
 public:
  bool Available() override { return numa_available() >= 0; }

  absl::Status SetMemoryPolicy(bool bind, int node) override {
    struct bitmask* mask = numa_allocate_nodemask();
    if (mask == nullptr) return Error(ErrorCode::kLogicalError, "numa_allocate_nodemask failed");
    numa_bitmask_setbit(mask, node);
    long rc = set_mempolicy(bind ? MPOL_BIND : MPOL_PREFERRED, mask->maskp, mask->size + 1);
    int error = errno;
    numa_free_nodemask(mask);
    if (rc != 0) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("set_mempolicy: ", std::strerror(error)));
    }
    return absl::OkStatus();
  }

  absl::Status SetThreadAffinity(const std::vector<int>& cpus) override {
    int max_cpu = cpus.empty() ? 0 : cpus.back();
    for (int cpu : cpus) max_cpu = std::max(max_cpu, cpu);
    cpu_set_t* set = CPU_ALLOC(max_cpu + 1);
    size_t size = CPU_ALLOC_SIZE(max_cpu + 1);
    CPU_ZERO_S(size, set);
    for (int cpu : cpus) CPU_SET_S(cpu, size, set);
    int rc = sched_setaffinity(0, size, set);
    int error = errno;
    CPU_FREE(set);
    if (rc != 0) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("sched_setaffinity to CPUs ", FormatCpuList(cpus), ": ",
                                std::strerror(error)));
    }
    return absl::OkStatus();
  }
};

}  // namespace

NumaKernel& RealNumaKernel() {
  static LibnumaKernel* kernel = new LibnumaKernel();
  return *kernel;
}

absl::Status ApplyNumaPlacement(NumaPlacement* placement, NumaKernel& kernel) {
  if (placement->node < 0 || placement->cpus.empty()) return absl::OkStatus();
  if (!kernel.Available()) {
    placement->memory_policy = "default";
    absl::StrAppend(&placement->log_line,
                    "; libnuma reports NUMA unavailable: memory policy left at default");
  } else {
    bool bind = placement->memory_policy.rfind("bind:", 0) == 0;
    absl::Status status = kernel.SetMemoryPolicy(bind, placement->node);
    if (!status.ok()) {
      placement->memory_policy = "default";
      absl::StrAppend(&placement->log_line, "; memory policy left at default (",
                      status.message(),
                      "; in a container, allow set_mempolicy: CAP_SYS_NICE or a seccomp profile)");
    }
  }
  return kernel.SetThreadAffinity(placement->cpus);
}

absl::Status PinCurrentThreadToCpu(int cpu) {
  if (cpu < 0) return Error(ErrorCode::kBadArguments, absl::StrCat("Bad CPU number ", cpu));
  return RealNumaKernel().SetThreadAffinity({cpu});
}

std::function<void(size_t)> MakeThreadPinner(const NumaPlacement& placement) {
  if (placement.cpus.empty()) return nullptr;
  auto warned = std::make_shared<std::atomic<bool>>(false);
  return [cpus = placement.cpus, warned](size_t thread) {
    int cpu = cpus[thread % cpus.size()];
    absl::Status status = PinCurrentThreadToCpu(cpu);
    if (!status.ok() && !warned->exchange(true)) {
      std::fprintf(stderr, "granite worker: cannot pin pool thread %zu to CPU %d: %s\n", thread,
                   cpu, std::string(status.message()).c_str());
    }
  };
}

}  // namespace granite::worker
