// FanOut against fake workers in this process, many shards at once (all of a query's streams
// are read on the calling thread, stream_set.h): each shard's rows arrive under its index and
// its statistics add up; a stream that fails mid-query fails the query with the worker's code
// and address and stops the others; a cancel while 64 streams are open ends every one of them;
// with a replica of every shard down, each shard fails over to its other replica.
#include "coordinator/cluster/fan_out.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coordinator/cluster/address_test_support.h"
#include "core/block_codec.h"
#include "core/error.h"
#include "core/rpc_status.h"
#include "granite/worker/v1/worker.grpc.pb.h"

namespace granite::coordinator {
namespace {

namespace pb = granite::worker::v1;
using core::TypeId;

// Answers a fragment with one row holding the shard's index and a statistics chunk of 10 rows
// read; `fail_shard` fails after its row, and with `hold` every shard waits after its row until
// the call is cancelled.
class FakeWorker : public pb::Worker::Service {
 public:
  grpc::Status Execute(grpc::ServerContext* context, const pb::FragmentRequest* request,
                       grpc::ServerWriter<pb::FragmentChunk>* writer) override {
    pb::Fragment fragment;
    if (!fragment.ParseFromString(request->fragment())) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad fragment");
    }
    const uint32_t shard = fragment.worker_index();
    auto column = std::make_shared<core::Column>(TypeId::kUInt64);
    column->Append<uint64_t>(shard);
    core::Block block;
    block.columns = {column};
    block.rows_without_columns = 1;
    const std::string raw = core::EncodeBlock(block);
    pb::FragmentChunk chunk;
    chunk.mutable_block()->set_rows(1);
    chunk.mutable_block()->set_raw_size(raw.size());
    chunk.mutable_block()->set_data(raw);
    ++started;
    if (!writer->Write(chunk)) return grpc::Status(grpc::StatusCode::CANCELLED, "gone");
    if (static_cast<int>(shard) == fail_shard.load()) {
      return core::ToGrpcStatus(core::Error(core::ErrorCode::kTooManyRows,
                                            "shard " + std::to_string(shard) + " over its limit"));
    }
    if (hold.load()) {
      while (!context->IsCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ++cancelled;
      return grpc::Status(grpc::StatusCode::CANCELLED, "cancelled");
    }
    pb::FragmentChunk stats;
    stats.mutable_stats()->set_read_rows(10);
    writer->Write(stats);
    return grpc::Status::OK;
  }

  std::atomic<int> fail_shard{-1};
  std::atomic<bool> hold{false};
  std::atomic<int> started{0};
  std::atomic<int> cancelled{0};
};

class FanOutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&worker_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(port_, 0);
  }
  void TearDown() override { server_->Shutdown(); }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }


  // Checks that shard i answered its own index.
  static void ExpectEachShardsRow(const std::vector<std::vector<core::Block>>& blocks,
                                  size_t shards) {
    ASSERT_EQ(blocks.size(), shards);
    for (size_t i = 0; i < shards; ++i) {
      ASSERT_EQ(blocks[i].size(), 1u) << i;
      ASSERT_EQ(blocks[i][0].rows(), 1u) << i;
      EXPECT_EQ(blocks[i][0].columns[0]->Get<uint64_t>(0), i);
    }
  }

  FakeWorker worker_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(FanOutTest, SixtyFourShardsAnswerUnderTheirIndex) {
  WorkerSet workers(std::vector<std::string>(64, address()));
  for (int round = 0; round < 3; ++round) {
    QueryContext query("q");
    auto blocks = FanOut(workers, core::plan::Fragment(), &query, nullptr);
    ASSERT_TRUE(blocks.ok()) << blocks.status();
    ExpectEachShardsRow(*blocks, 64);
    EXPECT_EQ(query.read_rows.load(), 640u);
  }
}

TEST_F(FanOutTest, OnlyTheShardsTheFilterLeavesAreAsked) {
  WorkerSet workers(std::vector<std::string>(16, address()));
  core::plan::Fragment fragment;
  fragment.shards = {3, 11};
  QueryContext query("q");
  auto blocks = FanOut(workers, fragment, &query, nullptr);
  ASSERT_TRUE(blocks.ok()) << blocks.status();
  EXPECT_EQ(worker_.started.load(), 2);
  ASSERT_EQ(blocks->size(), 16u);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ((*blocks)[i].size(), i == 3 || i == 11 ? 1u : 0u);
}

