// ExecuteInsert against fake workers that record Insert / PrepareInsert / CommitInsert /
// AbortInsert: text input is sent in chunks under one token (chunk 0, 1, ... per worker), every
// row arrives exactly once and, with a sharding key, on its worker; a bad row or a failing worker
// in a later chunk aborts every chunk everywhere and commits nothing; one chunk for one worker is
// a single Insert call.
#include "coordinator/exec/insert_executor.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "coordinator/cluster/sharding_key.h"
#include "core/block_codec.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "core/mutex.h"
#include "core/thread_pool.h"
#include "granite/worker/v1/worker.grpc.pb.h"

namespace granite::coordinator {
namespace {

namespace pb = granite::worker::v1;
using core::TypeId;

// Keeps prepared chunks per token and makes them "visible" on commit (or at once, by Insert).
class FakeWorker : public pb::Worker::Service {
 public:
  grpc::Status Insert(grpc::ServerContext*, const pb::InsertRequest* request,
                      pb::InsertResponse*) override {
    core::MutexLock lock(mu_);
    ++inserts_;
    if (fail_insert_) return grpc::Status(grpc::StatusCode::INTERNAL, "disk full");
    visible_.push_back(Decode(request->block()));
    return grpc::Status::OK;
  }
  grpc::Status PrepareInsert(grpc::ServerContext*, const pb::InsertRequest* request,
                             pb::InsertResponse*) override {
    core::MutexLock lock(mu_);
    ++prepares_;
    if (fail_prepare_at_ > 0 && prepares_ == fail_prepare_at_) {
      return grpc::Status(grpc::StatusCode::INTERNAL, "disk full");
    }
    std::vector<core::Block>& chunks = prepared_[request->insert_id()];
    if (request->chunk() != chunks.size()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "chunk out of order");
    }
    chunks.push_back(Decode(request->block()));
    return grpc::Status::OK;
  }
  grpc::Status CommitInsert(grpc::ServerContext*, const pb::CommitInsertRequest* request,
                            pb::CommitInsertResponse*) override {
    core::MutexLock lock(mu_);
    ++commits_;
    auto it = prepared_.find(request->token());
    if (it == prepared_.end()) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "unknown");
    for (core::Block& block : it->second) visible_.push_back(std::move(block));
    prepared_.erase(it);
    return grpc::Status::OK;
  }
  grpc::Status AbortInsert(grpc::ServerContext*, const pb::AbortInsertRequest* request,
                           pb::AbortInsertResponse*) override {
    core::MutexLock lock(mu_);
    ++aborts_;
    prepared_.erase(request->token());
    return grpc::Status::OK;
  }

  // Blocks received uncompressed and LZ4-compressed (wire data: core/block_codec.h).
  int raw_blocks() {
    core::MutexLock lock(mu_);
    return raw_blocks_;
  }
  int lz4_blocks() {
    core::MutexLock lock(mu_);
    return lz4_blocks_;
  }

  void FailInserts() {
    core::MutexLock lock(mu_);
    fail_insert_ = true;
  }
  void FailPrepareNumber(int n) {
    core::MutexLock lock(mu_);
    fail_prepare_at_ = n;
  }
  // Returns the visible values of column `column` (UInt64).
  std::vector<uint64_t> Visible(size_t column) {
    core::MutexLock lock(mu_);
    std::vector<uint64_t> values;
    for (const core::Block& block : visible_) {
      for (size_t r = 0; r < block.rows(); ++r) {
        values.push_back(block.columns[column]->Get<uint64_t>(r));
      }
    }
    return values;
  }
  size_t prepared_tokens() {
    core::MutexLock lock(mu_);
    return prepared_.size();
  }
  int prepares() {
    core::MutexLock lock(mu_);
    return prepares_;
  }
  int aborts() {
    core::MutexLock lock(mu_);
    return aborts_;
  }
  int inserts() {
    core::MutexLock lock(mu_);
    return inserts_;
  }
  int commits() {
    core::MutexLock lock(mu_);
    return commits_;
  }

