#include "worker/numa_topology.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/absl_compat.h"
#include "core/error.h"

namespace granite::worker {

using core::Error;
using core::ErrorCode;

absl::StatusOr<std::vector<int>> ParseCpuList(std::string_view text) {
  std::vector<int> ids;
  absl::string_view body = absl::StripAsciiWhitespace(core::ToAbsl(text));
  if (body.empty()) return ids;
  for (absl::string_view item : absl::StrSplit(body, ',')) {
    item = absl::StripAsciiWhitespace(item);
    size_t dash = item.find('-');
    absl::string_view low = item.substr(0, dash);
    absl::string_view high = dash == absl::string_view::npos ? low : item.substr(dash + 1);
    int first = 0;
    int last = 0;
    bool ok = absl::SimpleAtoi(low, &first) && absl::SimpleAtoi(high, &last) && first >= 0 &&
              last >= first;
    // A range wider than any machine is a corrupt file, not a reason to allocate gigabytes.
    if (!ok || last - first > (1 << 20)) {
      return Error(ErrorCode::kIncorrectData,
                   absl::StrCat("Cannot parse \"", item, "\" in CPU list \"", body, "\""));
    }
    for (int id = first; id <= last; ++id) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::string FormatCpuList(const std::vector<int>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ',';
    absl::StrAppend(&out, ids[i]);
    if (j > i) absl::StrAppend(&out, "-", ids[j]);
    i = j + 1;
  }
  return out;
}

namespace {

absl::StatusOr<std::vector<int>> SchedGetAffinity() {
  for (int cpus = 1024; cpus <= (1 << 18); cpus *= 4) {
    cpu_set_t* set = CPU_ALLOC(cpus);
    size_t size = CPU_ALLOC_SIZE(cpus);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) == 0) {
      std::vector<int> ids;
      for (int cpu = 0; cpu < cpus; ++cpu) {
        if (CPU_ISSET_S(cpu, size, set)) ids.push_back(cpu);
      }
      CPU_FREE(set);
      return ids;
    }
    int error = errno;
    CPU_FREE(set);
    if (error != EINVAL) {
      return Error(ErrorCode::kCannotReadFromFile,
                   absl::StrCat("sched_getaffinity failed: ", std::strerror(error)));
    }
  }
  return Error(ErrorCode::kCannotReadFromFile, "sched_getaffinity: too many CPUs");
}

std::vector<int> Intersect(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// Joins the cgroup mount point with a cgroup path from /proc/self/cgroup ("/" or "/a/b").
std::string CgroupDir(std::string_view mount, std::string_view cgroup_path) {
  std::string dir(mount);
  absl::string_view rest = absl::StripSuffix(core::ToAbsl(cgroup_path), "/");
  if (!rest.empty() && rest.front() != '/') dir += '/';
  absl::StrAppend(&dir, rest);
  return dir;
}

// Returns the cgroup v2 path ("0::<path>") and the v1 cpuset / cpu paths from /proc/self/cgroup.
struct CgroupPaths {
  std::optional<std::string> v2;
  std::optional<std::string> v1_cpuset;
  std::optional<std::string> v1_cpu;
};

CgroupPaths ReadCgroupPaths(const SysfsReader& reader) {
  CgroupPaths paths;
  absl::StatusOr<std::string> text = reader.ReadFile("proc/self/cgroup");
  if (!text.ok()) return paths;
  for (absl::string_view line : absl::StrSplit(*text, '\n', absl::SkipWhitespace())) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (fields.size() != 3) continue;
    std::string path(absl::StripTrailingAsciiWhitespace(fields[2]));
    if (fields[0] == "0" && fields[1].empty()) paths.v2 = path;
    for (absl::string_view controller : absl::StrSplit(fields[1], ',')) {
      if (controller == "cpuset") paths.v1_cpuset = path;
      if (controller == "cpu") paths.v1_cpu = path;
    }
  }
  return paths;
}

// Reads the first existing file among `candidates`; sets *found to its path.
std::optional<std::string> ReadFirst(const SysfsReader& reader,
                                     const std::vector<std::string>& candidates,
                                     std::string* found) {
  for (const std::string& path : candidates) {
    absl::StatusOr<std::string> text = reader.ReadFile(path);
    if (text.ok()) {
      *found = path;
      return *text;
    }
  }
  return std::nullopt;
}

// Returns the cgroup's effective cpuset and the file it came from, when there is one.
absl::StatusOr<std::optional<std::vector<int>>> ReadCgroupCpuset(const SysfsReader& reader,
                                                                 const CgroupPaths& paths,
                                                                 std::string* file) {
  std::vector<std::string> candidates;
  if (paths.v2) {
    candidates.push_back(CgroupDir("sys/fs/cgroup", *paths.v2) + "/cpuset.cpus.effective");
  }
  candidates.push_back("sys/fs/cgroup/cpuset.cpus.effective");
  if (paths.v1_cpuset) {
    candidates.push_back(CgroupDir("sys/fs/cgroup/cpuset", *paths.v1_cpuset) +
                         "/cpuset.effective_cpus");
  }
  candidates.push_back("sys/fs/cgroup/cpuset/cpuset.effective_cpus");
  std::optional<std::string> text = ReadFirst(reader, candidates, file);
  if (!text) return std::optional<std::vector<int>>();
  absl::StatusOr<std::vector<int>> cpus = ParseCpuList(*text);
  if (!cpus.ok()) {
    return Error(ErrorCode::kIncorrectData, absl::StrCat(cpus.status().message(), " in /", *file));
  }
  if (cpus->empty()) return std::optional<std::vector<int>>();
  return std::optional<std::vector<int>>(std::move(*cpus));
}

// Returns the smallest CPU quota along the cgroup path (limits of ancestors apply too).
std::optional<double> ReadCpuQuota(const SysfsReader& reader, const CgroupPaths& paths) {
  std::optional<double> quota;
  auto take = [&](double cpus) {
    if (cpus > 0 && (!quota || cpus < *quota)) quota = cpus;
  };
  // cgroup v2 when /proc/self/cgroup says so, or when it is unreadable but cpu.max exists.
  bool v2 = paths.v2.has_value() ||
            (!paths.v1_cpu && reader.ReadFile("sys/fs/cgroup/cpu.max").ok());
  if (v2) {
    std::string dir = CgroupDir("sys/fs/cgroup", paths.v2.value_or("/"));
    while (true) {
      absl::StatusOr<std::string> text = reader.ReadFile(dir + "/cpu.max");
      if (text.ok()) {
        std::vector<absl::string_view> f = absl::StrSplit(*text, ' ', absl::SkipWhitespace());
        double limit = 0;
        double period = 0;
        if (f.size() == 2 && absl::SimpleAtod(f[0], &limit) &&
            absl::SimpleAtod(absl::StripAsciiWhitespace(f[1]), &period) && period > 0) {
          take(limit / period);
        }
      }
      size_t slash = dir.rfind('/');
      if (dir == "sys/fs/cgroup" || slash == std::string::npos) break;
      dir.resize(slash);
    }
    return quota;
  }
  std::string dir = CgroupDir("sys/fs/cgroup/cpu", paths.v1_cpu.value_or("/"));
  absl::StatusOr<std::string> limit_text = reader.ReadFile(dir + "/cpu.cfs_quota_us");
  absl::StatusOr<std::string> period_text = reader.ReadFile(dir + "/cpu.cfs_period_us");
  double limit = 0;
  double period = 0;
  if (limit_text.ok() && period_text.ok() &&
      absl::SimpleAtod(absl::StripAsciiWhitespace(*limit_text), &limit) &&
      absl::SimpleAtod(absl::StripAsciiWhitespace(*period_text), &period) && period > 0) {
    take(limit / period);
  }
  return quota;
}

uint64_t ReadNodeMemory(const SysfsReader& reader, int node) {
  absl::StatusOr<std::string> text =
      reader.ReadFile(absl::StrCat("sys/devices/system/node/node", node, "/meminfo"));
  if (!text.ok()) return 0;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    size_t at = line.find("MemTotal:");
    if (at == absl::string_view::npos) continue;
    absl::string_view value = absl::StripAsciiWhitespace(line.substr(at + 9));
    value = absl::StripSuffix(value, "kB");
    uint64_t kb = 0;
    if (absl::SimpleAtoi(absl::StripAsciiWhitespace(value), &kb)) return kb * 1024;
  }
  return 0;
}

