// Two-phase inserts of Table: prepared parts stay invisible and are lost on restart, commit
// publishes them, abort removes them, a decided commit is finished by Open after a crash.
#include <gtest/gtest.h>

#include "core/date_time.h"
#include "core/error.h"
#include "storage/fault_injection_file_system.h"
#include "storage/part_writer.h"
#include "storage/store.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::CodeOf;
using core::ErrorCode;
using core::TypeId;

TableSchema Schema() {
  TableSchema schema;
  schema.name = "t";
  schema.columns = {{"id", TypeId::kUInt64}, {"s", TypeId::kString}};
  return schema;
}

core::Block Rows(uint64_t first, size_t count) {
  auto ids = std::make_shared<core::Column>(TypeId::kUInt64);
  auto strings = std::make_shared<core::Column>(TypeId::kString);
  for (uint64_t i = first; i < first + count; ++i) {
    ids->Append(i);
    strings->AppendString(std::to_string(i));
  }
  return core::Block{{ids, strings}};
}

std::vector<std::string> Entries(const std::string& dir) {
  auto entries = Posix()->ListDir(dir);
  EXPECT_TRUE(entries.ok()) << entries.status();
  return entries.ok() ? *entries : std::vector<std::string>{};
}

class TwoPhaseInsertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Reopen();
    ASSERT_TRUE(store_->CreateTable(Schema(), false, false).ok());
    table_ = store_->GetTable("t");
  }

  void Reopen() {
    table_.reset();
    store_.reset();
    auto store = Store::Open(dir_.path());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    table_ = store_->GetTable("t");
  }

  std::string parts_dir() const { return dir_.path() + "/tables/t/parts"; }

  TempDirectory dir_;
  std::unique_ptr<Store> store_;
  std::shared_ptr<Table> table_;
};

TEST_F(TwoPhaseInsertTest, PreparedRowsAreInvisibleUntilCommitted) {
  ASSERT_TRUE(table_->PrepareInsert(Rows(0, 100), "tok1").ok());
  EXPECT_EQ(table_->rows(), 0u);
  EXPECT_EQ(table_->prepared_count(), 1u);
  EXPECT_EQ(Entries(parts_dir()), std::vector<std::string>{"tmp_prepared_tok1"});

  absl::StatusOr<std::vector<std::string>> parts = table_->CommitInsert("tok1");
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_EQ(*parts, std::vector<std::string>{"all_1_1_0"});
  EXPECT_EQ(table_->rows(), 100u);
  EXPECT_EQ(table_->prepared_count(), 0u);
  EXPECT_EQ(Entries(parts_dir()), std::vector<std::string>{"all_1_1_0"});

  // A token commits once.
  EXPECT_EQ(CodeOf(table_->CommitInsert("tok1").status()), ErrorCode::kBadArguments);
  Reopen();
  EXPECT_EQ(table_->rows(), 100u);
}

TEST_F(TwoPhaseInsertTest, BlockNumbersAreTakenAtCommitInCommitOrder) {
  ASSERT_TRUE(table_->PrepareInsert(Rows(0, 10), "first").ok());
  ASSERT_TRUE(table_->PrepareInsert(Rows(10, 10), "second").ok());
  auto second = table_->CommitInsert("second");
  auto first = table_->CommitInsert("first");
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(*second, std::vector<std::string>{"all_1_1_0"});
  EXPECT_EQ(*first, std::vector<std::string>{"all_2_2_0"});
}

TEST_F(TwoPhaseInsertTest, AbortRemovesThePreparedParts) {
  ASSERT_TRUE(table_->PrepareInsert(Rows(0, 100), "tok").ok());
  ASSERT_TRUE(table_->AbortInsert("tok").ok());
  EXPECT_TRUE(Entries(parts_dir()).empty());
  EXPECT_EQ(table_->prepared_count(), 0u);
  EXPECT_EQ(CodeOf(table_->CommitInsert("tok").status()), ErrorCode::kBadArguments);
  EXPECT_EQ(table_->rows(), 0u);
  // Aborting twice, or a token never seen, is fine.
  EXPECT_TRUE(table_->AbortInsert("tok").ok());
}

TEST_F(TwoPhaseInsertTest, AnAbortArrivingBeforeThePrepareWins) {
  // The coordinator gave up on a prepare whose answer never came and aborted it; the prepare then
  // arrives (or finishes) late and must not leave parts behind.
  ASSERT_TRUE(table_->AbortInsert("late").ok());
  absl::Status status = table_->PrepareInsert(Rows(0, 10), "late");
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(Entries(parts_dir()).empty());
  EXPECT_EQ(table_->prepared_count(), 0u);
}