 private:
  core::Block Decode(const pb::BlockData& data) REQUIRES(mu_) {
    ++(data.data().size() == data.raw_size() ? raw_blocks_ : lz4_blocks_);
    absl::StatusOr<core::Block> block = core::DecodeWireBlock(data.data(), data.raw_size());
    EXPECT_TRUE(block.ok()) << block.status();
    return block.ok() ? *std::move(block) : core::Block();
  }

  core::Mutex mu_{"fake_worker"};
  std::map<std::string, std::vector<core::Block>> prepared_ GUARDED_BY(mu_);
  std::vector<core::Block> visible_ GUARDED_BY(mu_);
  int prepares_ GUARDED_BY(mu_) = 0;
  int aborts_ GUARDED_BY(mu_) = 0;
  int inserts_ GUARDED_BY(mu_) = 0;
  int commits_ GUARDED_BY(mu_) = 0;
  int fail_prepare_at_ GUARDED_BY(mu_) = 0;
  int raw_blocks_ GUARDED_BY(mu_) = 0;
  int lz4_blocks_ GUARDED_BY(mu_) = 0;
  bool fail_insert_ GUARDED_BY(mu_) = false;
};

class InsertExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::string> addresses;
    for (int i = 0; i < 3; ++i) {
      workers_.push_back(std::make_unique<FakeWorker>());
      grpc::ServerBuilder builder;
      int port = 0;
      builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
      builder.RegisterService(workers_.back().get());
      servers_.push_back(builder.BuildAndStart());
      addresses.push_back("127.0.0.1:" + std::to_string(port));
    }
    set_ = std::make_unique<WorkerSet>(addresses);
    schema_.name = "t";
    for (const char* name : {"k", "v"}) schema_.columns.push_back({name, TypeId::kUInt64});
  }
  void TearDown() override {
    for (auto& server : servers_) server->Shutdown();
  }

  absl::StatusOr<uint64_t> Insert(const std::string& format, const std::string& text,
                                  size_t chunk_rows, InputSource* more = nullptr,
                                  std::function<bool()> cancelled = nullptr) {
    sql::InsertStatement insert;
    insert.table = "t";
    insert.format = format;
    InsertOptions options;
    options.chunk.max_rows = chunk_rows;
    options.cancelled = std::move(cancelled);
    options.parse_pool = parse_pool_;
    options.compression = compression_;
    SelectRunner no_select = [](const sql::SelectStatement&) -> absl::StatusOr<core::Block> {
      return core::Error(core::ErrorCode::kNotImplemented, "no SELECT here");
    };
    return ExecuteInsert(insert, text, more, schema_, set_for_test_ ? *set_for_test_ : *set_,
                         no_select, options);
  }

  std::vector<std::unique_ptr<FakeWorker>> workers_;
  std::vector<std::unique_ptr<grpc::Server>> servers_;
  std::unique_ptr<WorkerSet> set_;
  core::TableSchema schema_;
  core::ThreadPool* parse_pool_ = nullptr;  // InsertOptions::parse_pool of Insert
  std::optional<core::WireCompression> compression_;
  const WorkerSet* set_for_test_ = nullptr;  // instead of set_
};

std::string Rows(int n, int bad_row = 0) {
  std::string text;
  for (int i = 1; i <= n; ++i) {
    text += i == bad_row ? "oops\t1\n" : std::to_string(i) + "\t" + std::to_string(i * 10) + "\n";
  }
  return text;
}

TEST_F(InsertExecutorTest, EveryRowArrivesOnceOverManyChunks) {
  auto rows = Insert("TSV", Rows(1000), 64);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, 1000u);
  std::vector<int> seen(1001, 0);
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->prepares(), 16);  // ceil(1000 / 64) chunks, each split over all workers
    EXPECT_EQ(worker->prepared_tokens(), 0u);
    for (uint64_t k : worker->Visible(0)) ++seen.at(k);
  }
  for (int k = 1; k <= 1000; ++k) EXPECT_EQ(seen[k], 1) << k;
}

