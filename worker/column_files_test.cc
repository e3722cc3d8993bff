// ColumnFiles: a scan opens each (part, column) file once and reads the same values through it;
// scans too wide to cache, and unknown part slots, open a file per read as before.
#include "worker/column_files.h"

#include <gtest/gtest.h>

#include <thread>

#include "core/error.h"
#include "worker/store_test_base.h"

namespace granite::worker {
namespace {

namespace plan = granite::core::plan;
using core::TypeId;

class ColumnFilesTest : public StoreTestBase {
 protected:
  void SetUp() override {
    // Two parts of 1000 rows, 16 rows per granule: many morsels per part.
    ASSERT_NO_FATAL_FAILURE(
        CreateTable("t", {{"a", TypeId::kInt32}, {"s", TypeId::kString}}, 16));
    for (int part = 0; part < 2; ++part) {
      auto a = std::make_shared<core::Column>(TypeId::kInt32);
      auto s = std::make_shared<core::Column>(TypeId::kString);
      for (int i = 0; i < 1000; ++i) {
        a->Append<int32_t>(part * 1000 + i);
        s->AppendString("v" + std::to_string(part * 1000 + i));
      }
      ASSERT_NO_FATAL_FAILURE(Insert("t", {a, s}));
    }
  }

  plan::Fragment Scan() {
    plan::Fragment fragment;
    fragment.scan.table = "t";
    fragment.scan.columns.push_back("s");
    fragment.scan.columns.push_back("a");
    return fragment;
  }
};

TEST_F(ColumnFilesTest, AScanOpensEachColumnFileOnce) {
  std::unique_ptr<MorselSource> source = Open(Scan());
  ASSERT_NE(source, nullptr);
  ASSERT_GT(source->table_morsels().size(), 4u);  // more reads than (part, column) pairs
  int64_t sum = 0;
  size_t rows = 0;
  for (const Morsel& morsel : source->table_morsels()) {
    absl::StatusOr<core::Block> block = source->Read(morsel);
    ASSERT_TRUE(block.ok()) << block.status();
    for (size_t r = 0; r < block->rows(); ++r) {
      int32_t a = block->columns[1]->Get<int32_t>(r);
      ASSERT_EQ(block->columns[0]->StringAt(r), "v" + std::to_string(a));
      sum += a;
    }
    rows += block->rows();
  }
  EXPECT_EQ(rows, 2000u);
  EXPECT_EQ(sum, 1999 * 2000 / 2);
  EXPECT_EQ(source->column_files().opened(), 2 * source->prune_stats().parts_selected);
}

TEST_F(ColumnFilesTest, SameFileForEveryThread) {
  std::shared_ptr<const storage::Part> part = store_->GetTable("t")->Snapshot()->parts[0];
  ColumnFiles files(/*parts=*/1, /*columns=*/2);
  std::vector<const storage::RandomAccessFile*> got(8, nullptr);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<const storage::RandomAccessFile*> file = files.Get(*part, 0, 1, 0);
      if (file.ok()) got[t] = *file;
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_NE(got[0], nullptr);
  for (const storage::RandomAccessFile* file : got) EXPECT_EQ(file, got[0]);
  // Reads through the kept file equal reads that open their own.
  absl::StatusOr<core::ColumnPtr> through = part->ReadColumn(0, 3, 9, got[0]);
  absl::StatusOr<core::ColumnPtr> own = part->ReadColumn(0, 3, 9);
  ASSERT_TRUE(through.ok() && own.ok());
  ASSERT_EQ((*through)->size(), (*own)->size());
  for (size_t r = 0; r < (*own)->size(); ++r) {
    EXPECT_EQ((*through)->Get<int32_t>(r), (*own)->Get<int32_t>(r));
  }
}

TEST_F(ColumnFilesTest, WideScansAndUnknownSlotsDoNotCache) {
  std::shared_ptr<const storage::Part> part = store_->GetTable("t")->Snapshot()->parts[0];
  ColumnFiles wide(/*parts=*/ColumnFiles::kMaxFiles + 1, /*columns=*/1);
  absl::StatusOr<const storage::RandomAccessFile*> file = wide.Get(*part, 0, 0, 0);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(*file, nullptr);
  ColumnFiles narrow(1, 1);
  file = narrow.Get(*part, ColumnFiles::kNoSlot, 0, 0);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(*file, nullptr);
  EXPECT_EQ(narrow.opened(), 0u);
  // A bad column index is the caller's error, reported by Part::OpenColumn.
  file = narrow.Get(*part, 0, 0, 7);
  EXPECT_EQ(core::CodeOf(file.status()), core::ErrorCode::kArgumentOutOfBound) << file.status();
}

}  // namespace
}  // namespace granite::worker
