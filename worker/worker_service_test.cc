// WorkerService's insert priority: with an execute nice, a bulk insert (kBulkInsertRows rows or
// more) writes its part lowered, a small one at normal priority. And replicated commits: a
// block id is applied once, and a commit that fails takes its recorded id back.
#include "worker/worker_service.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <memory>
#include <string>
#include <utility>

#include "core/block_codec.h"
#include "core/thread_pool.h"
#include "core/thread_priority.h"
#include "storage/priority_recording_file_system.h"
#include "storage/store.h"
#include "storage/temp_directory.h"

namespace granite::worker {
namespace {

namespace pb = granite::worker::v1;
using core::TypeId;

pb::InsertRequest Request(size_t rows, const std::string& insert_id) {
  auto column = std::make_shared<core::Column>(TypeId::kUInt64);
  for (size_t i = 0; i < rows; ++i) column->Append<uint64_t>(i);
  std::string raw = core::EncodeBlock(core::Block{{column}});
  pb::InsertRequest request;
  request.set_table("t");
  request.set_insert_id(insert_id);
  request.mutable_block()->set_raw_size(raw.size());
  request.mutable_block()->set_data(core::CompressLz4(raw));
  return request;
}

// The priority each insert's files were created at, all expected equal; -1 if none was created.
int PriorityOfFilesSince(const storage::PriorityRecordingFileSystem& files, size_t* seen) {
  auto created = files.created();
  int priority = -1;
  for (size_t i = *seen; i < created.size(); ++i) {
    if (created[i].first.find(storage::kMergeTmpPrefix) != std::string::npos) continue;
    EXPECT_TRUE(priority == -1 || priority == created[i].second) << created[i].first;
    priority = created[i].second;
  }
  *seen = created.size();
  return priority;
}

// A store with table t (x UInt64) on a PriorityRecordingFileSystem, served by a WorkerService.
class WorkerServiceTest : public ::testing::Test {
 protected:
  // Creates the service with `execute_nice`. Call under ASSERT_NO_FATAL_FAILURE.
  void Start(int execute_nice) {
    auto store = storage::Store::Open(dir_.path(), files_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    storage::TableSchema schema;
    schema.name = "t";
    schema.columns = {{"x", TypeId::kUInt64}};
    ASSERT_TRUE(store_->CreateTable(schema, false, false).ok());
    service_ = std::make_unique<WorkerService>(store_.get(), &pool_, WorkerInfo(), execute_nice);
    seen_ = files_->created().size();
  }

  // The priority the files created since the last call were created at.
  int PriorityOfNewFiles() { return PriorityOfFilesSince(*files_, &seen_); }

  storage::TempDirectory dir_;
  std::shared_ptr<storage::PriorityRecordingFileSystem> files_ =
      std::make_shared<storage::PriorityRecordingFileSystem>();
  std::unique_ptr<storage::Store> store_;
  core::ThreadPool pool_{1};
  std::unique_ptr<WorkerService> service_;
  grpc::ServerContext context_;  // a call without metadata (no inter-server secret is set)
  size_t seen_ = 0;
};

TEST_F(WorkerServiceTest, BulkInsertsWriteLoweredSmallOnesAtNormalPriority) {
  if (!core::CanRestoreThreadPriority()) GTEST_SKIP() << "cannot restore thread priority here";
  ASSERT_NO_FATAL_FAILURE(Start(/*execute_nice=*/7));
  pb::InsertResponse response;
  pb::InsertRequest one = Request(1, "");
  pb::InsertRequest bulk = Request(WorkerService::kBulkInsertRows, "");
  pb::InsertRequest prepared_bulk = Request(WorkerService::kBulkInsertRows, "bulk");
  pb::InsertRequest prepared_small = Request(10, "small");
  ASSERT_TRUE(service_->Insert(&context_, &one, &response).ok());
  EXPECT_EQ(response.rows(), 1u);
  EXPECT_EQ(PriorityOfNewFiles(), 0);

  ASSERT_TRUE(service_->Insert(&context_, &bulk, &response).ok());
  EXPECT_EQ(response.rows(), WorkerService::kBulkInsertRows);
  EXPECT_EQ(PriorityOfNewFiles(), 7);
  EXPECT_EQ(core::LoweredThreadPriority(), 0);  // the handler thread is restored

  ASSERT_TRUE(service_->PrepareInsert(&context_, &prepared_bulk, &response).ok());
  EXPECT_EQ(PriorityOfNewFiles(), 7);
  ASSERT_TRUE(service_->PrepareInsert(&context_, &prepared_small, &response).ok());
  EXPECT_EQ(PriorityOfNewFiles(), 0);
  EXPECT_EQ(store_->GetTable("t")->rows(), 1 + WorkerService::kBulkInsertRows);
}

// The automatic priority (-1): a small insert marks a small write; a bulk one then writes at
// SCHED_IDLE.
TEST_F(WorkerServiceTest, AutomaticPriorityLowersBulkInsertsWhileSmallOnesArrive) {
  if (!core::CanRestoreThreadPriority()) GTEST_SKIP() << "cannot restore thread priority here";
  ASSERT_NO_FATAL_FAILURE(Start(core::kAutoThreadPriority));
  pb::InsertResponse response;
  pb::InsertRequest one = Request(1, "");
  pb::InsertRequest bulk = Request(WorkerService::kBulkInsertRows, "");
  ASSERT_TRUE(service_->Insert(&context_, &one, &response).ok());
  EXPECT_EQ(PriorityOfNewFiles(), 0);
  EXPECT_TRUE(core::RecentSmallWrites());
  ASSERT_TRUE(service_->Insert(&context_, &bulk, &response).ok());
  EXPECT_EQ(PriorityOfNewFiles(), core::kAutoIdleThreadPriority);
}

// Replicated commits record the block's id before its parts (storage/block_log.h): a second
// commit of the id is deduplicated, and a commit that fails leaves neither rows nor id. The id
// announced with the prepare is the one recorded, unless the commit names another.
TEST_F(WorkerServiceTest, ReplicatedCommitAppliesAnIdOnceAndForgetsItOnFailure) {
  ASSERT_NO_FATAL_FAILURE(Start(0));
  auto prepare = [&](const std::string& token, const std::string& announced = "") {
    pb::InsertRequest request = Request(10, token);
    request.set_retain(true);
    request.set_block_id(announced);
    pb::InsertResponse response;
    return service_->PrepareInsert(&context_, &request, &response).ok();
  };
  auto commit = [&](const std::string& token, const std::string& id, bool* deduplicated) {
    pb::CommitInsertRequest request;
    request.set_table("t");
    request.set_token(token);
    request.set_block_id(id);
    pb::CommitInsertResponse response;
    grpc::Status status = service_->CommitInsert(&context_, &request, &response);
    *deduplicated = response.deduplicated();
    return status.ok();
  };
  auto blocks = [&] {
    pb::ListBlocksRequest request;
    request.set_table("t");
    pb::ListBlocksResponse response;
    EXPECT_TRUE(service_->ListBlocks(&context_, &request, &response).ok());
    return response.blocks_size();
  };
  bool deduplicated = false;
  ASSERT_TRUE(prepare("a"));
  ASSERT_TRUE(commit("a", "c:one", &deduplicated));
  EXPECT_FALSE(deduplicated);
  ASSERT_TRUE(prepare("b", "c:one"));
  ASSERT_TRUE(commit("b", "c:one", &deduplicated));
  EXPECT_TRUE(deduplicated);
  EXPECT_EQ(store_->GetTable("t")->rows(), 10u);
  EXPECT_EQ(blocks(), 1);
  ASSERT_TRUE(prepare("c", "c:three"));
  ASSERT_TRUE(commit("c", "c:three", &deduplicated));
  EXPECT_FALSE(deduplicated);
  ASSERT_TRUE(prepare("d", "c:announced"));
  ASSERT_TRUE(commit("d", "c:four", &deduplicated));
  EXPECT_FALSE(deduplicated);
  EXPECT_EQ(store_->GetTable("t")->rows(), 30u);
  EXPECT_EQ(blocks(), 3);
  ASSERT_TRUE(prepare("e", "c:three"));
  ASSERT_TRUE(commit("e", "c:three", &deduplicated));
  EXPECT_TRUE(deduplicated);
  ASSERT_TRUE(prepare("f", "c:announced"));
  ASSERT_TRUE(commit("f", "c:announced", &deduplicated));
  EXPECT_FALSE(deduplicated);  // "d" recorded its commit's id, not the announced one
  EXPECT_EQ(store_->GetTable("t")->rows(), 40u);
  // A token that was never prepared: the commit fails and its id is not kept.
  EXPECT_FALSE(commit("never", "c:two", &deduplicated));
  EXPECT_EQ(blocks(), 4);
  EXPECT_EQ(store_->GetTable("t")->rows(), 40u);
}

// A prepared insert does not survive its process: a service started over the same data drops
// what the earlier one staged (its chunks would otherwise stay on disk for good).
TEST_F(WorkerServiceTest, StartDropsInsertsStagedByAnEarlierProcess) {
  ASSERT_NO_FATAL_FAILURE(Start(0));
  pb::InsertRequest request = Request(10, "staged");
  request.set_retain(true);
  request.set_block_id("c:staged");
  pb::InsertResponse response;
  ASSERT_TRUE(service_->PrepareInsert(&context_, &request, &response).ok());
  const std::string staging = store_->GetTable("t")->directory() + "/replication/staging";
  ASSERT_FALSE(std::filesystem::is_empty(staging));
  service_.reset();  // the process ends without a commit or an abort
  store_.reset();
  auto store = storage::Store::Open(dir_.path(), files_);
  ASSERT_TRUE(store.ok()) << store.status();
  store_ = std::move(*store);
  service_ = std::make_unique<WorkerService>(store_.get(), &pool_, WorkerInfo(), 0);
  EXPECT_FALSE(std::filesystem::exists(staging));
  EXPECT_EQ(store_->GetTable("t")->rows(), 0u);
}

}  // namespace
}  // namespace granite::worker