// A block of `n` rows (k, v) = (first + i, (first + i) * 10).
core::Block Pairs(uint64_t first, size_t n) {
  core::Block block;
  auto k = std::make_shared<core::Column>(TypeId::kUInt64);
  auto v = std::make_shared<core::Column>(TypeId::kUInt64);
  for (uint64_t i = first; i < first + n; ++i) {
    k->Append(i);
    v->Append(i * 10);
  }
  block.columns = {k, v};
  return block;
}

TEST_F(InsertExecutorTest, InsertSelectSendsChunksWhileTheSelectStreams) {
  sql::InsertStatement insert;
  insert.table = "t";
  insert.select = std::make_shared<sql::SelectStatement>();
  InsertOptions options;
  options.chunk.max_rows = 100;
  SelectRunner no_select = [](const sql::SelectStatement&) -> absl::StatusOr<core::Block> {
    return core::Error(core::ErrorCode::kNotImplemented, "the SELECT must stream");
  };
  // 25 blocks of 40 rows: a chunk leaves each time 100 rows are gathered, before the SELECT
  // has produced the rest (the workers have seen prepares mid-stream).
  int prepares_mid_stream = 0;
  options.stream_select = [&](const sql::SelectStatement&, ResultSink* sink) -> absl::Status {
    RETURN_IF_ERROR(sink->Begin({"a", "b"}, {TypeId::kUInt64, TypeId::kUInt64}, ""));
    for (int b = 0; b < 25; ++b) {
      RETURN_IF_ERROR(sink->Push(Pairs(1 + b * 40, 40)).status());
      if (b == 12) prepares_mid_stream = workers_[0]->prepares();
    }
    return absl::OkStatus();
  };
  auto rows = ExecuteInsert(insert, "", nullptr, schema_, *set_, no_select, options);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, 1000u);
  // 13 blocks pushed: every third one brought the gathered rows past 100, so four chunks left.
  EXPECT_EQ(prepares_mid_stream, 4);
  std::vector<int> seen(1001, 0);
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->prepared_tokens(), 0u);
    std::vector<uint64_t> k = worker->Visible(0), v = worker->Visible(1);
    for (size_t r = 0; r < k.size(); ++r) {
      ++seen.at(k[r]);
      EXPECT_EQ(v[r], k[r] * 10);
    }
  }
  for (int k = 1; k <= 1000; ++k) EXPECT_EQ(seen[k], 1) << k;

  // A SELECT of another column count fails before anything is sent.
  options.stream_select = [&](const sql::SelectStatement&, ResultSink* sink) -> absl::Status {
    return sink->Begin({"a"}, {TypeId::kUInt64}, "");
  };
  auto wrong = ExecuteInsert(insert, "", nullptr, schema_, *set_, no_select, options);
  EXPECT_EQ(core::CodeOf(wrong.status()), core::ErrorCode::kNumberOfColumnsDoesntMatch);
}

TEST_F(InsertExecutorTest, ShardedRowsLandOnTheirWorkerInEveryChunk) {
  schema_.sharding_key.push_back("k");
  ASSERT_TRUE(Insert("CSV", "", 1).ok());  // no rows: nothing sent
  std::string csv;
  for (int i = 1; i <= 500; ++i) csv += std::to_string(i) + "," + std::to_string(i) + "\n";
  auto rows = Insert("CSV", csv, 37);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, 500u);
  size_t total = 0;
  for (size_t w = 0; w < workers_.size(); ++w) {
    std::vector<uint64_t> keys = workers_[w]->Visible(0);
    total += keys.size();
    auto column = std::make_shared<core::Column>(TypeId::kUInt64);
    for (uint64_t k : keys) column->Append(k);
    core::Block block{{column}};
    for (uint32_t shard : ShardOfRows(block, {0}, workers_.size())) EXPECT_EQ(shard, w);
  }
  EXPECT_EQ(total, 500u);
}

