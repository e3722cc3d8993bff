// Test-only: builds a fake sysfs/procfs tree in a temporary directory, shaped like "/", for
// SysfsReader. Used by numa_topology_test.cc and numa_placement_test.cc.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "worker/numa_topology.h"

namespace granite::worker {

// Owns a temporary directory tree; removed on destruction.
class FakeSysfs {
 public:
  FakeSysfs() {
    static std::atomic<int> counter{0};
    root_ = std::filesystem::path(::testing::TempDir()) /
            absl::StrCat("granite_sysfs_", getpid(), "_", counter++);
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  ~FakeSysfs() { std::filesystem::remove_all(root_); }

  // Writes `contents` to `path` (relative to the root), creating directories.
  void Write(const std::string& path, const std::string& contents) {
    std::filesystem::path full = root_ / path;
    std::filesystem::create_directories(full.parent_path());
    std::ofstream(full) << contents;
  }

  // Adds node `id` with `cpulist` and `mem_kb` of memory (0 = no meminfo file).
  void AddNode(int id, const std::string& cpulist, uint64_t mem_kb = 16 << 20) {
    std::string dir = absl::StrCat("sys/devices/system/node/node", id);
    Write(dir + "/cpulist", cpulist + "\n");
    if (mem_kb > 0) {
      Write(dir + "/meminfo", absl::StrCat("Node ", id, " MemTotal:       ", mem_kb,
                                           " kB\nNode ", id, " MemFree:        1024 kB\n"));
    }
  }

  // Returns a reader over this tree whose affinity mask is `allowed`.
  SysfsReader Reader(std::vector<int> allowed) const {
    return SysfsReader(root_.string(),
                       [allowed]() -> absl::StatusOr<std::vector<int>> { return allowed; });
  }

 private:
  std::filesystem::path root_;
};

// Returns {first, ..., last}.
inline std::vector<int> Range(int first, int last) {
  std::vector<int> ids;
  for (int i = first; i <= last; ++i) ids.push_back(i);
  return ids;
}

}  // namespace granite::worker