absl::StatusOr<std::vector<int>> ReadListFile(const SysfsReader& reader, const std::string& path) {
  absl::StatusOr<std::string> text = reader.ReadFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::vector<int>> ids = ParseCpuList(*text);
  if (!ids.ok()) {
    return Error(ErrorCode::kIncorrectData, absl::StrCat(ids.status().message(), " in /", path));
  }
  return ids;
}

}  // namespace

SysfsReader::SysfsReader() : SysfsReader("/") {}

SysfsReader::SysfsReader(std::string root, AffinityFn affinity)
    : root_(std::move(root)), affinity_(std::move(affinity)) {}

absl::StatusOr<std::string> SysfsReader::ReadFile(std::string_view path) const {
  std::string full = root_;
  if (full.empty() || full.back() != '/') full += '/';
  full += path;
  int fd = open(full.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    if (error == ENOENT || error == ENOTDIR) {
      return absl::NotFoundError(absl::StrCat("No such file: ", full));
    }
    return Error(ErrorCode::kCannotReadFromFile,
                 absl::StrCat("Cannot read ", full, ": ", std::strerror(error)));
  }
  std::string text;
  char buffer[4096];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      close(fd);
      return Error(ErrorCode::kCannotReadFromFile,
                   absl::StrCat("Cannot read ", full, ": ", std::strerror(error)));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

absl::StatusOr<std::vector<int>> SysfsReader::AllowedCpus() const {
  return affinity_ ? affinity_() : SchedGetAffinity();
}

const NumaNode* NumaTopology::FindNode(int id) const {
  for (const NumaNode& node : nodes) {
    if (node.id == id) return &node;
  }
  return nullptr;
}

std::vector<int> NumaTopology::AllowedCpusOf(int id) const {
  const NumaNode* node = FindNode(id);
  return node == nullptr ? std::vector<int>() : Intersect(node->cpus, allowed_cpus);
}

absl::StatusOr<NumaTopology> ReadTopology(const SysfsReader& reader) {
  NumaTopology topology;
  absl::StatusOr<std::vector<int>> affinity = reader.AllowedCpus();
  if (!affinity.ok()) return affinity.status();
  std::vector<int> allowed = *affinity;
  std::sort(allowed.begin(), allowed.end());

  absl::StatusOr<std::vector<int>> online = ReadListFile(reader, "sys/devices/system/node/online");
  if (online.ok() && !online->empty()) {
    topology.numa_supported = true;
    for (int id : *online) {
      std::string path = absl::StrCat("sys/devices/system/node/node", id, "/cpulist");
      absl::StatusOr<std::vector<int>> cpus = ReadListFile(reader, path);
      if (!cpus.ok()) {
        return Error(absl::IsNotFound(cpus.status()) ? ErrorCode::kCannotReadFromFile
                                                     : core::CodeOf(cpus.status()),
                     absl::StrCat("NUMA node ", id, " is online but ", cpus.status().message()));
      }
      topology.nodes.push_back({id, std::move(*cpus), ReadNodeMemory(reader, id)});
    }
  } else if (online.ok() || absl::IsNotFound(online.status())) {
    // No NUMA support: one pseudo-node with every online CPU (or the allowed ones if /sys hides
    // even that).
    absl::StatusOr<std::vector<int>> cpus = ReadListFile(reader, "sys/devices/system/cpu/online");
    topology.nodes.push_back({0, cpus.ok() && !cpus->empty() ? *cpus : allowed, 0});
  } else {
    return online.status();
  }

  CgroupPaths paths = ReadCgroupPaths(reader);
  std::string cpuset_file;
  absl::StatusOr<std::optional<std::vector<int>>> cpuset =
      ReadCgroupCpuset(reader, paths, &cpuset_file);
  if (!cpuset.ok()) return cpuset.status();
  topology.allowed_source = "sched_getaffinity";
  if (cpuset->has_value()) {
    std::vector<int> both = Intersect(allowed, **cpuset);
    // Disjoint sets mean the cgroup file belongs to another namespace: trust the affinity mask,
    // which the kernel already restricts to the cpuset.
    if (!both.empty()) {
      allowed = std::move(both);
      size_t slash = cpuset_file.rfind('/');
      absl::StrAppend(&topology.allowed_source, " ∩ cgroup ", cpuset_file.substr(slash + 1));
    }
  }
  topology.allowed_cpus = std::move(allowed);
  topology.cpu_quota = ReadCpuQuota(reader, paths);
  return topology;
}

}  // namespace granite::worker