TEST_F(InsertExecutorTest, ABadRowInChunkThreeOfFiveLeavesNothingVisible) {
  // 5 chunks of 100 rows; row 250 (chunk 3) is malformed.
  auto rows = Insert("TSV", Rows(500, 250), 100);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(core::CodeOf(rows.status()), core::ErrorCode::kCannotParseText);
  EXPECT_NE(rows.status().message().find("row 250, line 250"), std::string::npos)
      << rows.status();
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->prepares(), 2);  // chunks 1 and 2 were sent...
    EXPECT_EQ(worker->aborts(), 1);    // ...and aborted
    EXPECT_EQ(worker->prepared_tokens(), 0u);
    EXPECT_TRUE(worker->Visible(0).empty());
  }
}

TEST_F(InsertExecutorTest, AWorkerFailingALaterChunkAbortsEveryWorker) {
  workers_[1]->FailPrepareNumber(3);
  auto rows = Insert("TSV", Rows(500), 100);
  ASSERT_FALSE(rows.ok());
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->aborts(), 1);
    EXPECT_EQ(worker->prepared_tokens(), 0u);
    EXPECT_TRUE(worker->Visible(0).empty());
  }
}

// Yields fixed pieces, like the gRPC stream of a client; optionally fails at the end.
class PiecesSource : public InputSource {
 public:
  PiecesSource(std::vector<std::string> pieces, bool cancel)
      : pieces_(std::move(pieces)), cancel_(cancel) {}
  absl::StatusOr<bool> Next(std::string* piece) override {
    if (at_ < pieces_.size()) {
      *piece = pieces_[at_++];
      return true;
    }
    if (cancel_) return core::Error(core::ErrorCode::kQueryWasCancelled, "cancelled");
    return false;
  }
  size_t taken() const { return at_; }

 private:
  std::vector<std::string> pieces_;
  size_t at_ = 0;
  bool cancel_;
};

TEST_F(InsertExecutorTest, StreamedPiecesSplitMidRowAreJoined) {
  std::string text = Rows(300);
  std::vector<std::string> pieces;
  for (size_t at = 100; at < text.size(); at += 97) pieces.push_back(text.substr(at, 97));
  PiecesSource source(pieces, false);
  auto rows = Insert("TSV", text.substr(0, 100), 50, &source);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, 300u);
  size_t total = 0;
  for (auto& worker : workers_) total += worker->Visible(0).size();
  EXPECT_EQ(total, 300u);
}

TEST_F(InsertExecutorTest, AStreamCancelledAfterSomeChunksLeavesNothingVisible) {
  PiecesSource source({Rows(200)}, true);
  auto rows = Insert("TSV", "", 50, &source);
  EXPECT_EQ(core::CodeOf(rows.status()), core::ErrorCode::kQueryWasCancelled);
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->prepared_tokens(), 0u);
    EXPECT_TRUE(worker->Visible(0).empty());
  }
}

TEST_F(InsertExecutorTest, AKillWhileTheInputStreamsStopsAtTheNextPiece) {
  // Pieces of 3 rows, chunks of 64 MiB (the default): no chunk fills before the kill, which is
  // seen before the fifth piece is read rather than at the end of the input.
  std::vector<std::string> pieces;
  for (int p = 0; p < 100; ++p) pieces.push_back(Rows(3));
  PiecesSource source(pieces, false);
  int polls = 0;
  sql::InsertStatement insert;
  insert.table = "t";
  insert.format = "TSV";
  InsertOptions options;
  options.cancelled = [&polls] { return ++polls > 4; };
  SelectRunner no_select = [](const sql::SelectStatement&) -> absl::StatusOr<core::Block> {
    return core::Error(core::ErrorCode::kNotImplemented, "no SELECT here");
  };
  auto rows = ExecuteInsert(insert, "", &source, schema_, *set_, no_select, options);
  EXPECT_EQ(core::CodeOf(rows.status()), core::ErrorCode::kQueryWasCancelled) << rows.status();
  EXPECT_EQ(source.taken(), 4u);
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->prepares(), 0);
    EXPECT_TRUE(worker->Visible(0).empty());
  }
}

