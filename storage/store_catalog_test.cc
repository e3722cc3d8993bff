#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "storage/forwarding_file_system.h"
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

namespace granite::storage {
namespace {

TableSchema TwoColumns() {
  TableSchema schema;
  schema.name = "t";
  schema.columns = {{"id", TypeId::kUInt64}, {"v", TypeId::kString}};
  schema.order_by = {"id"};
  schema.engine = "MergeTree";
  return schema;
}

core::Block TwoColumnRows(uint64_t first, size_t count) {
  auto ids = std::make_shared<core::Column>(TypeId::kUInt64);
  auto values = std::make_shared<core::Column>(TypeId::kString);
  for (uint64_t id = first; id < first + count; ++id) {
    ids->Append(id);
    values->AppendString("v" + std::to_string(id));
  }
  core::Block block;
  block.columns = {ids, values};
  return block;
}

// Reads column `column` of every part, concatenated as text.
std::vector<std::string> ReadStrings(const Table& table, size_t column) {
  std::vector<std::string> out;
  const auto snapshot = table.Snapshot();
  for (const auto& part : snapshot->parts) {
    auto read = part->ReadColumn(column, 0, part->granule_count());
    EXPECT_TRUE(read.ok()) << read.status();
    if (!read.ok()) continue;
    for (size_t r = 0; r < (*read)->size(); ++r) out.push_back(std::string((*read)->StringAt(r)));
  }
  return out;
}

// Issue 22: ALTER TABLE's metadata changes (rename, comment, default, an ALIAS column) keep the
// parts written before them readable, also after a restart; a change of the stored columns is
// refused while the table has parts and accepted when it is empty.
// Removes directory `doomed` (when set) just before the first listing of it, as a table's earlier
// instance removes a merged-away part when its last reader lets go.
class VanishingFileSystem : public ForwardingFileSystem {
 public:
  using ForwardingFileSystem::ForwardingFileSystem;
  std::string doomed;
  std::string unreadable;  // fails its next listing with an I/O error instead
  absl::StatusOr<std::vector<std::string>> ListDir(const std::string& path) override {
    if (!doomed.empty() && path == doomed) {
      doomed.clear();
      EXPECT_TRUE(RemoveAll(path).ok());
    }
    if (!unreadable.empty() && path == unreadable) {
      unreadable.clear();
      return core::Error(ErrorCode::kCannotReadFromFile, "Cannot list directory " + path);
    }
    return ForwardingFileSystem::ListDir(path);
  }
};

TEST(StoreCatalogTest, AlterReopensATableWhosePartVanishesDuringTheScan) {
  TempDirectory dir;
  auto vanishing = std::make_shared<VanishingFileSystem>(Posix());
  auto opened = Store::Open(dir.path(), vanishing);
  ASSERT_TRUE(opened.ok()) << opened.status();
  std::unique_ptr<Store> store = *std::move(opened);
  ASSERT_TRUE(store->CreateTable(OneColumn("t"), false, false).ok());
  absl::StatusOr<std::string> first = store->GetTable("t")->Insert(Rows(0, 3));
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(store->GetTable("t")->Insert(Rows(3, 2)).ok());
  vanishing->doomed = store->GetTable("t")->parts_directory() + "/" + *first;
  TableSchema commented = OneColumn("t");
  commented.columns[0].comment = "the key";
  absl::Status altered = store->AlterTableSchema("t", commented);
  ASSERT_TRUE(altered.ok()) << altered;
  EXPECT_TRUE(vanishing->doomed.empty());  // the part was listed, and gone by then
  EXPECT_EQ(store->GetTable("t")->declared_schema(), commented);
  EXPECT_EQ(RowCount(*store->GetTable("t")), 2u);
  EXPECT_FALSE(fs::exists(store->GetTable("t")->directory() + "/detached"));

  // An I/O error while reopening: the ALTER fails and changes nothing, on disk either.
  std::string part = store->GetTable("t")->Snapshot()->parts[0]->directory();
  vanishing->unreadable = part;
  TableSchema again = commented;
  again.columns[0].comment = "changed again";
  EXPECT_EQ(CodeOf(store->AlterTableSchema("t", again)), ErrorCode::kCannotReadFromFile);
  EXPECT_EQ(store->GetTable("t")->declared_schema(), commented);
  EXPECT_TRUE(store->GetTable("t")->Insert(Rows(10, 1)).ok());  // still serving
  EXPECT_EQ(RowCount(*store->GetTable("t")), 3u);
  store.reset();
  auto reopened = Open(dir.path());
  EXPECT_EQ(reopened->GetTable("t")->declared_schema(), commented);
}

TEST(StoreCatalogTest, AlterTableSchemaKeepsOldPartsReadable) {
  TempDirectory dir;
  TableSchema altered = TwoColumns();
  altered.columns[1].name = "renamed";
  altered.columns[1].comment = "was v";
  altered.columns[1].default_kind = core::DefaultKind::kDefault;
  altered.columns[1].default_expression = "'none'";
  core::ColumnSchema alias{"twice", TypeId::kUInt64};
  alias.default_kind = core::DefaultKind::kAlias;
  alias.default_expression = "id * 2";
  altered.columns.insert(altered.columns.begin() + 1, alias);
  {
    auto store = Open(dir.path());
    ASSERT_TRUE(store->CreateTable(TwoColumns(), false, false).ok());
    ASSERT_TRUE(store->GetTable("t")->Insert(TwoColumnRows(0, 3)).ok());
    ASSERT_TRUE(store->AlterTableSchema("t", altered).ok());
    EXPECT_TRUE(store->AlterTableSchema("t", altered).ok());  // repeated: no change
    auto table = store->GetTable("t");
    EXPECT_EQ(table->declared_schema(), altered);
    EXPECT_EQ(table->schema().columns.size(), 2u);  // the ALIAS column is not stored
    EXPECT_EQ(ReadStrings(*table, 1), (std::vector<std::string>{"v0", "v1", "v2"}));
    ASSERT_TRUE(table->Insert(TwoColumnRows(3, 1)).ok());

    TableSchema retyped = altered;
    retyped.columns[2].type = TypeId::kUInt32;
    retyped.columns[2].default_expression = "0";
    EXPECT_EQ(CodeOf(store->AlterTableSchema("t", retyped)), ErrorCode::kNotImplemented);
    EXPECT_EQ(CodeOf(store->AlterTableSchema("nope", retyped)), ErrorCode::kUnknownTable);
  }
  auto store = Open(dir.path());
  MergeOptions no_background;
  no_background.threads = 0;
  store->StartBackgroundMerges(no_background);
  auto table = store->GetTable("t");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->declared_schema(), altered);
  EXPECT_EQ(RowCount(*table), 4u);
  ASSERT_TRUE(store->Optimize("t", /*final=*/true).ok());
  table = store->GetTable("t");
  std::vector<std::string> values = ReadStrings(*table, 1);
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, (std::vector<std::string>{"v0", "v1", "v2", "v3"}));