TEST_F(TwoPhaseInsertTest, ChunksAppendToOneInsertAndCommitTogether) {
  ASSERT_TRUE(table_->PrepareInsert(Rows(0, 10), "big", 0).ok());
  ASSERT_TRUE(table_->PrepareInsert(Rows(10, 0), "big", 1).ok());  // an empty chunk counts
  ASSERT_TRUE(table_->PrepareInsert(Rows(10, 20), "big", 2).ok());
  EXPECT_EQ(table_->rows(), 0u);
  EXPECT_EQ(table_->prepared_count(), 1u);
  // Out of order or repeated chunks, and chunk 0 again, are refused without harm.
  EXPECT_EQ(CodeOf(table_->PrepareInsert(Rows(30, 1), "big", 2)), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(table_->PrepareInsert(Rows(30, 1), "big", 0)), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(table_->PrepareInsert(Rows(30, 1), "never", 1)), ErrorCode::kBadArguments);
  auto parts = table_->CommitInsert("big");
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_EQ(parts->size(), 2u);
  EXPECT_EQ(table_->rows(), 30u);
  // A committed token takes no more chunks.
  EXPECT_EQ(CodeOf(table_->PrepareInsert(Rows(30, 1), "big", 3)), ErrorCode::kBadArguments);
  EXPECT_EQ(table_->rows(), 30u);
}

TEST_F(TwoPhaseInsertTest, AbortDropsEveryChunk) {
  ASSERT_TRUE(table_->PrepareInsert(Rows(0, 10), "big", 0).ok());
  ASSERT_TRUE(table_->PrepareInsert(Rows(10, 10), "big", 1).ok());
  ASSERT_TRUE(table_->AbortInsert("big").ok());
  EXPECT_TRUE(Entries(parts_dir()).empty());
  EXPECT_EQ(CodeOf(table_->PrepareInsert(Rows(20, 10), "big", 2)), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(table_->CommitInsert("big").status()), ErrorCode::kBadArguments);
  EXPECT_TRUE(Entries(parts_dir()).empty());
  EXPECT_EQ(table_->rows(), 0u);
}

TEST_F(TwoPhaseInsertTest, AFailedChunkDiscardsTheWholeInsert) {
  ASSERT_TRUE(table_->PrepareInsert(Rows(0, 10), "big", 0).ok());
  core::Block bad = Rows(10, 10);
  bad.columns.pop_back();  // wrong number of columns
  EXPECT_FALSE(table_->PrepareInsert(bad, "big", 1).ok());
  EXPECT_EQ(table_->prepared_count(), 0u);
  EXPECT_TRUE(Entries(parts_dir()).empty());
  EXPECT_FALSE(table_->CommitInsert("big").ok());
  EXPECT_EQ(table_->rows(), 0u);
}

TEST_F(TwoPhaseInsertTest, BadAndReusedTokensAreRefused) {
  EXPECT_EQ(CodeOf(table_->PrepareInsert(Rows(0, 1), "")), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(table_->PrepareInsert(Rows(0, 1), "../x")), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(table_->PrepareInsert(Rows(0, 1), std::string(65, 'a'))),
            ErrorCode::kBadArguments);
  ASSERT_TRUE(table_->PrepareInsert(Rows(0, 1), "once").ok());
  EXPECT_EQ(CodeOf(table_->PrepareInsert(Rows(0, 1), "once")), ErrorCode::kBadArguments);
  EXPECT_EQ(table_->prepared_count(), 1u);
}

TEST_F(TwoPhaseInsertTest, AnEmptyPrepareCommitsNothing) {
  ASSERT_TRUE(table_->PrepareInsert(Rows(0, 0), "empty").ok());
  EXPECT_TRUE(Entries(parts_dir()).empty());
  auto parts = table_->CommitInsert("empty");
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_TRUE(parts->empty());
}

TEST_F(TwoPhaseInsertTest, PreparedInsertsDoNotSurviveARestart) {
  ASSERT_TRUE(table_->Insert(Rows(0, 5)).ok());
  ASSERT_TRUE(table_->PrepareInsert(Rows(5, 100), "pending").ok());
  Reopen();  // as after kill -9 between the phases
  EXPECT_EQ(table_->rows(), 5u);
  EXPECT_EQ(Entries(parts_dir()), std::vector<std::string>{"all_1_1_0"});
  EXPECT_EQ(CodeOf(table_->CommitInsert("pending").status()), ErrorCode::kBadArguments);
}

