// Fails every write, fsync, rename, file and directory creation of an insert / CREATE / DROP in
// turn and checks that the failed statement left nothing visible, in memory or after a reopen.
#include "storage/fault_injection_file_system.h"

#include <gtest/gtest.h>

#include "core/error.h"
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

core::Block Rows(size_t count) {
  auto ids = std::make_shared<core::Column>(TypeId::kUInt64);
  auto strings = std::make_shared<core::Column>(TypeId::kString);
  for (uint64_t i = 0; i < count; ++i) {
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

std::unique_ptr<Store> OpenPosix(const std::string& dir) {
  auto store = Store::Open(dir);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? std::move(*store) : nullptr;
}

const char* Name(FaultOp op) {
  switch (op) {
    case FaultOp::kWrite: return "write";
    case FaultOp::kSync: return "fsync";
    case FaultOp::kRename: return "rename";
    case FaultOp::kCreateDir: return "mkdir";
    case FaultOp::kCreateFile: return "create";
  }
  return "?";
}

class FaultInjectionTest : public ::testing::TestWithParam<FaultOp> {};

TEST_P(FaultInjectionTest, FailedInsertLeavesNoPartAndTheStoreReopensCleanly) {
  FaultOp op = GetParam();
  int failures = 0;
  for (int n = 1; n < 100; ++n) {
    SCOPED_TRACE(::testing::Message() << Name(op) << " #" << n);
    TempDirectory dir;
    auto faulty = std::make_shared<FaultInjectionFileSystem>(Posix());
    auto store = Store::Open(dir.path(), faulty);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->CreateTable(Schema(), false, false).ok());
    std::shared_ptr<Table> table = (*store)->GetTable("t");

    faulty->FailNth(op, n);
    absl::StatusOr<std::string> inserted = table->Insert(Rows(20000));
    if (faulty->InjectedFailures() == 0) {  // the insert has fewer than n such operations
      ASSERT_TRUE(inserted.ok()) << inserted.status();
      break;
    }
    ++failures;
    EXPECT_EQ(CodeOf(inserted.status()), ErrorCode::kCannotWriteToFile);
    EXPECT_NE(inserted.status().message().find("Injected fault"), std::string::npos);
    EXPECT_TRUE(table->Snapshot()->parts.empty());
    EXPECT_EQ(table->rows(), 0u);
    std::string parts_dir = dir.path() + "/tables/t/parts";
    EXPECT_TRUE(Entries(parts_dir).empty());
    std::unique_ptr<Store> reopened = OpenPosix(dir.path());
    ASSERT_NE(reopened, nullptr);
    EXPECT_TRUE(reopened->GetTable("t")->Snapshot()->parts.empty());

    // The store keeps working once the fault is gone.
    faulty->Clear();
    absl::StatusOr<std::string> retried = table->Insert(Rows(10));
    ASSERT_TRUE(retried.ok()) << retried.status();
    EXPECT_EQ(Entries(parts_dir), std::vector<std::string>{*retried});
    reopened = OpenPosix(dir.path());
    EXPECT_EQ(reopened->GetTable("t")->rows(), 10u);
  }
  EXPECT_GT(failures, 0);
}

TEST_P(FaultInjectionTest, FailedCreateTableLeavesNoTable) {
  FaultOp op = GetParam();
  int failures = 0;
  for (int n = 1; n < 100; ++n) {
    SCOPED_TRACE(::testing::Message() << Name(op) << " #" << n);
    TempDirectory dir;
    auto faulty = std::make_shared<FaultInjectionFileSystem>(Posix());
    auto store = Store::Open(dir.path(), faulty);
    ASSERT_TRUE(store.ok()) << store.status();
    faulty->FailNth(op, n);
    absl::Status status = (*store)->CreateTable(Schema(), false, false);
    if (faulty->InjectedFailures() == 0) {
      ASSERT_TRUE(status.ok()) << status;
      break;
    }
    ++failures;
    EXPECT_EQ(CodeOf(status), ErrorCode::kCannotWriteToFile);
    EXPECT_EQ((*store)->GetTable("t"), nullptr);
    EXPECT_TRUE(Entries(dir.path() + "/tables").empty());
    std::unique_ptr<Store> reopened = OpenPosix(dir.path());
    EXPECT_TRUE(reopened->Tables().empty());
  }
  EXPECT_GT(failures, 0);
}

INSTANTIATE_TEST_SUITE_P(AllOps, FaultInjectionTest,
                         ::testing::Values(FaultOp::kWrite, FaultOp::kSync, FaultOp::kRename,
                                           FaultOp::kCreateDir, FaultOp::kCreateFile),
                         [](const auto& info) { return std::string(Name(info.param)); });

TEST(FaultInjectionStickyTest, EveryFsyncFailingIncludingCleanup) {
  TempDirectory dir;
  auto faulty = std::make_shared<FaultInjectionFileSystem>(Posix());
  auto store = Store::Open(dir.path(), faulty);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->CreateTable(Schema(), false, false).ok());
  // The part is compact (data.bin, data.mrk, meta, then its directory: 4 fsyncs), so the 5th
  // fsync is the parent directory's, after the rename: the part must be taken back.
  faulty->FailNth(FaultOp::kSync, 5, /*sticky=*/true);
  absl::StatusOr<std::string> inserted = (*store)->GetTable("t")->Insert(Rows(100));
  EXPECT_FALSE(inserted.ok());
  EXPECT_GE(faulty->InjectedFailures(), 2);  // the cleanup's fsync failed as well
  EXPECT_TRUE((*store)->GetTable("t")->Snapshot()->parts.empty());
  EXPECT_TRUE(Entries(dir.path() + "/tables/t/parts").empty());
  EXPECT_TRUE(OpenPosix(dir.path())->GetTable("t")->Snapshot()->parts.empty());
}

TEST(FaultInjectionStickyTest, FailedDropKeepsTheTable) {
  TempDirectory dir;
  auto faulty = std::make_shared<FaultInjectionFileSystem>(Posix());
  auto store = Store::Open(dir.path(), faulty);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->CreateTable(Schema(), false, false).ok());
  ASSERT_TRUE((*store)->GetTable("t")->Insert(Rows(5)).ok());
  faulty->FailNth(FaultOp::kRename, 1);
  EXPECT_EQ(CodeOf((*store)->DropTable("t", false)), ErrorCode::kCannotWriteToFile);
  std::shared_ptr<Table> table = (*store)->GetTable("t");
  ASSERT_NE(table, nullptr);
  EXPECT_TRUE(table->Insert(Rows(5)).ok());  // not left marked as dropped
  EXPECT_EQ(OpenPosix(dir.path())->GetTable("t")->rows(), 10u);

  // A failed CREATE OR REPLACE whose drop fails keeps the old table too.
  faulty->FailNth(FaultOp::kRename, 1);
  EXPECT_FALSE((*store)->CreateTable(Schema(), false, true).ok());
  EXPECT_EQ((*store)->GetTable("t")->rows(), 10u);
  EXPECT_EQ(Entries(dir.path() + "/tables"), std::vector<std::string>{"t"});
}

}  // namespace
}  // namespace granite::storage
