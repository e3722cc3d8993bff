#include "worker/numa_placement.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <numaif.h>
#include <sched.h>

#include <iostream>
#include <set>
#include <thread>

#include "core/error.h"
#include "core/thread_pool.h"
#include "worker/numa_fake_sysfs.h"

namespace granite::worker {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Returns the topology of a fake machine with `nodes` nodes of `per_node` CPUs each, an affinity
// mask `allowed`, and optionally a cgroup v2 CPU quota.
NumaTopology Machine(int nodes, int per_node, std::vector<int> allowed,
                     const std::string& cpu_max = "") {
  FakeSysfs fs;
  fs.Write("sys/devices/system/node/online", nodes == 1 ? "0" : absl::StrCat("0-", nodes - 1));
  for (int n = 0; n < nodes; ++n) {
    fs.AddNode(n, absl::StrCat(n * per_node, "-", (n + 1) * per_node - 1));
  }
  if (!cpu_max.empty()) fs.Write("sys/fs/cgroup/cpu.max", cpu_max);
  absl::StatusOr<NumaTopology> topology = ReadTopology(fs.Reader(std::move(allowed)));
  EXPECT_TRUE(topology.ok()) << topology.status();
  return topology.value_or(NumaTopology());
}

TEST(NumaPlacementTest, OneNodeAutoBindsAndPinsEveryCpu) {
  absl::StatusOr<NumaPlacement> p = ChooseNumaPlacement(Machine(1, 4, Range(0, 3)), "auto", 0);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->node, 0);
  EXPECT_THAT(p->cpus, ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(p->memory_policy, "bind:0");
  EXPECT_EQ(p->threads, 4);
  EXPECT_THAT(p->log_line, HasSubstr("NUMA: node 0 (auto: most allowed CPUs), CPUs 0-3, memory "
                                     "policy bind:0, 4 threads; 1 node online"));
}

TEST(NumaPlacementTest, TwoNodesExplicitNode) {
  NumaTopology machine = Machine(2, 4, Range(0, 7));
  absl::StatusOr<NumaPlacement> p = ChooseNumaPlacement(machine, "1", 0);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->node, 1);
  EXPECT_THAT(p->cpus, ElementsAre(4, 5, 6, 7));
  EXPECT_EQ(p->memory_policy, "bind:1");
  EXPECT_EQ(p->threads, 4);
  EXPECT_THAT(p->log_line, HasSubstr("2 nodes online (node 0: CPUs 0-3, 16.0 GiB; node 1: CPUs "
                                     "4-7, 16.0 GiB)"));
  EXPECT_THAT(p->log_line, HasSubstr("4 allowed CPUs on other nodes left unused"));

  p = ChooseNumaPlacement(machine, "1", 6);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->threads, 6);
  EXPECT_THAT(p->log_line, HasSubstr("more threads than CPUs"));
}

TEST(NumaPlacementTest, FourNodesAutoFollowsTheCpuset) {
  // A container whose cpuset is node 2's CPUs: auto must find node 2.
  absl::StatusOr<NumaPlacement> p = ChooseNumaPlacement(Machine(4, 8, Range(16, 23)), "auto", 0);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->node, 2);
  EXPECT_THAT(p->cpus, ElementsAre(16, 17, 18, 19, 20, 21, 22, 23));
  EXPECT_EQ(p->threads, 8);
  EXPECT_THAT(p->log_line, ::testing::Not(HasSubstr("left unused")));
}

TEST(NumaPlacementTest, CpusetAcrossNodes) {
  // 3-7 on nodes of 0-3 and 4-7: node 1 has four allowed CPUs, node 0 one.
  absl::StatusOr<NumaPlacement> p = ChooseNumaPlacement(Machine(2, 4, Range(3, 7)), "auto", 0);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->node, 1);
  EXPECT_THAT(p->cpus, ElementsAre(4, 5, 6, 7));
  EXPECT_THAT(p->log_line, HasSubstr("1 allowed CPUs on other nodes left unused"));

  // A tie (2-5: two CPUs on each node) goes to the lowest node, and only its allowed CPUs.
  p = ChooseNumaPlacement(Machine(2, 4, Range(2, 5)), "auto", 0);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->node, 0);
  EXPECT_THAT(p->cpus, ElementsAre(2, 3));
  EXPECT_EQ(p->threads, 2);

  // Asking for node 0 when the cpuset excludes it names the node and both CPU sets.
  p = ChooseNumaPlacement(Machine(2, 4, Range(4, 7)), "0", 0);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(core::CodeOf(p.status()), core::ErrorCode::kBadArguments);
  EXPECT_THAT(std::string(p.status().message()),
              HasSubstr("NUMA node 0 has no CPU this process may use: node CPUs 0-3, allowed "
                        "CPUs 4-7 (sched_getaffinity)"));
}