TEST_F(TwoPhaseInsertTest, OpenFinishesADecidedCommit) {
  // A crash after parts/committing_<token> was made durable: the commit is decided, and Open moves
  // its parts into place (they may carry block numbers above every loaded part).
  ASSERT_TRUE(table_->Insert(Rows(0, 5)).ok());
  std::string committing = parts_dir() + "/committing_tok";
  ASSERT_TRUE(Posix()->CreateDir(committing).ok());
  auto schema = std::make_shared<const TableSchema>(Schema());
  PartWriter writer(Posix(), schema, parts_dir(), PartWriter::Options());
  PartDescription plain;
  ASSERT_TRUE(writer.WriteDirectory(Rows(100, 7), plain, committing + "/all_3_3_0").ok());
  ASSERT_TRUE(writer.WriteDirectory(Rows(200, 9), plain, committing + "/all_4_4_0").ok());

  Reopen();
  EXPECT_EQ(table_->rows(), 5u + 7 + 9);
  EXPECT_EQ(Entries(parts_dir()),
            (std::vector<std::string>{"all_1_1_0", "all_3_3_0", "all_4_4_0"}));
  absl::StatusOr<std::string> next = table_->Insert(Rows(300, 1));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, "all_5_5_0");
}

TEST_F(TwoPhaseInsertTest, CommitAfterDropFails) {
  ASSERT_TRUE(table_->PrepareInsert(Rows(0, 10), "tok").ok());
  ASSERT_TRUE(store_->DropTable("t", false).ok());
  EXPECT_EQ(CodeOf(table_->CommitInsert("tok").status()), ErrorCode::kUnknownTable);
}

// A commit of parts of three partitions goes through parts/committing_<token>; a failure of any
// rename or fsync of it leaves nothing visible, now or after a restart.
TEST(TwoPhaseCommitFaultTest, AFailedMultiPartCommitLeavesNothing) {
  TableSchema schema;
  schema.name = "p";
  schema.columns = {{"d", TypeId::kDate}, {"v", TypeId::kUInt64}};
  schema.partition_by = "toYYYYMM(d)";
  auto rows = [] {
    auto d = std::make_shared<core::Column>(TypeId::kDate);
    auto v = std::make_shared<core::Column>(TypeId::kUInt64);
    for (int month = 1; month <= 3; ++month) {
      d->Append<uint16_t>(static_cast<uint16_t>(core::DaysFromCivil(2024, month, 5)));
      v->Append<uint64_t>(month);
    }
    return core::Block{{d, v}};
  };
  int failures = 0;
  for (FaultOp op : {FaultOp::kRename, FaultOp::kSync}) {
    for (int n = 1; n < 20; ++n) {
      SCOPED_TRACE(::testing::Message() << "op " << static_cast<int>(op) << " #" << n);
      TempDirectory dir;
      auto faulty = std::make_shared<FaultInjectionFileSystem>(Posix());
      auto store = Store::Open(dir.path(), faulty);
      ASSERT_TRUE(store.ok());
      ASSERT_TRUE((*store)->CreateTable(schema, false, false).ok());
      std::shared_ptr<Table> table = (*store)->GetTable("p");
      ASSERT_TRUE(table->PrepareInsert(rows(), "tok").ok());
      faulty->FailNth(op, n);
      absl::StatusOr<std::vector<std::string>> committed = table->CommitInsert("tok");
      if (faulty->InjectedFailures() == 0) {
        ASSERT_TRUE(committed.ok()) << committed.status();
        EXPECT_EQ(committed->size(), 3u);
        break;
      }
      ++failures;
      EXPECT_FALSE(committed.ok());
      EXPECT_EQ(table->rows(), 0u);
      std::string parts = dir.path() + "/tables/p/parts";
      EXPECT_TRUE(Entries(parts).empty()) << ::testing::PrintToString(Entries(parts));
      faulty->Clear();
      auto reopened = Store::Open(dir.path());
      ASSERT_TRUE(reopened.ok());
      EXPECT_EQ((*reopened)->GetTable("p")->rows(), 0u);
    }
  }
  EXPECT_GE(failures, 6);  // 4 renames in the staging dir and to committing_, 3 moves, fsyncs
}

}  // namespace
}  // namespace granite::storage
