#include "coordinator/cluster/membership.h"

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.h"
#include "core/mutex.h"
#include "granite/worker/v1/worker.grpc.pb.h"

namespace granite::coordinator {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using std::chrono::milliseconds;

TEST(MembershipTest, ExpandsListsAndStatefulSetPatterns) {
  EXPECT_THAT(*ExpandWorkerSpec("a:9200, b:9201"), ElementsAre("a:9200", "b:9201"));
  EXPECT_THAT(*ExpandWorkerSpec("granite-worker-{0..2}.granite-worker.prod.svc:9200"),
              ElementsAre("granite-worker-0.granite-worker.prod.svc:9200",
                          "granite-worker-1.granite-worker.prod.svc:9200",
                          "granite-worker-2.granite-worker.prod.svc:9200"));
  EXPECT_THAT(*ExpandWorkerSpec("127.0.0.1:920{0..1},[::1]:9300"),
              ElementsAre("127.0.0.1:9200", "127.0.0.1:9201", "[::1]:9300"));
  EXPECT_THAT(*ExpandWorkerSpec("w{7..7}:1"), ElementsAre("w7:1"));
}

TEST(MembershipTest, RejectsBadSpecsNamingTheItem) {
  struct Case {
    const char* spec;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"", "needs at least one worker"},
           {" , ", "needs at least one worker"},
           {"host", "\"host\" in --workers: expected host:port"},
           {"host:0", "port must be a number from 1 to 65535"},
           {"host:70000", "port must be a number"},
           {"host:http", "port must be a number"},
           {"::1:9200", "needs brackets"},
           {"w-{3..1}:9200", "the range {3..1} is reversed"},
           {"w-{a..b}:9200", "expected a range {first..last}"},
           {"w-{0..3:9200", "unclosed {"},
           {"w-{0..1}-{0..1}:9200", "only one {first..last} range"},
           {"w-{0..99999}:9200", "more than 4096 workers"},
           {"a:1,b:2,a:1", "\"a:1\" is listed twice"},
           {"@/nonexistent/workers.conf", "Cannot read the worker list file"},
       }) {
    absl::StatusOr<std::vector<std::string>> addresses = ExpandWorkerSpec(c.spec);
    ASSERT_FALSE(addresses.ok()) << c.spec;
    EXPECT_EQ(core::CodeOf(addresses.status()), core::ErrorCode::kBadArguments) << c.spec;
    EXPECT_THAT(std::string(addresses.status().message()), HasSubstr(c.message)) << c.spec;
  }
}

TEST(MembershipTest, ReadsAWorkerListFile) {
  std::string path = ::testing::TempDir() + "/granite_workers_" + std::to_string(getpid());
  std::ofstream(path) << "# bare-metal workers, one per NUMA node\n"
                         "10.0.0.5:9200   # node 0\n"
                         "10.0.0.5:9201\n\n"
                         "rack2-{0..1}:9200\n";
  EXPECT_THAT(*ExpandWorkerSpec("@" + path),
              ElementsAre("10.0.0.5:9200", "10.0.0.5:9201", "rack2-0:9200", "rack2-1:9200"));
  std::ofstream(path) << "@/etc/other\n";
  EXPECT_FALSE(ExpandWorkerSpec("@" + path).ok());
  std::filesystem::remove(path);
}

// Answers from a table that tests change; counts probes.
class FakeProber : public HealthProber {
 public:
  ProbeResult Probe(const std::string& address, milliseconds timeout) override {
    core::MutexLock lock(mu_);
    ++probes_[address];
    auto it = results_.find(address);
    return it == results_.end() ? ProbeResult{ServingState::kServing, ""} : it->second;
  }
  void Set(const std::string& address, ProbeResult result) {
    core::MutexLock lock(mu_);
    results_[address] = std::move(result);
  }
  int probes(const std::string& address) {
    core::MutexLock lock(mu_);
    return probes_[address];
  }

 private:
  core::Mutex mu_{"fake_prober"};
  std::map<std::string, ProbeResult> results_;
  std::map<std::string, int> probes_;
};

Membership::Options Quiet(milliseconds interval = milliseconds(20)) {
  Membership::Options options;
  options.interval = interval;
  options.timeout = milliseconds(200);
  options.log_transitions = false;
  return options;
}