  ASSERT_TRUE(store->TruncateTable("t", false).ok());
  TableSchema retyped = altered;
  retyped.columns[2].type = TypeId::kUInt32;
  retyped.columns[2].default_expression = "0";
  EXPECT_TRUE(store->AlterTableSchema("t", retyped).ok());  // empty: any change
  EXPECT_EQ(store->GetTable("t")->schema().columns[1].type, TypeId::kUInt32);
}

// A merged-away part a query still reads stays on disk through an ALTER (the reopened table does
// not load, detach or delete it) and the earlier instance deletes it once the query lets go.
TEST(StoreCatalogTest, AlterTableSchemaLeavesOutdatedPartsToTheEarlierInstance) {
  TempDirectory dir;
  auto store = Open(dir.path());
  MergeOptions no_background;
  no_background.threads = 0;
  store->StartBackgroundMerges(no_background);
  ASSERT_TRUE(store->CreateTable(TwoColumns(), false, false).ok());
  std::shared_ptr<Table> before = store->GetTable("t");
  ASSERT_TRUE(before->Insert(TwoColumnRows(0, 3)).ok());
  ASSERT_TRUE(before->Insert(TwoColumnRows(3, 2)).ok());
  std::shared_ptr<const PartsSnapshot> reading = before->Snapshot();  // a query's snapshot
  ASSERT_EQ(reading->parts.size(), 2u);
  ASSERT_TRUE(store->Optimize("t", /*final=*/true).ok());
  ASSERT_EQ(before->registry().Outdated().size(), 2u);

  TableSchema commented = TwoColumns();
  commented.columns[1].comment = "altered while a query reads merged-away parts";
  ASSERT_TRUE(store->AlterTableSchema("t", commented).ok());
  std::shared_ptr<Table> after = store->GetTable("t");
  ASSERT_NE(after, before);
  EXPECT_EQ(RowCount(*after), 5u);
  ASSERT_EQ(after->Snapshot()->parts.size(), 1u);
  for (const auto& part : reading->parts) {
    EXPECT_TRUE(fs::exists(part->directory())) << part->name();
  }
  absl::StatusOr<std::vector<DetachedPart>> detached = after->DetachedParts();
  ASSERT_TRUE(detached.ok()) << detached.status();
  EXPECT_TRUE(detached->empty());

  std::vector<std::string> gone;
  for (const auto& part : reading->parts) gone.push_back(part->directory());
  reading.reset();
  EXPECT_EQ(before->DeleteUnusedParts(), 2u);
  for (const std::string& path : gone) EXPECT_FALSE(fs::exists(path)) << path;
  EXPECT_EQ(RowCount(*after), 5u);
}

}  // namespace
}  // namespace granite::storage