TEST_F(InsertExecutorTest, AKillBetweenChunksAbortsEveryWorker) {
  int polls = 0;
  auto rows = Insert("TSV", Rows(500), 100, nullptr, [&polls] { return ++polls > 2; });
  EXPECT_EQ(core::CodeOf(rows.status()), core::ErrorCode::kQueryWasCancelled) << rows.status();
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->prepares(), 2);  // chunks 1 and 2 went out before the kill...
    EXPECT_EQ(worker->aborts(), 1);    // ...and were aborted
    EXPECT_EQ(worker->prepared_tokens(), 0u);
    EXPECT_TRUE(worker->Visible(0).empty());
  }
}

TEST_F(InsertExecutorTest, AShardedTableRefusesAnotherWorkerCount) {
  schema_.sharding_key.push_back("k");
  schema_.shard_count = 2;  // created on 2 workers; the cluster has 3
  auto rows = Insert("TSV", Rows(10), 100);
  EXPECT_EQ(core::CodeOf(rows.status()), core::ErrorCode::kBadArguments) << rows.status();
  EXPECT_NE(rows.status().message().find("over 2 workers, but the cluster has 3"),
            std::string::npos)
      << rows.status();
  for (auto& worker : workers_) EXPECT_EQ(worker->prepares(), 0);
  schema_.shard_count = 3;
  rows = Insert("TSV", Rows(10), 100);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, 10u);
}

TEST_F(InsertExecutorTest, SingleRowInsertsWithoutAKeySpreadOverEveryWorker) {
  for (int i = 1; i <= 30; ++i) {
    auto rows = Insert("TSV", std::to_string(i) + "\t" + std::to_string(i) + "\n", 100);
    ASSERT_TRUE(rows.ok()) << rows.status();
  }
  std::map<uint64_t, int> seen;
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->Visible(0).size(), 10u);  // 30 one-row inserts, round-robin over 3
    EXPECT_EQ(worker->inserts(), 10);
    for (uint64_t k : worker->Visible(0)) ++seen[k];
  }
  EXPECT_EQ(seen.size(), 30u);
}

TEST_F(InsertExecutorTest, OneChunkForOneWorkerIsASingleInsertCall) {
  schema_.sharding_key.push_back("k");
  auto rows = Insert("CSV", "7,70\n7,71\n", 100);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, 2u);
  const size_t owner = ShardOfRows(
      core::Block{{[] {
        auto column = std::make_shared<core::Column>(TypeId::kUInt64);
        column->Append(uint64_t{7});
        return column;
      }()}},
      {0}, workers_.size())[0];
  for (size_t w = 0; w < workers_.size(); ++w) {
    EXPECT_EQ(workers_[w]->prepares(), 0) << w;
    EXPECT_EQ(workers_[w]->commits(), 0) << w;
    EXPECT_EQ(workers_[w]->inserts(), w == owner ? 1 : 0) << w;
    EXPECT_EQ(workers_[w]->Visible(1),
              w == owner ? std::vector<uint64_t>({70, 71}) : std::vector<uint64_t>()) << w;
  }
}

TEST_F(InsertExecutorTest, OneChunkForSeveralWorkersIsPreparedAndCommitted) {
  auto rows = Insert("TSV", Rows(3), 100);  // one row per worker
  ASSERT_TRUE(rows.ok()) << rows.status();
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->inserts(), 0);
    EXPECT_EQ(worker->prepares(), 1);
    EXPECT_EQ(worker->commits(), 1);
    EXPECT_EQ(worker->Visible(0).size(), 1u);
  }
}

TEST_F(InsertExecutorTest, ManyChunksForOneWorkerArePreparedAndCommitted) {
  // Every row has the same key, so one worker gets them all, in 5 chunks: all or nothing needs
  // the second phase even on one worker.
  schema_.sharding_key.push_back("k");
  std::string csv;
  for (int i = 0; i < 50; ++i) csv += "7," + std::to_string(i) + "\n";
  auto rows = Insert("CSV", csv, 10);
  ASSERT_TRUE(rows.ok()) << rows.status();
  size_t visible = 0;
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->inserts(), 0);
    EXPECT_EQ(worker->commits(), worker->prepares() > 0 ? 1 : 0);
    visible += worker->Visible(0).size();
  }
  EXPECT_EQ(visible, 50u);
}

