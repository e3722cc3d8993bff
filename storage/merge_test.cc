// Merges: size-tiered selection, OPTIMIZE [FINAL], background merges, deferred deletion of
// replaced parts, crash recovery of a merge, and fault injection into a merge.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/date_time.h"
#include "core/error.h"
#include "core/thread_priority.h"
#include "storage/fault_injection_file_system.h"
#include "storage/merge_selector.h"
#include "storage/priority_recording_file_system.h"
#include "storage/store.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::CodeOf;
using core::ErrorCode;
using core::TypeId;
namespace fs = std::filesystem;

std::vector<MergeCandidate> Sizes(std::vector<uint64_t> sizes) {
  std::vector<MergeCandidate> out;
  for (uint64_t size : sizes) out.push_back({size, true});
  return out;
}

TEST(MergeSelectorTest, MergesSimilarSizesAndLeavesBigPartsAlone) {
  MergeLimits limits;
  EXPECT_FALSE(SelectMerge(Sizes({100}), limits).has_value());
  std::optional<MergeRun> run = SelectMerge(Sizes({100, 100}), limits);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->begin, 0u);
  EXPECT_EQ(run->end, 2u);
  // A big part is not rewritten to absorb a small one.
  EXPECT_FALSE(SelectMerge(Sizes({10000, 10}), limits).has_value());
  // The many small parts win over the big ones.
  run = SelectMerge(Sizes({5000, 4000, 10, 10, 10}), limits);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->begin, 2u);
  EXPECT_EQ(run->end, 5u);
  // At most max_parts, never over max_bytes, never across an unavailable part.
  limits.max_parts = 3;
  run = SelectMerge(Sizes({1, 1, 1, 1, 1}), limits);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->end - run->begin, 3u);
  limits.max_bytes = 150;
  EXPECT_FALSE(SelectMerge(Sizes({100, 100}), limits).has_value());
  std::vector<MergeCandidate> busy = Sizes({10, 10, 10});
  busy[1].available = false;
  EXPECT_FALSE(SelectMerge(busy, MergeLimits()).has_value());
}

TableSchema Schema() {
  TableSchema schema;
  schema.name = "m";
  schema.columns = {{"k", TypeId::kUInt32}, {"d", TypeId::kDate}, {"s", TypeId::kString}};
  schema.partition_by = "toYYYYMM(d)";
  schema.order_by = {"k"};
  schema.settings["index_granularity"] = "64";
  return schema;
}

// `count` rows with keys descending from `first_key`, alternating between two months.
core::Block Rows(uint32_t first_key, size_t count) {
  auto k = std::make_shared<core::Column>(TypeId::kUInt32);
  auto d = std::make_shared<core::Column>(TypeId::kDate);
  auto s = std::make_shared<core::Column>(TypeId::kString);
  for (size_t i = 0; i < count; ++i) {
    k->Append<uint32_t>(first_key - i);
    d->Append<uint16_t>(static_cast<uint16_t>(core::DaysFromCivil(2024, 1 + i % 2, 10)));
    s->AppendString("v" + std::to_string(first_key - i));
  }
  return core::Block{{k, d, s}};
}

