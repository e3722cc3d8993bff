// WorkerClient against a fake worker on loopback: answers arrive typed, a worker's ClickHouse
// error keeps its code and message, every call carries the inter-server secret and its deadline,
// and an address where nothing listens is Unreachable.
#include "coordinator/cluster/worker_client.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>

#include "coordinator/cluster/address_test_support.h"
#include "core/error.h"
#include "core/interserver_secret.h"
#include "core/mutex.h"
#include "core/rpc_status.h"
#include "granite/worker/v1/worker.grpc.pb.h"

namespace granite::coordinator {
namespace {

namespace pb = granite::worker::v1;
using std::chrono::milliseconds;

// Records what arrived with each call.
class FakeWorker : public pb::Worker::Service {
 public:
  grpc::Status AttachPart(grpc::ServerContext* context, const pb::DetachedPartRequest* request,
                          pb::DetachedPartResponse* response) override {
    Record(*context);
    if (request->name() == "missing") {
      return core::ToGrpcStatus(
          core::Error(core::ErrorCode::kNoSuchDataPart, "No detached part missing"));
    }
    response->set_part(request->table() + "/" + request->name());
    return grpc::Status::OK;
  }
  grpc::Status CommitInsert(grpc::ServerContext* context, const pb::CommitInsertRequest* request,
                            pb::CommitInsertResponse* response) override {
    Record(*context);
    response->add_parts(request->token() + ":" + request->block_id());
    response->set_deduplicated(true);
    return grpc::Status::OK;
  }

  std::string secret() const {
    core::MutexLock lock(mu_);
    return secret_;
  }
  // Seconds from the call's arrival to its deadline.
  double deadline_seconds() const {
    core::MutexLock lock(mu_);
    return deadline_seconds_;
  }

 private:
  void Record(const grpc::ServerContext& context) {
    core::MutexLock lock(mu_);
    auto it = context.client_metadata().find(core::kInterServerSecretHeader);
    secret_ = it == context.client_metadata().end()
                  ? std::string()
                  : std::string(it->second.data(), it->second.size());
    deadline_seconds_ = std::chrono::duration<double>(context.deadline() -
                                                      std::chrono::system_clock::now())
                            .count();
  }

  mutable core::Mutex mu_{"fake_worker"};
  std::string secret_ GUARDED_BY(mu_);
  double deadline_seconds_ GUARDED_BY(mu_) = 0;
};

class WorkerClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    core::SetInterServerSecret("s3cret");
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&worker_);
    server_ = builder.BuildAndStart();
    workers_ = std::make_unique<WorkerSet>(
        std::vector<std::string>{"127.0.0.1:" + std::to_string(port), test::ClosedAddress()});
  }
  void TearDown() override {
    server_->Shutdown();
    core::SetInterServerSecret("");
  }


  FakeWorker worker_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<WorkerSet> workers_;
};

TEST_F(WorkerClientTest, AnswersArriveTypedWithSecretAndDeadline) {
  WorkerClient client(*workers_);
  absl::StatusOr<std::string> part =
      client.AttachPart(0, {"db.t", "all_1_1_0"}, std::chrono::minutes(30));
  ASSERT_TRUE(part.ok()) << part.status();
  EXPECT_EQ(*part, "db.t/all_1_1_0");
  EXPECT_EQ(worker_.secret(), "s3cret");
  // The deadline is the caller's: 30 minutes from the call (the lower bound leaves a slow machine
  // minutes; gRPC rounds the timeout it sends up, by 10 s in one run: the upper bound allows a
  // minute, still far from any other deadline of the client).
  EXPECT_GT(worker_.deadline_seconds(), 25 * 60);
  EXPECT_LT(worker_.deadline_seconds(), 31 * 60);

  absl::StatusOr<core::worker_api::CommitInsertResult> commit =
      client.CommitInsert(0, {"t", "tok", "c:ab"}, std::chrono::seconds(60));
  ASSERT_TRUE(commit.ok()) << commit.status();
  EXPECT_EQ(commit->parts, std::vector<std::string>{"tok:c:ab"});
  EXPECT_TRUE(commit->deduplicated);
  EXPECT_LT(worker_.deadline_seconds(), 60 + 5);
}

TEST_F(WorkerClientTest, WorkerErrorKeepsItsCode) {
  absl::StatusOr<std::string> part =
      WorkerClient(*workers_).AttachPart(0, {"t", "missing"}, std::chrono::seconds(60));
  ASSERT_FALSE(part.ok());
  EXPECT_EQ(core::CodeOf(part.status()), core::ErrorCode::kNoSuchDataPart);
  EXPECT_EQ(part.status().message(), "No detached part missing");
  EXPECT_FALSE(Unreachable(part.status()));
}

TEST_F(WorkerClientTest, NothingListeningIsUnreachableAndNamesTheAddress) {
  absl::Status status = WorkerClient(*workers_).Optimize(1, {"t", false}, std::chrono::seconds(10));
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(Unreachable(status)) << status;
  EXPECT_NE(status.message().find(workers_->address(1)), std::string::npos) << status;
}

}  // namespace
}  // namespace granite::coordinator