TEST(NumaPlacementTest, RejectsBadFlags) {
  NumaTopology machine = Machine(2, 4, Range(0, 7));
  absl::StatusOr<NumaPlacement> p = ChooseNumaPlacement(machine, "7", 0);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()),
              HasSubstr("NUMA node 7 does not exist: online nodes are 0-1"));
  for (const char* bad : {"x1", "-1", "1.5", "node1"}) {
    p = ChooseNumaPlacement(machine, bad, 0);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(core::CodeOf(p.status()), core::ErrorCode::kBadArguments);
    EXPECT_THAT(std::string(p.status().message()), HasSubstr(absl::StrCat("\"", bad, "\"")));
  }
  p = ChooseNumaPlacement(machine, "0", -2);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("got -2"));
}

TEST(NumaPlacementTest, NoFlagRunsUnpinnedWithinTheQuota) {
  absl::StatusOr<NumaPlacement> p =
      ChooseNumaPlacement(Machine(2, 4, Range(0, 7), "250000 100000"), "", 0);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->node, -1);
  EXPECT_TRUE(p->cpus.empty());
  EXPECT_EQ(p->memory_policy, "default");
  EXPECT_EQ(p->threads, 3);  // a 2.5-CPU quota keeps three threads busy
  EXPECT_THAT(p->log_line, HasSubstr("NUMA: not pinned (no --numa-node); running unpinned"));
  EXPECT_THAT(p->log_line, HasSubstr("CPU quota 2.50"));
  EXPECT_EQ(MakeThreadPinner(*p), nullptr);
}

TEST(NumaPlacementTest, MachineWithoutNumaFallsBack) {
  FakeSysfs fs;
  fs.Write("sys/devices/system/cpu/online", "0-3\n");
  NumaTopology machine = *ReadTopology(fs.Reader(Range(0, 3)));
  for (const char* flag : {"auto", "0"}) {
    absl::StatusOr<NumaPlacement> p = ChooseNumaPlacement(machine, flag, 0);
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->node, -1);
    EXPECT_EQ(p->memory_policy, "default");
    EXPECT_EQ(p->threads, 4);
    EXPECT_THAT(p->log_line,
                HasSubstr(absl::StrCat("NUMA: not supported on this machine (no "
                                       "/sys/devices/system/node), --numa-node=",
                                       flag, " falls back; running unpinned")));
  }
  absl::StatusOr<NumaPlacement> p = ChooseNumaPlacement(machine, "1", 0);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("this machine has no NUMA support"));
}

TEST(NumaPlacementTest, MemorylessNodeIsPreferredNotBound) {
  FakeSysfs fs;
  fs.Write("sys/devices/system/node/online", "0-1\n");
  fs.AddNode(0, "0-3");
  fs.AddNode(1, "4-7", /*mem_kb=*/0);
  absl::StatusOr<NumaPlacement> p =
      ChooseNumaPlacement(*ReadTopology(fs.Reader(Range(0, 7))), "1", 0);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->memory_policy, "preferred:1");
}

// Records the calls ApplyNumaPlacement makes.
class FakeKernel : public NumaKernel {
 public:
  bool available = true;
  absl::Status memory_result;
  absl::Status affinity_result;
  std::vector<std::string> calls;

  bool Available() override { return available; }
  absl::Status SetMemoryPolicy(bool bind, int node) override {
    calls.push_back(absl::StrCat(bind ? "bind " : "preferred ", node));
    return memory_result;
  }
  absl::Status SetThreadAffinity(const std::vector<int>& cpus) override {
    calls.push_back("affinity " + FormatCpuList(cpus));
    return affinity_result;
  }
};