TEST(MembershipTest, TracksStatesAndFailsFastNamingTheWorker) {
  auto prober = std::make_unique<FakeProber>();
  FakeProber* fake = prober.get();
  Membership membership({"w0:9200", "w1:9200", "w2:9200"}, std::move(prober), Quiet());
  EXPECT_EQ(membership.Health(1).state, ServingState::kUnknown);
  fake->Set("w1:9200", {ServingState::kUnreachable, "failed to connect to all addresses"});
  membership.CheckNow();
  std::vector<WorkerHealth> snapshot = membership.Snapshot();
  EXPECT_EQ(snapshot[0].state, ServingState::kServing);
  EXPECT_EQ(snapshot[1].state, ServingState::kUnreachable);
  EXPECT_EQ(snapshot[1].consecutive_failures, 1);
  EXPECT_EQ(snapshot[1].last_serving, std::chrono::system_clock::time_point());

  EXPECT_TRUE(membership.EnsureAvailable({0, 2}).ok());
  absl::Status status = membership.EnsureAllAvailable();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(core::CodeOf(status), core::ErrorCode::kAllConnectionTriesFailed);
  EXPECT_EQ(status.message(),
            "All connection tries failed: worker 1 (w1:9200) is unreachable (failed to connect "
            "to all addresses), last serving never");
  EXPECT_EQ(membership.Health(1).consecutive_failures, 2);  // re-probed before failing

  // A worker that came back since the last round is found by the re-probe.
  fake->Set("w1:9200", {ServingState::kServing, ""});
  EXPECT_TRUE(membership.EnsureAllAvailable().ok());
  EXPECT_EQ(membership.Health(1).consecutive_failures, 0);

  fake->Set("w0:9200", {ServingState::kNotServing, "health status NOT_SERVING"});
  fake->Set("w2:9200", {ServingState::kUnreachable, "Deadline Exceeded"});
  membership.CheckNow();
  status = membership.EnsureAllAvailable();
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("worker 0 (w0:9200) is not_serving (health status NOT_SERVING), last "
                        "serving 0 s ago; worker 2 (w2:9200) is unreachable"));
}

TEST(MembershipTest, ServingWorkersAreNotProbedOnTheQueryPath) {
  auto prober = std::make_unique<FakeProber>();
  FakeProber* fake = prober.get();
  Membership membership({"w0:9200"}, std::move(prober), Quiet());
  membership.CheckNow();
  ASSERT_TRUE(membership.EnsureAllAvailable().ok());
  ASSERT_TRUE(membership.EnsureAllAvailable().ok());
  EXPECT_EQ(fake->probes("w0:9200"), 1);
}

TEST(MembershipTest, BackgroundCheckerFollowsChanges) {
  auto prober = std::make_unique<FakeProber>();
  FakeProber* fake = prober.get();
  Membership membership({"w0:9200"}, std::move(prober), Quiet());
  membership.Start();
  auto wait_for = [&](ServingState state) {
    for (int i = 0; i < 200 && membership.Health(0).state != state; ++i) {
      std::this_thread::sleep_for(milliseconds(10));
    }
    return membership.Health(0).state;
  };
  EXPECT_EQ(wait_for(ServingState::kServing), ServingState::kServing);
  fake->Set("w0:9200", {ServingState::kUnreachable, "gone"});
  EXPECT_EQ(wait_for(ServingState::kUnreachable), ServingState::kUnreachable);
  EXPECT_GE(fake->probes("w0:9200"), 2);
}

// Returns a loopback port that listens but never accepts: TCP connects, HTTP/2 never answers.
int SilentListener(int* fd) {
  *fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(*fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  EXPECT_EQ(listen(*fd, 16), 0);
  socklen_t length = sizeof(address);
  getsockname(*fd, reinterpret_cast<sockaddr*>(&address), &length);
  return ntohs(address.sin_port);
}

// Real gRPC: a server with the default health service, a closed port, and a silent listener.
TEST(MembershipTest, ProbesRealServersAndNeverHangs) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  granite::worker::v1::Worker::Service unimplemented;  // a server needs one service
  builder.RegisterService(&unimplemented);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(port, 0);
  std::string serving = "127.0.0.1:" + std::to_string(port);

  int closed_fd = 0;
  std::string closed = "127.0.0.1:" + std::to_string(SilentListener(&closed_fd));
  close(closed_fd);  // now nothing listens there: connection refused
  int silent_fd = 0;
  std::string silent = "127.0.0.1:" + std::to_string(SilentListener(&silent_fd));

  GrpcHealthProber prober;
  EXPECT_EQ(prober.Probe(serving, milliseconds(2000)).state, ServingState::kServing);
  EXPECT_EQ(RunHealthCheck(serving, milliseconds(2000)), 0);
  server->GetHealthCheckService()->SetServingStatus(false);
  ProbeResult not_serving = prober.Probe(serving, milliseconds(2000));
  EXPECT_EQ(not_serving.state, ServingState::kNotServing);
  EXPECT_EQ(not_serving.detail, "health status NOT_SERVING");
  EXPECT_EQ(RunHealthCheck(serving, milliseconds(2000)), 1);
  server->GetHealthCheckService()->SetServingStatus(true);

  Membership::Options options = Quiet(milliseconds(60000));
  options.timeout = milliseconds(500);
  Membership membership({serving, closed, silent}, std::make_unique<GrpcHealthProber>(), options);
  auto start = std::chrono::steady_clock::now();
  membership.CheckNow();
  EXPECT_EQ(membership.Health(0).state, ServingState::kServing);
  EXPECT_EQ(membership.Health(1).state, ServingState::kUnreachable);
  EXPECT_EQ(membership.Health(2).state, ServingState::kUnreachable);
  absl::Status status = membership.EnsureAvailable({0, 2});
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::seconds(3));  // two probe rounds of at most 500 ms each
  EXPECT_EQ(core::CodeOf(status), core::ErrorCode::kAllConnectionTriesFailed);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("worker 2 (" + silent + ") is unreachable"));
  EXPECT_TRUE(membership.EnsureAvailable({0}).ok());
  status = membership.EnsureAvailable({1});
  EXPECT_THAT(std::string(status.message()), HasSubstr("worker 1 (" + closed + ")"));
  close(silent_fd);
  server->Shutdown();
}

}  // namespace
}  // namespace granite::coordinator
