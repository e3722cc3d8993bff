#include "worker/worker_info.h"

#include <unistd.h>

#include <algorithm>
#include <climits>

#include "core/version.h"

namespace granite::worker {

std::string MemoryPolicyKind(std::string_view placement_policy, bool numa_supported) {
  if (!numa_supported) return "unsupported";
  std::string_view kind = placement_policy.substr(0, placement_policy.find(':'));
  if (kind == "bind" || kind == "preferred") return std::string(kind);
  return "default";
}

WorkerInfo DescribeWorker(const NumaTopology& topology, const NumaPlacement& placement,
                          std::string data_dir) {
  WorkerInfo info;
  info.numa_node = placement.node;
  // Not pinned: the process runs on whatever it may use, which is what the operator wants to see.
  info.cpus = placement.cpus.empty() ? topology.allowed_cpus : placement.cpus;
  info.memory_policy = MemoryPolicyKind(placement.memory_policy, topology.numa_supported);
  info.threads = placement.threads;
  info.numa_supported = topology.numa_supported;
  info.numa_nodes = static_cast<int>(topology.nodes.size());
  info.placement = placement.log_line;
  info.pid = static_cast<int64_t>(getpid());
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) info.hostname = host;
  info.data_dir = std::move(data_dir);
  info.started = std::chrono::steady_clock::now();
  return info;
}

core::worker_api::ProcessInfo ProcessInfoOf(const WorkerInfo& info,
                                            std::chrono::steady_clock::time_point now) {
  core::worker_api::ProcessInfo out;
  out.numa_node = info.numa_node;
  out.cpus = FormatCpuList(info.cpus);
  out.cpu_count = static_cast<uint32_t>(info.cpus.size());
  out.memory_policy = info.memory_policy;
  out.threads = static_cast<uint32_t>(info.threads);
  out.numa_supported = info.numa_supported;
  out.numa_nodes = static_cast<uint32_t>(info.numa_nodes);
  out.placement = info.placement;
  out.pid = static_cast<uint32_t>(info.pid);
  out.hostname = info.hostname;
  out.version = core::kGraniteVersion;
  out.data_dir = info.data_dir;
  std::chrono::duration<double> uptime = now - info.started;
  out.uptime_seconds = info.started == std::chrono::steady_clock::time_point()
                           ? 0.0
                           : std::max(0.0, uptime.count());
  return out;
}

}  // namespace granite::worker