TEST_F(InsertExecutorTest, AFailedSingleInsertCallReturnsItsErrorAndShowsNothing) {
  schema_.sharding_key.push_back("k");
  for (auto& worker : workers_) worker->FailInserts();
  auto rows = Insert("CSV", "7,70\n", 100);
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("disk full"), std::string::npos) << rows.status();
  int inserts = 0;
  for (auto& worker : workers_) {
    inserts += worker->inserts();
    EXPECT_EQ(worker->prepares(), 0);
    EXPECT_EQ(worker->aborts(), 0);  // nothing was prepared, so nothing to abort
    EXPECT_TRUE(worker->Visible(0).empty());
  }
  EXPECT_EQ(inserts, 1);
}

// Workers on this host get their slices uncompressed, unless the query set
// network_compression_method.
TEST_F(InsertExecutorTest, LoopbackWorkersGetRawBlocksUnlessCompressionIsSet) {
  ASSERT_TRUE(Insert("TSV", Rows(3000), 1000).ok());
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->raw_blocks(), 3);
    EXPECT_EQ(worker->lz4_blocks(), 0);
  }
  compression_ = core::WireCompression::kLz4;
  ASSERT_TRUE(Insert("TSV", Rows(3000), 1000).ok());
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->raw_blocks(), 3);
    EXPECT_EQ(worker->lz4_blocks(), 3);  // the rows compress well
  }
  size_t total = 0;
  for (auto& worker : workers_) total += worker->Visible(0).size();
  EXPECT_EQ(total, 6000u);
}

// --- Chunks parsed on a pool (input_format_parallel_parsing) ---

class ParallelInsertTest : public InsertExecutorTest {
 protected:
  void SetUp() override {
    InsertExecutorTest::SetUp();
    parse_pool_ = &pool_;
  }
  core::ThreadPool pool_{3};
};

TEST_F(ParallelInsertTest, EveryRowArrivesOnceOverManyChunks) {
  auto rows = Insert("TSV", Rows(1000), 64);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, 1000u);
  std::vector<int> seen(1001, 0);
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->prepares(), 16);
    EXPECT_EQ(worker->prepared_tokens(), 0u);
    std::vector<uint64_t> k = worker->Visible(0), v = worker->Visible(1);
    for (size_t r = 0; r < k.size(); ++r) {
      ++seen.at(k[r]);
      EXPECT_EQ(v[r], k[r] * 10);
    }
  }
  for (int k = 1; k <= 1000; ++k) EXPECT_EQ(seen[k], 1) << k;
}

TEST_F(ParallelInsertTest, OneWorkerGetsTheRowsInInputOrder) {
  WorkerSet one({set_->address(0)});
  set_for_test_ = &one;
  for (const char* format : {"TSV", "CSV", "JSONEachRow"}) {
    std::string text;
    for (int i = 1; i <= 2000; ++i) {
      const std::string k = std::to_string(i), v = std::to_string(i * 10);
      text += std::string(format) == "TSV"   ? k + "\t" + v + "\n"
              : std::string(format) == "CSV" ? k + "," + v + "\n"
                                             : "{\"k\": " + k + ", \"v\": " + v + "}\n";
    }
    // Pieces as a client streams them, split mid-row.
    std::vector<std::string> pieces;
    for (size_t at = 0; at < text.size(); at += 1000) pieces.push_back(text.substr(at, 1000));
    PiecesSource source(pieces, false);
    auto rows = Insert(format, "", 37, &source);
    ASSERT_TRUE(rows.ok()) << format << ": " << rows.status();
    EXPECT_EQ(*rows, 2000u);
  }
  std::vector<uint64_t> k = workers_[0]->Visible(0), v = workers_[0]->Visible(1);
  ASSERT_EQ(k.size(), 6000u);
  for (size_t r = 0; r < k.size(); ++r) {
    EXPECT_EQ(k[r], r % 2000 + 1) << r;
    EXPECT_EQ(v[r], k[r] * 10) << r;
  }
}

