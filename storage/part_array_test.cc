// Array columns in parts: written across granules (each granule holds its rows' offsets and
// elements), read back whole and by granule ranges, and merged.
#include <gtest/gtest.h>

#include <string>

#include "core/types.h"
#include "core/value_text.h"
#include "storage/store.h"
#include "storage/table.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::TypeId;

// Row i of each column: k = i; a = [0, 1, ..., i % 5 - 1]; s = ['x<i>', NULL] every third row,
// else []; n = [[i], []].
core::Block MakeBlock(const TableSchema& schema, size_t rows, size_t first) {
  std::vector<core::MutableColumnPtr> columns;
  for (const ColumnSchema& column : schema.columns) {
    columns.push_back(std::make_shared<core::Column>(column.type));
  }
  for (size_t r = first; r < first + rows; ++r) {
    columns[0]->Append<uint32_t>(static_cast<uint32_t>(r));
    std::string a = "[";
    for (size_t e = 0; e < r % 5; ++e) a += (e ? "," : "") + std::to_string(e);
    a += "]";
    const std::string s = r % 3 == 0 ? "['x" + std::to_string(r) + "',NULL]" : "[]";
    const std::string n = "[[" + std::to_string(r % 256) + "],[]]";
    const std::string texts[] = {a, s, n};
    for (size_t c = 1; c < 4; ++c) {
      EXPECT_TRUE(core::ParseValueText(texts[c - 1], schema.columns[c].type, columns[c].get()).ok());
    }
  }
  core::Block block;
  for (auto& column : columns) block.columns.push_back(std::move(column));
  return block;
}

std::string Text(const core::Column& column, size_t row) {
  std::string out;
  core::AppendValueText(column, row, &out);
  return out;
}

class PartArrayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = Store::Open(dir_.path());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    schema_.name = "arrays";
    schema_.engine = "MergeTree";
    schema_.columns = {{"k", TypeId::kUInt32},
                       {"a", core::MakeArray(TypeId::kUInt32)},
                       {"s", core::MakeArray(core::MakeNullable(TypeId::kString))},
                       {"n", core::MakeArray(core::MakeArray(TypeId::kUInt8))}};
    ASSERT_TRUE(store_->CreateTable(schema_, false, false).ok());
    table_ = store_->GetTable(schema_.name);
    ASSERT_NE(table_, nullptr);
  }

  // Expects the part's column c, granules [g0, g1), to equal `block` from row `first`.
  void ExpectColumn(const Part& part, size_t c, size_t g0, size_t g1, const core::Block& block,
                    size_t first) {
    absl::StatusOr<core::ColumnPtr> read = part.ReadColumn(c, g0, g1);
    ASSERT_TRUE(read.ok()) << read.status();
    const core::Column& column = **read;
    EXPECT_EQ(column.logical_type(), schema_.columns[c].type);
    for (size_t i = 0; i < column.size(); ++i) {
      ASSERT_EQ(Text(column, i), Text(*block.columns[c], first + i)) << "column " << c << " row " << i;
    }
  }

  TempDirectory dir_;
  std::unique_ptr<Store> store_;
  TableSchema schema_;
  std::shared_ptr<Table> table_;
};

TEST_F(PartArrayTest, RoundTripsAcrossGranules) {
  core::Block block = MakeBlock(schema_, 20000, 0);
  ASSERT_TRUE(table_->Insert(block).ok());
  const Part& part = *table_->Snapshot()->parts[0];
  ASSERT_EQ(part.granule_count(), 3u);
  for (size_t c = 0; c < schema_.columns.size(); ++c) {
    ExpectColumn(part, c, 0, 3, block, 0);
    ExpectColumn(part, c, 1, 2, block, 8192);
    ExpectColumn(part, c, 2, 3, block, 2 * 8192);
  }
}

TEST_F(PartArrayTest, MergesParts) {
  core::Block first = MakeBlock(schema_, 100, 0);
  core::Block second = MakeBlock(schema_, 50, 100);
  ASSERT_TRUE(table_->Insert(first).ok());
  ASSERT_TRUE(table_->Insert(second).ok());
  bool busy = false;
  std::vector<Table::MergeTask> tasks = table_->ReserveFinalMerges(&busy);
  ASSERT_EQ(tasks.size(), 1u);
  MergeProgress progress;
  absl::StatusOr<std::shared_ptr<const Part>> merged = table_->RunMerge(tasks[0], &progress);
  ASSERT_TRUE(merged.ok()) << merged.status();
  ASSERT_EQ((*merged)->rows(), 150u);
  core::Block all = MakeBlock(schema_, 150, 0);
  for (size_t c = 0; c < schema_.columns.size(); ++c) ExpectColumn(**merged, c, 0, 1, all, 0);
}

}  // namespace
}  // namespace granite::storage
