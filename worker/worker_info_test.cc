// Tests GetInfo: the placement chosen and applied on fake machines (numa_fake_sysfs.h), as the
// handler reports it and as a client sees it over gRPC.
#include "worker/worker_info.h"

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "core/thread_pool.h"
#include "core/version.h"
#include "core/wire/worker_codec.h"
#include "storage/store.h"
#include "worker/numa_fake_sysfs.h"
#include "worker/worker_service.h"

namespace granite::worker {
namespace {

namespace pb = granite::worker::v1;
using ::testing::HasSubstr;

// A kernel whose memory-policy call returns `memory_result`; affinity always succeeds.
class FakeKernel : public NumaKernel {
 public:
  explicit FakeKernel(absl::Status memory_result = absl::OkStatus())
      : memory_result_(std::move(memory_result)) {}
  bool Available() override { return true; }
  absl::Status SetMemoryPolicy(bool bind, int node) override { return memory_result_; }
  absl::Status SetThreadAffinity(const std::vector<int>& cpus) override {
    return absl::OkStatus();
  }

 private:
  absl::Status memory_result_;
};

// A fake machine of `nodes` nodes with 4 CPUs each; node `memoryless` (if any) has no memory.
NumaTopology Machine(int nodes, std::vector<int> allowed, int memoryless = -1) {
  FakeSysfs fs;
  fs.Write("sys/devices/system/node/online", nodes == 1 ? "0" : absl::StrCat("0-", nodes - 1));
  for (int n = 0; n < nodes; ++n) {
    fs.AddNode(n, absl::StrCat(n * 4, "-", n * 4 + 3), n == memoryless ? 0 : 16 << 20);
  }
  absl::StatusOr<NumaTopology> topology = ReadTopology(fs.Reader(std::move(allowed)));
  EXPECT_TRUE(topology.ok()) << topology.status();
  return topology.value_or(NumaTopology());
}

// A kernel without NUMA support: only /sys/devices/system/cpu/online.
NumaTopology MachineWithoutNuma(std::vector<int> allowed) {
  FakeSysfs fs;
  fs.Write("sys/devices/system/cpu/online", "0-7\n");
  absl::StatusOr<NumaTopology> topology = ReadTopology(fs.Reader(std::move(allowed)));
  EXPECT_TRUE(topology.ok()) << topology.status();
  return topology.value_or(NumaTopology());
}

// Chooses and applies the placement for `flag` the way RunWorker does, and describes it.
WorkerInfo Describe(const NumaTopology& topology, const std::string& flag, int threads = 0,
                    absl::Status memory_result = absl::OkStatus()) {
  absl::StatusOr<NumaPlacement> placement = ChooseNumaPlacement(topology, flag, threads);
  EXPECT_TRUE(placement.ok()) << placement.status();
  if (!placement.ok()) return WorkerInfo();
  FakeKernel kernel(std::move(memory_result));
  EXPECT_TRUE(ApplyNumaPlacement(&*placement, kernel).ok());
  return DescribeWorker(topology, *placement, "/data/worker-0");
}

pb::GetInfoResponse ToProto(const WorkerInfo& info) {
  pb::GetInfoResponse response;
  core::wire::ToProto(ProcessInfoOf(info, info.started + std::chrono::milliseconds(2500)),
                      &response);
  return response;
}

TEST(WorkerInfoTest, MemoryPolicyKind) {
  EXPECT_EQ(MemoryPolicyKind("bind:3", true), "bind");
  EXPECT_EQ(MemoryPolicyKind("preferred:0", true), "preferred");
  EXPECT_EQ(MemoryPolicyKind("default", true), "default");
  EXPECT_EQ(MemoryPolicyKind("default", false), "unsupported");
  EXPECT_EQ(MemoryPolicyKind("", true), "default");
}

TEST(WorkerInfoTest, PinnedToNodeOfTwo) {
  pb::GetInfoResponse info = ToProto(Describe(Machine(2, Range(0, 7)), "1"));
  EXPECT_EQ(info.numa_node(), 1);
  EXPECT_EQ(info.cpus(), "4-7");
  EXPECT_EQ(info.cpu_count(), 4u);
  EXPECT_EQ(info.memory_policy(), "bind");
  EXPECT_EQ(info.threads(), 4u);
  EXPECT_TRUE(info.numa_supported());
  EXPECT_EQ(info.numa_nodes(), 2u);
  EXPECT_THAT(info.placement(), HasSubstr("NUMA: node 1, CPUs 4-7, memory policy bind:1"));
  EXPECT_EQ(info.pid(), static_cast<uint32_t>(getpid()));
  EXPECT_FALSE(info.hostname().empty());
  EXPECT_EQ(info.version(), core::kGraniteVersion);
  EXPECT_EQ(info.data_dir(), "/data/worker-0");
  EXPECT_DOUBLE_EQ(info.uptime_seconds(), 2.5);
}

TEST(WorkerInfoTest, AutoFollowsTheCpusetAndThreadsFlag) {
  // A container whose cpuset is 9-10 on a 4-node machine: auto picks node 2, 2 CPUs, 6 threads.
  pb::GetInfoResponse info = ToProto(Describe(Machine(4, {9, 10}), "auto", 6));
  EXPECT_EQ(info.numa_node(), 2);
  EXPECT_EQ(info.cpus(), "9-10");
  EXPECT_EQ(info.cpu_count(), 2u);
  EXPECT_EQ(info.threads(), 6u);
  EXPECT_EQ(info.numa_nodes(), 4u);
}

TEST(WorkerInfoTest, MemorylessNodeIsPreferred) {
  pb::GetInfoResponse info = ToProto(Describe(Machine(2, Range(0, 7), /*memoryless=*/1), "1"));
  EXPECT_EQ(info.numa_node(), 1);
  EXPECT_EQ(info.memory_policy(), "preferred");
}

TEST(WorkerInfoTest, RefusedMemoryPolicyShowsDefault) {
  pb::GetInfoResponse info = ToProto(
      Describe(Machine(2, Range(0, 7)), "0", 0,
               absl::PermissionDeniedError("set_mempolicy: Operation not permitted")));
  EXPECT_EQ(info.numa_node(), 0);  // still pinned to the node's CPUs
  EXPECT_EQ(info.cpus(), "0-3");
  EXPECT_EQ(info.memory_policy(), "default");
  EXPECT_THAT(info.placement(), HasSubstr("memory policy left at default"));
}

TEST(WorkerInfoTest, UnpinnedReportsEveryAllowedCpu) {
  pb::GetInfoResponse info = ToProto(Describe(Machine(2, {1, 2, 3, 6}), ""));
  EXPECT_EQ(info.numa_node(), -1);
  EXPECT_EQ(info.cpus(), "1-3,6");
  EXPECT_EQ(info.cpu_count(), 4u);
  EXPECT_EQ(info.memory_policy(), "default");
  EXPECT_EQ(info.threads(), 4u);
}

TEST(WorkerInfoTest, NoNumaSupportIsUnsupported) {
  for (const char* flag : {"", "auto", "0"}) {
    SCOPED_TRACE(flag);
    pb::GetInfoResponse info = ToProto(Describe(MachineWithoutNuma(Range(0, 5)), flag));
    EXPECT_EQ(info.numa_node(), -1);
    EXPECT_EQ(info.cpus(), "0-5");
    EXPECT_EQ(info.cpu_count(), 6u);
    EXPECT_EQ(info.memory_policy(), "unsupported");
    EXPECT_FALSE(info.numa_supported());
    EXPECT_EQ(info.numa_nodes(), 1u);
  }
}

TEST(WorkerInfoTest, NotDescribedReportsNoUptime) {
  pb::GetInfoResponse info;
  core::wire::ToProto(ProcessInfoOf(WorkerInfo(), std::chrono::steady_clock::now()), &info);
  EXPECT_EQ(info.numa_node(), -1);
  EXPECT_EQ(info.cpu_count(), 0u);
  EXPECT_EQ(info.uptime_seconds(), 0.0);
}

// Serves a WorkerService over loopback gRPC and calls GetInfo through a stub.
TEST(WorkerInfoTest, GetInfoOverGrpc) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                              absl::StrCat("granite_worker_info_", getpid());
  std::filesystem::remove_all(dir);
  absl::StatusOr<std::unique_ptr<storage::Store>> store = storage::Store::Open(dir.string());
  ASSERT_TRUE(store.ok()) << store.status();
  core::ThreadPool pool(1);
  WorkerInfo described = Describe(Machine(2, Range(0, 7)), "auto");
  {
    WorkerService service(store->get(), &pool, described);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service);
    std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
    ASSERT_NE(port, 0);
    auto stub = pb::Worker::NewStub(grpc::CreateChannel(absl::StrCat("127.0.0.1:", port),
                                                        grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    pb::GetInfoResponse info;
    grpc::Status status = stub->GetInfo(&context, pb::GetInfoRequest(), &info);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(info.numa_node(), 0);  // auto on two equal nodes: the lowest id
    EXPECT_EQ(info.cpus(), "0-3");
    EXPECT_EQ(info.memory_policy(), "bind");
    EXPECT_EQ(info.threads(), 4u);
    EXPECT_GE(info.uptime_seconds(), 0.0);
    EXPECT_LT(info.uptime_seconds(), 60.0);
    server->Shutdown();
  }
  store->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace granite::worker