TEST_F(ParallelInsertTest, ABadRowInALateChunkLeavesNothingVisibleAndIsNamed) {
  // 10 chunks of 100 rows; row 950 (chunk 10) is malformed; the chunks are parsed apart.
  auto rows = Insert("TSV", Rows(1000, 950), 100);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(core::CodeOf(rows.status()), core::ErrorCode::kCannotParseText);
  EXPECT_NE(rows.status().message().find("row 950, line 950"), std::string::npos)
      << rows.status();
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->prepares(), 9);  // chunks 1 to 9 were sent...
    EXPECT_EQ(worker->aborts(), 1);    // ...and aborted
    EXPECT_EQ(worker->commits(), 0);
    EXPECT_EQ(worker->prepared_tokens(), 0u);
    EXPECT_TRUE(worker->Visible(0).empty());
  }
  // The same in CSV, with chunks of 7 rows.
  std::string csv;
  for (int i = 1; i <= 300; ++i) {
    csv += i == 290 ? "x,\"1\"\n" : std::to_string(i) + ",\"" + std::to_string(i) + "\"\n";
  }
  rows = Insert("CSV", csv, 7);
  EXPECT_NE(rows.status().message().find("row 290, line 290"), std::string::npos)
      << rows.status();
}

TEST_F(ParallelInsertTest, AnErrorInTheFirstChunkSendsNothing) {
  auto rows = Insert("TSV", Rows(1000, 3), 100);
  EXPECT_EQ(core::CodeOf(rows.status()), core::ErrorCode::kCannotParseText) << rows.status();
  EXPECT_NE(rows.status().message().find("row 3, line 3"), std::string::npos) << rows.status();
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->prepares(), 0);
    EXPECT_TRUE(worker->Visible(0).empty());
  }
}

TEST_F(ParallelInsertTest, AKillMidInsertAbortsEveryWorker) {
  int polls = 0;
  auto rows = Insert("TSV", Rows(1000), 100, nullptr, [&polls] { return ++polls > 4; });
  EXPECT_EQ(core::CodeOf(rows.status()), core::ErrorCode::kQueryWasCancelled) << rows.status();
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->prepares(), 4);  // one chunk went out per poll before the kill...
    EXPECT_EQ(worker->aborts(), 1);    // ...and all were aborted
    EXPECT_EQ(worker->commits(), 0);
    EXPECT_EQ(worker->prepared_tokens(), 0u);
    EXPECT_TRUE(worker->Visible(0).empty());
  }
}

TEST_F(ParallelInsertTest, AWorkerFailingALaterChunkAbortsEveryWorker) {
  workers_[1]->FailPrepareNumber(3);
  auto rows = Insert("TSV", Rows(1000), 100);
  ASSERT_FALSE(rows.ok());
  for (auto& worker : workers_) {
    EXPECT_EQ(worker->aborts(), 1);
    EXPECT_EQ(worker->prepared_tokens(), 0u);
    EXPECT_TRUE(worker->Visible(0).empty());
  }
}

TEST_F(ParallelInsertTest, ShardedRowsLandOnTheirWorker) {
  schema_.sharding_key.push_back("k");
  std::string csv;
  for (int i = 1; i <= 500; ++i) csv += std::to_string(i) + "," + std::to_string(i) + "\n";
  auto rows = Insert("CSV", csv, 37);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, 500u);
  size_t total = 0;
  for (size_t w = 0; w < workers_.size(); ++w) {
    std::vector<uint64_t> keys = workers_[w]->Visible(0);
    total += keys.size();
    auto column = std::make_shared<core::Column>(TypeId::kUInt64);
    for (uint64_t k : keys) column->Append(k);
    core::Block block{{column}};
    for (uint32_t shard : ShardOfRows(block, {0}, workers_.size())) EXPECT_EQ(shard, w);
  }
  EXPECT_EQ(total, 500u);
}

}  // namespace
}  // namespace granite::coordinator