TEST_F(FanOutTest, AStreamFailingMidQueryFailsItNamingTheWorker) {
  WorkerSet workers(std::vector<std::string>(64, address()));
  worker_.fail_shard = 37;
  QueryContext query("q");
  auto blocks = FanOut(workers, core::plan::Fragment(), &query, nullptr);
  ASSERT_FALSE(blocks.ok());
  EXPECT_EQ(core::CodeOf(blocks.status()), core::ErrorCode::kTooManyRows) << blocks.status();
  EXPECT_NE(blocks.status().message().find("Received from " + address()), std::string::npos)
      << blocks.status();
  EXPECT_NE(blocks.status().message().find("shard 37 over its limit"), std::string::npos)
      << blocks.status();
  EXPECT_TRUE(query.cancelled());  // the failure stopped every other stream
}

TEST_F(FanOutTest, CancelWhileSixtyFourStreamsAreOpenEndsThemAll) {
  WorkerSet workers(std::vector<std::string>(64, address()));
  worker_.hold = true;
  QueryContext query("q");
  std::thread killer([&] {
    // KILL QUERY once every worker has sent its row and waits.
    while (worker_.started.load() < 64) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    query.Cancel();
  });
  const auto start = std::chrono::steady_clock::now();
  auto blocks = FanOut(workers, core::plan::Fragment(), &query, nullptr);
  killer.join();
  ASSERT_FALSE(blocks.ok());
  EXPECT_EQ(core::CodeOf(blocks.status()), core::ErrorCode::kQueryWasCancelled)
      << blocks.status();
  // Every worker saw its call cancelled (the server side notices within its polling).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (worker_.cancelled.load() < 64 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(worker_.cancelled.load(), 64);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

TEST_F(FanOutTest, ACancelledQueryStartsNoStream) {
  WorkerSet workers(std::vector<std::string>(8, address()));
  QueryContext query("q");
  query.Cancel();
  auto blocks = FanOut(workers, core::plan::Fragment(), &query, nullptr);
  ASSERT_FALSE(blocks.ok());
  EXPECT_EQ(core::CodeOf(blocks.status()), core::ErrorCode::kQueryWasCancelled);
  EXPECT_EQ(worker_.started.load(), 0);
}

TEST_F(FanOutTest, EachShardFailsOverToItsLiveReplica) {
  // 16 shards x 2 replicas; one replica of every shard is down (alternately the first and the
  // second), so whichever order load balancing picks, every shard answers from its live one.
  std::vector<std::string> addresses;
  const std::string closed = test::ClosedAddress();
  for (int shard = 0; shard < 16; ++shard) {
    addresses.push_back(shard % 2 == 0 ? closed : address());
    addresses.push_back(shard % 2 == 0 ? address() : closed);
  }
  WorkerSet workers(addresses, 2);
  for (const char* balancing : {"in_order", "random"}) {
    core::plan::Fragment fragment;
    fragment.settings.load_balancing = balancing;
    QueryContext query("q");
    auto blocks = FanOut(workers, fragment, &query, nullptr);
    ASSERT_TRUE(blocks.ok()) << balancing << ": " << blocks.status();
    ExpectEachShardsRow(*blocks, 16);
  }
}

TEST_F(FanOutTest, AShardWithEveryReplicaDownNamesEachReplica) {
  const std::string closed = test::ClosedAddress();
  WorkerSet workers({address(), address(), closed, closed}, 2);
  QueryContext query("q");
  auto blocks = FanOut(workers, core::plan::Fragment(), &query, nullptr);
  ASSERT_FALSE(blocks.ok());
  EXPECT_EQ(core::CodeOf(blocks.status()), core::ErrorCode::kAllConnectionTriesFailed)
      << blocks.status();
  EXPECT_NE(blocks.status().message().find("shard 1"), std::string::npos) << blocks.status();
  EXPECT_NE(blocks.status().message().find("replica 0"), std::string::npos) << blocks.status();
  EXPECT_NE(blocks.status().message().find("replica 1"), std::string::npos) << blocks.status();
}

}  // namespace
}  // namespace granite::coordinator
