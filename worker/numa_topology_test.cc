#include "worker/numa_topology.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "worker/numa_fake_sysfs.h"

namespace granite::worker {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(NumaTopologyTest, ParsesKernelLists) {
  EXPECT_THAT(*ParseCpuList("0-3,8,10-11\n"), ElementsAre(0, 1, 2, 3, 8, 10, 11));
  EXPECT_THAT(*ParseCpuList(" 5 "), ElementsAre(5));
  EXPECT_THAT(*ParseCpuList("4,0-1,1"), ElementsAre(0, 1, 4));
  EXPECT_TRUE(ParseCpuList("\n")->empty());
  for (const char* bad : {"3-1", "a", "1-", "-1", "1,,2", "0-2000000000"}) {
    absl::StatusOr<std::vector<int>> ids = ParseCpuList(bad);
    ASSERT_FALSE(ids.ok()) << bad;
    EXPECT_EQ(core::CodeOf(ids.status()), core::ErrorCode::kIncorrectData);
    EXPECT_THAT(std::string(ids.status().message()), HasSubstr("Cannot parse"));
  }
  absl::StatusOr<std::vector<int>> bad = ParseCpuList("0-3,x");
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("\"x\" in CPU list \"0-3,x\""));
}

TEST(NumaTopologyTest, FormatsRanges) {
  EXPECT_EQ(FormatCpuList({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(FormatCpuList({5}), "5");
  EXPECT_EQ(FormatCpuList({}), "");
  EXPECT_EQ(FormatCpuList(*ParseCpuList("0-15,32-47")), "0-15,32-47");
}

TEST(NumaTopologyTest, ReadsOneNode) {
  FakeSysfs fs;
  fs.Write("sys/devices/system/node/online", "0\n");
  fs.AddNode(0, "0-3", 8 << 20);
  absl::StatusOr<NumaTopology> topology = ReadTopology(fs.Reader(Range(0, 3)));
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_TRUE(topology->numa_supported);
  ASSERT_EQ(topology->nodes.size(), 1u);
  EXPECT_EQ(topology->nodes[0].id, 0);
  EXPECT_THAT(topology->nodes[0].cpus, ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(topology->nodes[0].memory_bytes, 8ull << 30);
  EXPECT_THAT(topology->allowed_cpus, ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(topology->allowed_source, "sched_getaffinity");
  EXPECT_FALSE(topology->cpu_quota.has_value());
}

TEST(NumaTopologyTest, ReadsTwoNodesAndIntersectsCgroupV2Cpuset) {
  FakeSysfs fs;
  fs.Write("sys/devices/system/node/online", "0-1\n");
  fs.AddNode(0, "0-3");
  fs.AddNode(1, "4-7");
  fs.Write("proc/self/cgroup", "0::/kubepods/pod1/ctr\n");
  // The affinity mask still holds every CPU; the cgroup's cpuset cuts across both nodes.
  fs.Write("sys/fs/cgroup/kubepods/pod1/ctr/cpuset.cpus.effective", "2-5\n");
  fs.Write("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "max 100000\n");
  fs.Write("sys/fs/cgroup/kubepods/pod1/cpu.max", "400000 100000\n");
  fs.Write("sys/fs/cgroup/kubepods/cpu.max", "600000 100000\n");
  absl::StatusOr<NumaTopology> topology = ReadTopology(fs.Reader(Range(0, 7)));
  ASSERT_TRUE(topology.ok()) << topology.status();
  ASSERT_EQ(topology->nodes.size(), 2u);
  EXPECT_THAT(topology->allowed_cpus, ElementsAre(2, 3, 4, 5));
  EXPECT_EQ(topology->allowed_source, "sched_getaffinity ∩ cgroup cpuset.cpus.effective");
  EXPECT_THAT(topology->AllowedCpusOf(0), ElementsAre(2, 3));
  EXPECT_THAT(topology->AllowedCpusOf(1), ElementsAre(4, 5));
  EXPECT_TRUE(topology->AllowedCpusOf(9).empty());
  ASSERT_TRUE(topology->cpu_quota.has_value());
  EXPECT_DOUBLE_EQ(*topology->cpu_quota, 4.0);  // the pod's limit; the container has none
}

TEST(NumaTopologyTest, ReadsFourNodesWithInterleavedSiblings) {
  FakeSysfs fs;
  fs.Write("sys/devices/system/node/online", "0-3\n");
  for (int n = 0; n < 4; ++n) {
    // Hyper-thread siblings are numbered 16 apart, as on most two-socket x86 machines.
    fs.AddNode(n, absl::StrCat(4 * n, "-", 4 * n + 3, ",", 16 + 4 * n, "-", 16 + 4 * n + 3));
  }
  absl::StatusOr<NumaTopology> topology = ReadTopology(fs.Reader(Range(0, 31)));
  ASSERT_TRUE(topology.ok()) << topology.status();
  ASSERT_EQ(topology->nodes.size(), 4u);
  EXPECT_THAT(topology->nodes[2].cpus, ElementsAre(8, 9, 10, 11, 24, 25, 26, 27));
  EXPECT_EQ(topology->allowed_cpus.size(), 32u);
}

TEST(NumaTopologyTest, SkipsOfflineNodesAndKeepsMemoryOnlyNodes) {
  FakeSysfs fs;
  fs.Write("sys/devices/system/node/online", "0,2\n");
  fs.AddNode(0, "0-1");
  fs.AddNode(1, "2-3");  // offline: not listed in online
  fs.AddNode(2, "");     // memory only (CXL)
  absl::StatusOr<NumaTopology> topology = ReadTopology(fs.Reader(Range(0, 3)));
  ASSERT_TRUE(topology.ok()) << topology.status();
  ASSERT_EQ(topology->nodes.size(), 2u);
  EXPECT_EQ(topology->nodes[1].id, 2);
  EXPECT_TRUE(topology->nodes[1].cpus.empty());
  EXPECT_EQ(topology->FindNode(1), nullptr);
}

TEST(NumaTopologyTest, FallsBackWithoutNumaSupport) {
  FakeSysfs fs;
  fs.Write("sys/devices/system/cpu/online", "0-7\n");
  absl::StatusOr<NumaTopology> topology = ReadTopology(fs.Reader(Range(0, 5)));
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_FALSE(topology->numa_supported);
  ASSERT_EQ(topology->nodes.size(), 1u);
  EXPECT_THAT(topology->nodes[0].cpus, ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  EXPECT_THAT(topology->allowed_cpus, ElementsAre(0, 1, 2, 3, 4, 5));

  // Even /sys/devices/system/cpu hidden: the allowed CPUs make the pseudo-node.
  FakeSysfs empty;
  topology = ReadTopology(empty.Reader({1, 3}));
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_THAT(topology->nodes[0].cpus, ElementsAre(1, 3));
}

TEST(NumaTopologyTest, ReadsCgroupV1CpusetAndQuota) {
  FakeSysfs fs;
  fs.Write("sys/devices/system/node/online", "0-1\n");
  fs.AddNode(0, "0-3");
  fs.AddNode(1, "4-7");
  fs.Write("proc/self/cgroup", "7:cpuset:/docker/abc\n4:cpu,cpuacct:/docker/abc\n");
  fs.Write("sys/fs/cgroup/cpuset/docker/abc/cpuset.effective_cpus", "4-7\n");
  fs.Write("sys/fs/cgroup/cpu/docker/abc/cpu.cfs_quota_us", "150000\n");
  fs.Write("sys/fs/cgroup/cpu/docker/abc/cpu.cfs_period_us", "100000\n");
  absl::StatusOr<NumaTopology> topology = ReadTopology(fs.Reader(Range(0, 7)));
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_THAT(topology->allowed_cpus, ElementsAre(4, 5, 6, 7));
  EXPECT_EQ(topology->allowed_source, "sched_getaffinity ∩ cgroup cpuset.effective_cpus");
  ASSERT_TRUE(topology->cpu_quota.has_value());
  EXPECT_DOUBLE_EQ(*topology->cpu_quota, 1.5);
}

TEST(NumaTopologyTest, IgnoresACpusetDisjointFromTheAffinityMask) {
  FakeSysfs fs;
  fs.Write("sys/devices/system/node/online", "0\n");
  fs.AddNode(0, "0-7");
  fs.Write("sys/fs/cgroup/cpuset.cpus.effective", "6-7\n");
  absl::StatusOr<NumaTopology> topology = ReadTopology(fs.Reader({0, 1}));
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_THAT(topology->allowed_cpus, ElementsAre(0, 1));
  EXPECT_EQ(topology->allowed_source, "sched_getaffinity");
}

TEST(NumaTopologyTest, ReportsBrokenFilesByName) {
  FakeSysfs fs;
  fs.Write("sys/devices/system/node/online", "0-1\n");
  fs.AddNode(0, "0-3");
  absl::StatusOr<NumaTopology> topology = ReadTopology(fs.Reader(Range(0, 3)));
  ASSERT_FALSE(topology.ok());
  EXPECT_EQ(core::CodeOf(topology.status()), core::ErrorCode::kCannotReadFromFile);
  EXPECT_THAT(std::string(topology.status().message()), HasSubstr("NUMA node 1 is online"));

  fs.AddNode(1, "4-x");
  topology = ReadTopology(fs.Reader(Range(0, 3)));
  ASSERT_FALSE(topology.ok());
  EXPECT_EQ(core::CodeOf(topology.status()), core::ErrorCode::kIncorrectData);
  EXPECT_THAT(std::string(topology.status().message()),
              HasSubstr("in /sys/devices/system/node/node1/cpulist"));
}

TEST(NumaTopologyTest, PropagatesAffinityErrors) {
  FakeSysfs fs;
  SysfsReader reader(fs.Reader({}).root(), []() -> absl::StatusOr<std::vector<int>> {
    return core::Error(core::ErrorCode::kCannotReadFromFile, "sched_getaffinity failed: EPERM");
  });
  absl::StatusOr<NumaTopology> topology = ReadTopology(reader);
  ASSERT_FALSE(topology.ok());
  EXPECT_THAT(std::string(topology.status().message()), HasSubstr("sched_getaffinity"));
}

TEST(NumaTopologyTest, ReadsThisMachine) {
  absl::StatusOr<NumaTopology> topology = ReadTopology(SysfsReader());
  ASSERT_TRUE(topology.ok()) << topology.status();
  ASSERT_FALSE(topology->nodes.empty());
  ASSERT_FALSE(topology->allowed_cpus.empty());
  // Every allowed CPU belongs to some node.
  size_t covered = 0;
  for (const NumaNode& node : topology->nodes) covered += topology->AllowedCpusOf(node.id).size();
  EXPECT_EQ(covered, topology->allowed_cpus.size());
}

}  // namespace
}  // namespace granite::worker