// Returns every key of the table, sorted, and checks each part is sorted by key.
std::vector<uint32_t> Keys(const Table& table) {
  std::vector<uint32_t> keys;
  const auto snapshot = table.Snapshot();  // alive for the loop
  for (const auto& part : snapshot->parts) {
    auto column = part->ReadColumn(0, 0, part->granule_count());
    EXPECT_TRUE(column.ok()) << column.status();
    if (!column.ok()) continue;
    for (size_t r = 0; r < (*column)->size(); ++r) {
      if (r > 0) {
        EXPECT_LE((*column)->Get<uint32_t>(r - 1), (*column)->Get<uint32_t>(r));
      }
      keys.push_back((*column)->Get<uint32_t>(r));
    }
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<std::string> Names(const Table& table) {
  std::vector<std::string> names;
  const auto snapshot = table.Snapshot();  // alive for the loop
  for (const auto& part : snapshot->parts) names.push_back(part->name());
  return names;
}

std::vector<std::string> Entries(const std::string& dir) {
  auto entries = Posix()->ListDir(dir);
  return entries.ok() ? *entries : std::vector<std::string>{};
}

class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(Posix()); }

  void Open(std::shared_ptr<FileSystem> files) {
    table_.reset();
    store_.reset();
    auto store = Store::Open(dir_.path(), std::move(files));
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    if (store_->GetTable("m") == nullptr) {
      ASSERT_TRUE(store_->CreateTable(Schema(), false, false).ok());
    }
    table_ = store_->GetTable("m");
  }

  // Inserts `inserts` blocks of 100 rows (200 parts' worth of keys each).
  std::vector<uint32_t> InsertBlocks(int inserts) {
    std::vector<uint32_t> keys;
    for (int i = 0; i < inserts; ++i) {
      core::Block block = Rows(100000 + i * 1000, 100);
      EXPECT_TRUE(table_->Insert(block).ok());
      for (size_t r = 0; r < 100; ++r) keys.push_back(100000 + i * 1000 - r);
    }
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  std::string parts_dir() const { return dir_.path() + "/tables/m/parts"; }

  TempDirectory dir_;
  std::unique_ptr<Store> store_;
  std::shared_ptr<Table> table_;
};

TEST_F(MergeTest, OptimizeFinalLeavesOneSortedPartPerPartition) {
  std::vector<uint32_t> keys = InsertBlocks(5);
  EXPECT_EQ(table_->Snapshot()->parts.size(), 10u);  // 2 months x 5 inserts
  ASSERT_TRUE(store_->Optimize("m", /*final=*/true).ok());
  EXPECT_EQ(Names(*table_), (std::vector<std::string>{"202401_1_9_1", "202402_2_10_1"}));
  EXPECT_EQ(Keys(*table_), keys);
  EXPECT_EQ(table_->rows(), 500u);
  // The replaced parts were deleted: nothing held them.
  EXPECT_EQ(Entries(parts_dir()), (std::vector<std::string>{"202401_1_9_1", "202402_2_10_1"}));
  // FINAL again: one part per partition, nothing to do.
  ASSERT_TRUE(store_->Optimize("m", true).ok());
  EXPECT_EQ(Names(*table_), (std::vector<std::string>{"202401_1_9_1", "202402_2_10_1"}));

  Open(Posix());
  EXPECT_EQ(Keys(*table_), keys);
  EXPECT_EQ(CodeOf(store_->Optimize("nope", false)), ErrorCode::kUnknownTable);
}

TEST_F(MergeTest, OptimizeWithoutFinalRunsOneSizeTieredMerge) {
  InsertBlocks(3);
  ASSERT_TRUE(store_->Optimize("m", /*final=*/false).ok());
  EXPECT_EQ(table_->Snapshot()->parts.size(), 4u);  // one partition's 3 parts became 1
}

TEST_F(MergeTest, ReplacedPartsStayUntilNoQueryReadsThem) {
  InsertBlocks(2);
  std::shared_ptr<const PartsSnapshot> query = table_->Snapshot();
  ASSERT_TRUE(store_->Optimize("m", true).ok());
  EXPECT_EQ(Entries(parts_dir()).size(), 6u);  // 4 old ones still read + 2 merged
  for (const auto& part : query->parts) {
    auto column = part->ReadColumn(2, 0, part->granule_count());
    EXPECT_TRUE(column.ok()) << column.status();  // the running query can still read them
  }
  query.reset();
  EXPECT_EQ(table_->DeleteUnusedParts(), 4u);
  EXPECT_EQ(Entries(parts_dir()).size(), 2u);
}

TEST_F(MergeTest, RestartAfterAMergeWasWrittenDropsItsSources) {
  std::vector<uint32_t> keys = InsertBlocks(3);
  // A crash after the merged part became durable but before the sources were deleted: write the
  // merge's result without registering it.
  std::vector<std::shared_ptr<const Part>> sources;
  const auto snapshot = table_->Snapshot();  // alive for the loop
  for (const auto& part : snapshot->parts) {
    if (part->partition_id() == "202401") sources.push_back(part);
  }
  PartWriter::Options options;
  options.granule_rows = 64;
  PartMerger merger(Posix(), std::make_shared<const TableSchema>(table_->schema()),
                    std::shared_ptr<const PartSplitter>(&table_->splitter(), [](auto*) {}),
                    parts_dir(), options);
  MergeProgress progress;
  std::atomic<bool> cancelled{false};
  ASSERT_TRUE(merger.Merge(sources, &progress, cancelled).ok());
  EXPECT_EQ(progress.rows_written.load(), 150u);
  sources.clear();

  Open(Posix());
  EXPECT_EQ(Names(*table_), (std::vector<std::string>{"202401_1_5_1", "202402_2_2_0",
                                                      "202402_4_4_0", "202402_6_6_0"}));
  EXPECT_EQ(Keys(*table_), keys);
  EXPECT_EQ(Entries(parts_dir()).size(), 4u);
}

TEST_F(MergeTest, AFailedMergeChangesNothing) {
  auto faulty = std::make_shared<FaultInjectionFileSystem>(Posix());
  Open(faulty);
  std::vector<uint32_t> keys = InsertBlocks(3);
  int failures = 0;
  for (FaultOp op : {FaultOp::kWrite, FaultOp::kSync, FaultOp::kRename, FaultOp::kCreateDir,
                     FaultOp::kCreateFile}) {
    for (int n = 1; n < 40; ++n) {
      faulty->FailNth(op, n);
      absl::Status status = store_->Optimize("m", true);
      bool injected = faulty->InjectedFailures() > failures;
      faulty->Clear();
      if (!injected) {
        ASSERT_TRUE(status.ok()) << status;
        break;  // this kind is exhausted; the next one starts from a fresh table below
      }
      ++failures;
      EXPECT_EQ(CodeOf(status), ErrorCode::kCannotWriteToFile) << status;
      // The first merge may have succeeded before the second failed; no rows are lost or doubled
      // and nothing is left behind.
      EXPECT_EQ(Keys(*table_), keys);
      for (const std::string& entry : Entries(parts_dir())) {
        EXPECT_TRUE(PartName::Parse(entry).has_value()) << entry;
      }
    }
    Open(faulty);
    EXPECT_EQ(Keys(*table_), keys);
    ASSERT_TRUE(store_->DropTable("m", false).ok());
    Open(faulty);
    keys = InsertBlocks(3);
  }
  EXPECT_GT(failures, 10);
}

TEST_F(MergeTest, ADamagedSourceFailsTheMergeAndIsDetached) {
  InsertBlocks(3);
  std::shared_ptr<const Part> victim = table_->Snapshot()->parts[0];
  std::string name = victim->name();
  {
    std::fstream file(victim->column_file(2), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(victim->column_file_offset(2) + 10));
    file.put('\x55');
  }
  victim.reset();
  absl::Status status = store_->Optimize("m", true);
  EXPECT_EQ(CodeOf(status), ErrorCode::kChecksumDoesntMatch) << status;
  EXPECT_NE(status.message().find("part " + name + ", column s"), std::string::npos) << status;
  EXPECT_TRUE(fs::exists(dir_.path() + "/tables/m/detached/broken_" + name));
  ASSERT_TRUE(store_->Optimize("m", true).ok());  // the rest merges without it
  EXPECT_EQ(table_->Snapshot()->parts.size(), 2u);
  EXPECT_EQ(table_->rows(), 250u);
}

TEST_F(MergeTest, ReserveMergeLooksAgainWhereAPartitionChanged) {
  MergeLimits limits;
  ASSERT_TRUE(table_->Insert(Rows(100, 2)).ok());  // one part in each month
  EXPECT_FALSE(table_->ReserveMerge(limits).has_value());  // nothing to merge anywhere
  EXPECT_FALSE(table_->ReserveMerge(limits).has_value());
  ASSERT_TRUE(table_->Insert(Rows(200, 1)).ok());  // a second part in January
  std::optional<Table::MergeTask> task = table_->ReserveMerge(limits);
  ASSERT_TRUE(task.has_value());
  EXPECT_EQ(task->result.partition_id, "202401");
  EXPECT_EQ(task->sources.size(), 2u);
  EXPECT_FALSE(table_->ReserveMerge(limits).has_value());  // January's parts are reserved
  table_->ReleaseMerge(*task);
  task = table_->ReserveMerge(limits);  // released, so a candidate again
  ASSERT_TRUE(task.has_value());
  EXPECT_EQ(task->result.partition_id, "202401");
  table_->ReleaseMerge(*task);

  // After a restart every partition is looked at again.
  task.reset();
  Open(Posix());
  task = table_->ReserveMerge(limits);
  ASSERT_TRUE(task.has_value());
  EXPECT_EQ(task->result.partition_id, "202401");
  table_->ReleaseMerge(*task);
}

TEST_F(MergeTest, BackgroundMergesKeepThePartCountDown) {
  MergeOptions options;
  options.threads = 2;
  options.interval = std::chrono::milliseconds(5);
  store_->StartBackgroundMerges(options);
  std::vector<uint32_t> keys;
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(table_->Insert(Rows(1000000 + i * 1000, 20)).ok());
    for (size_t r = 0; r < 20; ++r) keys.push_back(1000000 + i * 1000 - r);
    // Queries run meanwhile: what they see is always complete.
    EXPECT_EQ(table_->rows(), 20u * (i + 1));
  }
  std::sort(keys.begin(), keys.end());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (table_->Snapshot()->parts.size() > 8 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_LE(table_->Snapshot()->parts.size(), 8u);  // from 80
  EXPECT_EQ(Keys(*table_), keys);
  bool merged = false;
  const auto snapshot = table_->Snapshot();  // alive for the loop
  for (const auto& part : snapshot->parts) merged |= part->level() > 0;
  EXPECT_TRUE(merged);
}

TEST_F(MergeTest, DropTableWhileMergesRun) {
  MergeOptions options;
  options.threads = 2;
  options.interval = std::chrono::milliseconds(1);
  store_->StartBackgroundMerges(options);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(table_->Insert(Rows(50000 + i * 100, 50)).ok());
  ASSERT_TRUE(store_->DropTable("m", false).ok());
  EXPECT_EQ(store_->GetTable("m"), nullptr);
  EXPECT_FALSE(fs::exists(dir_.path() + "/tables/m"));
}

// MergeOptions::nice: background merges write their parts lowered; inserts (this thread) are not.
TEST_F(MergeTest, BackgroundMergesRunAtTheirLoweredPriority) {
  if (!core::CanRestoreThreadPriority()) GTEST_SKIP() << "cannot restore thread priority here";
  auto files = std::make_shared<PriorityRecordingFileSystem>();
  Open(files);
  MergeOptions options;
  options.threads = 1;
  options.interval = std::chrono::milliseconds(5);
  options.nice = 7;
  store_->StartBackgroundMerges(options);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(table_->Insert(Rows(200000 + i * 1000, 20)).ok());
  auto merged = [&] {
    const auto snapshot = table_->Snapshot();  // alive for the loop
    for (const auto& part : snapshot->parts) {
      if (part->level() > 0) return true;
    }
    return false;
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!merged() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(merged());
  store_.reset();  // stops the merges: every file is created by now
  table_.reset();
  int merge_files = 0, other_files = 0;  // others: the inserts' parts, the schema
  for (const auto& [path, priority] : files->created()) {
    bool merge = path.find(kMergeTmpPrefix) != std::string::npos;
    ++(merge ? merge_files : other_files);
    EXPECT_EQ(priority, merge ? 7 : 0) << path;
  }
  EXPECT_GT(merge_files, 0);
  EXPECT_GT(other_files, 0);
}

}  // namespace
}  // namespace granite::storage
