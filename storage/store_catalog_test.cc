#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "storage/store.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::CodeOf;
using core::ErrorCode;
using core::TypeId;
namespace fs = std::filesystem;

TableSchema OneColumn(const std::string& name) {
  TableSchema schema;
  schema.name = name;
  schema.columns = {{"id", TypeId::kUInt64}};
  schema.order_by = {"id"};
  schema.engine = "MergeTree";
  return schema;
}

core::Block Rows(uint64_t first, size_t count) {
  auto ids = std::make_shared<core::Column>(TypeId::kUInt64);
  for (uint64_t id = first; id < first + count; ++id) ids->Append(id);
  core::Block block;
  block.columns = {ids};
  return block;
}

uint64_t RowCount(const Table& table) {
  uint64_t rows = 0;
  const auto snapshot = table.Snapshot();  // alive for the loop
  for (const auto& part : snapshot->parts) rows += part->rows();
  return rows;
}

std::unique_ptr<Store> Open(const std::string& dir) {
  auto store = Store::Open(dir);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

TEST(StoreCatalogTest, DatabasesPersistAndDropTheirTables) {
  TempDirectory dir;
  {
    auto store = Open(dir.path());
    ASSERT_TRUE(store->CreateDatabase("shop", false).ok());
    EXPECT_EQ(CodeOf(store->CreateDatabase("shop", false)), ErrorCode::kDatabaseAlreadyExists);
    EXPECT_TRUE(store->CreateDatabase("shop", true).ok());
    ASSERT_TRUE(store->CreateDatabase("empty", false).ok());
    ASSERT_TRUE(store->CreateTable(OneColumn("shop.items"), false, false).ok());
    ASSERT_TRUE(store->CreateTable(OneColumn("items"), false, false).ok());
    ASSERT_TRUE(store->GetTable("shop.items")->Insert(Rows(0, 5)).ok());
  }
  auto store = Open(dir.path());
  EXPECT_EQ(store->Databases(), (std::vector<std::string>{"empty", "shop"}));
  ASSERT_NE(store->GetTable("shop.items"), nullptr);
  EXPECT_EQ(RowCount(*store->GetTable("shop.items")), 5u);
  ASSERT_TRUE(store->DropDatabase("shop", false).ok());
  EXPECT_EQ(store->GetTable("shop.items"), nullptr);
  EXPECT_NE(store->GetTable("items"), nullptr);  // default's table of the same name stays
  EXPECT_EQ(CodeOf(store->DropDatabase("shop", false)), ErrorCode::kUnknownDatabase);
  EXPECT_TRUE(store->DropDatabase("shop", true).ok());
  store.reset();
  store = Open(dir.path());
  EXPECT_EQ(store->Databases(), (std::vector<std::string>{"empty"}));
  EXPECT_EQ(store->GetTable("shop.items"), nullptr);
}

TEST(StoreCatalogTest, RenameKeepsRowsAndSurvivesReopen) {
  TempDirectory dir;
  {
    auto store = Open(dir.path());
    ASSERT_TRUE(store->CreateTable(OneColumn("a"), false, false).ok());
    ASSERT_TRUE(store->CreateTable(OneColumn("b"), false, false).ok());
    ASSERT_TRUE(store->GetTable("a")->Insert(Rows(0, 7)).ok());
    EXPECT_EQ(CodeOf(store->RenameTable("a", "b")), ErrorCode::kTableAlreadyExists);
    EXPECT_EQ(CodeOf(store->RenameTable("zz", "c")), ErrorCode::kUnknownTable);
    ASSERT_TRUE(store->RenameTable("a", "d.c").ok());
    EXPECT_EQ(store->GetTable("a"), nullptr);
    ASSERT_NE(store->GetTable("d.c"), nullptr);
    EXPECT_EQ(store->GetTable("d.c")->name(), "d.c");
    EXPECT_EQ(RowCount(*store->GetTable("d.c")), 7u);
    ASSERT_TRUE(store->GetTable("d.c")->Insert(Rows(7, 1)).ok());
  }
  auto store = Open(dir.path());
  ASSERT_NE(store->GetTable("d.c"), nullptr);
  EXPECT_EQ(RowCount(*store->GetTable("d.c")), 8u);
  EXPECT_TRUE(store->BrokenTables().empty());
}

// A crash after the directory moved but before the new schema file was installed: the reopened
// store finishes the rename from schema.renamed.
TEST(StoreCatalogTest, ReopenFinishesAnInterruptedRename) {
  TempDirectory dir;
  {
    auto store = Open(dir.path());
    ASSERT_TRUE(store->CreateTable(OneColumn("old"), false, false).ok());
    ASSERT_TRUE(store->GetTable("old")->Insert(Rows(0, 3)).ok());
  }
  const fs::path tables = fs::path(dir.path()) / "tables";
  ASSERT_TRUE(WriteFileSynced(*Posix(), (tables / "old" / "schema.renamed").string(),
                              EncodeTableSchema(OneColumn("new")))
                  .ok());
  fs::rename(tables / "old", tables / "new");
  auto store = Open(dir.path());
  EXPECT_TRUE(store->BrokenTables().empty());
  ASSERT_NE(store->GetTable("new"), nullptr);
  EXPECT_EQ(RowCount(*store->GetTable("new")), 3u);
  EXPECT_FALSE(fs::exists(tables / "new" / "schema.renamed"));
}

// A crash before the directory moved: the table keeps its old name.
TEST(StoreCatalogTest, ReopenUndoesARenameThatDidNotMove) {
  TempDirectory dir;
  {
    auto store = Open(dir.path());
    ASSERT_TRUE(store->CreateTable(OneColumn("old"), false, false).ok());
  }
  const fs::path tables = fs::path(dir.path()) / "tables";
  ASSERT_TRUE(WriteFileSynced(*Posix(), (tables / "old" / "schema.renamed").string(),
                              EncodeTableSchema(OneColumn("new")))
                  .ok());
  auto store = Open(dir.path());
  EXPECT_NE(store->GetTable("old"), nullptr);
  EXPECT_EQ(store->GetTable("new"), nullptr);
  EXPECT_FALSE(fs::exists(tables / "old" / "schema.renamed"));
}

TEST(StoreCatalogTest, TruncateEmptiesTheTable) {
  TempDirectory dir;
  auto store = Open(dir.path());
  ASSERT_TRUE(store->CreateTable(OneColumn("t"), false, false).ok());
  ASSERT_TRUE(store->GetTable("t")->Insert(Rows(0, 10)).ok());
  ASSERT_TRUE(store->TruncateTable("t", false).ok());
  EXPECT_EQ(RowCount(*store->GetTable("t")), 0u);
  ASSERT_TRUE(store->GetTable("t")->Insert(Rows(0, 2)).ok());
  EXPECT_EQ(RowCount(*store->GetTable("t")), 2u);
  EXPECT_EQ(CodeOf(store->TruncateTable("nope", false)), ErrorCode::kUnknownTable);
  EXPECT_TRUE(store->TruncateTable("nope", true).ok());
}

}  // namespace
}  // namespace granite::storage