TEST(NumaPlacementTest, AppliesPolicyThenAffinity) {
  NumaPlacement p = *ChooseNumaPlacement(Machine(2, 4, Range(0, 7)), "1", 0);
  FakeKernel kernel;
  ASSERT_TRUE(ApplyNumaPlacement(&p, kernel).ok());
  EXPECT_THAT(kernel.calls, ElementsAre("bind 1", "affinity 4-7"));
  EXPECT_EQ(p.memory_policy, "bind:1");

  NumaPlacement unpinned = *ChooseNumaPlacement(Machine(2, 4, Range(0, 7)), "", 0);
  FakeKernel untouched;
  ASSERT_TRUE(ApplyNumaPlacement(&unpinned, untouched).ok());
  EXPECT_TRUE(untouched.calls.empty());
}

TEST(NumaPlacementTest, ApplyDegradesWhenLibnumaOrTheKernelRefuses) {
  NumaPlacement p = *ChooseNumaPlacement(Machine(2, 4, Range(0, 7)), "0", 0);
  FakeKernel no_numa;
  no_numa.available = false;
  ASSERT_TRUE(ApplyNumaPlacement(&p, no_numa).ok());
  EXPECT_THAT(no_numa.calls, ElementsAre("affinity 0-3"));
  EXPECT_EQ(p.memory_policy, "default");
  EXPECT_THAT(p.log_line, HasSubstr("libnuma reports NUMA unavailable"));

  p = *ChooseNumaPlacement(Machine(2, 4, Range(0, 7)), "0", 0);
  FakeKernel seccomp;
  seccomp.memory_result =
      core::Error(core::ErrorCode::kBadArguments, "set_mempolicy: Operation not permitted");
  ASSERT_TRUE(ApplyNumaPlacement(&p, seccomp).ok());
  EXPECT_EQ(p.memory_policy, "default");
  EXPECT_THAT(p.log_line, HasSubstr("memory policy left at default (set_mempolicy: Operation not "
                                    "permitted; in a container"));

  p = *ChooseNumaPlacement(Machine(2, 4, Range(0, 7)), "0", 0);
  FakeKernel no_affinity;
  no_affinity.affinity_result = core::Error(core::ErrorCode::kBadArguments, "sched_setaffinity");
  EXPECT_FALSE(ApplyNumaPlacement(&p, no_affinity).ok());
}

std::vector<int> ThreadAffinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

// On the real machine (one node here; whatever CI has): auto placement applies, the memory policy
// reads back, and each pool thread runs on exactly its CPU. Runs in its own thread so the test
// process keeps its own policy and mask.
TEST(NumaPlacementTest, AppliesOnThisMachine) {
  absl::StatusOr<NumaTopology> topology = ReadTopology(SysfsReader());
  ASSERT_TRUE(topology.ok()) << topology.status();
  absl::StatusOr<NumaPlacement> chosen = ChooseNumaPlacement(*topology, "auto", 0);
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  NumaPlacement p = *chosen;
  std::thread([&] {
    ASSERT_TRUE(ApplyNumaPlacement(&p).ok()) << p.log_line;
    std::cout << "this machine: " << p.log_line << "\n";
    if (p.node < 0) return;  // a machine without NUMA: nothing was applied
    EXPECT_EQ(ThreadAffinity(), p.cpus);
    int mode = -1;
    unsigned long mask[16] = {};
    ASSERT_EQ(get_mempolicy(&mode, mask, sizeof(mask) * 8, nullptr, 0), 0);
    if (p.memory_policy == "default") {
      EXPECT_THAT(p.log_line, HasSubstr("left at default"));
    } else {
      EXPECT_EQ(mode, p.memory_policy.rfind("bind:", 0) == 0 ? MPOL_BIND : MPOL_PREFERRED);
      EXPECT_TRUE(mask[p.node / 64] & (1ul << (p.node % 64)));
    }
    std::vector<std::vector<int>> seen(p.threads);
    {
      core::ThreadPool pool(p.threads, [&, pin = MakeThreadPinner(p)](size_t i) {
        pin(i);
        seen[i] = ThreadAffinity();
      });
    }
    for (int i = 0; i < p.threads; ++i) {
      EXPECT_THAT(seen[i], ElementsAre(p.cpus[i % p.cpus.size()])) << "thread " << i;
    }
  }).join();
  EXPECT_FALSE(PinCurrentThreadToCpu(-1).ok());
}

}  // namespace
}  // namespace granite::worker
