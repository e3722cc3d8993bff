#include "storage/store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::CodeOf;
using core::ErrorCode;
using core::TypeId;
namespace fs = std::filesystem;

TableSchema TwoColumns(const std::string& name) {
  TableSchema schema;
  schema.name = name;
  schema.columns = {{"id", TypeId::kUInt64}, {"name", TypeId::kString}};
  schema.order_by = {"id"};
  schema.engine = "MergeTree";
  return schema;
}

core::Block Rows(uint64_t first, size_t count) {
  auto ids = std::make_shared<core::Column>(TypeId::kUInt64);
  auto names = std::make_shared<core::Column>(TypeId::kString);
  for (uint64_t id = first; id < first + count; ++id) {
    ids->Append(id);
    names->AppendString("name" + std::to_string(id));
  }
  core::Block block;
  block.columns = {ids, names};
  return block;
}

// Returns every id stored in the table, in part order.
std::vector<uint64_t> Ids(const Table& table) {
  std::vector<uint64_t> ids;
  const auto snapshot = table.Snapshot();  // alive for the loop
  for (const auto& part : snapshot->parts) {
    auto column = part->ReadColumn(0, 0, part->granule_count());
    EXPECT_TRUE(column.ok()) << column.status();
    if (!column.ok()) continue;
    for (size_t i = 0; i < (*column)->size(); ++i) ids.push_back((*column)->Get<uint64_t>(i));
  }
  return ids;
}

std::vector<uint64_t> Range(uint64_t first, size_t count) {
  std::vector<uint64_t> out;
  for (uint64_t i = 0; i < count; ++i) out.push_back(first + i);
  return out;
}

std::vector<std::string> Entries(const std::string& dir) {
  auto entries = Posix()->ListDir(dir);
  EXPECT_TRUE(entries.ok()) << entries.status();
  return entries.ok() ? *entries : std::vector<std::string>{};
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.path().empty()); }

  std::unique_ptr<Store> Open() {
    auto store = Store::Open(dir_.path());
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(*store) : nullptr;
  }

  std::string TableDir(const std::string& name) {
    return dir_.path() + "/tables/" + EscapeTableName(name);
  }

  TempDirectory dir_;
};

TEST_F(StoreTest, CreateAndDropReportClickHouseCodes) {
  std::unique_ptr<Store> store = Open();
  ASSERT_TRUE(store->CreateTable(TwoColumns("b"), false, false).ok());
  ASSERT_TRUE(store->CreateTable(TwoColumns("a"), false, false).ok());
  absl::Status status = store->CreateTable(TwoColumns("a"), false, false);
  EXPECT_EQ(CodeOf(status), ErrorCode::kTableAlreadyExists);
  EXPECT_NE(status.message().find("a"), std::string::npos);
  EXPECT_TRUE(store->CreateTable(TwoColumns("a"), true, false).ok());

  std::vector<std::shared_ptr<Table>> tables = store->Tables();
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0]->name(), "a");
  EXPECT_EQ(tables[1]->name(), "b");

  EXPECT_EQ(CodeOf(store->DropTable("missing", false)), ErrorCode::kUnknownTable);
  EXPECT_TRUE(store->DropTable("missing", true).ok());
  std::shared_ptr<Table> b = store->GetTable("b");
  ASSERT_TRUE(b->Insert(Rows(0, 10)).ok());
  ASSERT_TRUE(store->DropTable("b", false).ok());
  EXPECT_EQ(store->GetTable("b"), nullptr);
  EXPECT_FALSE(fs::exists(TableDir("b")));
  EXPECT_EQ(CodeOf(b->Insert(Rows(0, 10)).status()), ErrorCode::kUnknownTable);
  EXPECT_EQ(CodeOf(store->CreateTable(TableSchema{.name = "c"}, false, false)),
            ErrorCode::kEmptyListOfColumnsPassed);
}

TEST_F(StoreTest, CreateOrReplaceStartsAnEmptyTable) {
  std::unique_ptr<Store> store = Open();
  ASSERT_TRUE(store->CreateTable(TwoColumns("t"), false, false).ok());
  ASSERT_TRUE(store->GetTable("t")->Insert(Rows(0, 10)).ok());
  TableSchema replacement = TwoColumns("t");
  replacement.columns.push_back({"extra", TypeId::kDate});
  ASSERT_TRUE(store->CreateTable(replacement, false, true).ok());
  std::shared_ptr<Table> table = store->GetTable("t");
  EXPECT_EQ(table->schema(), replacement);
  EXPECT_EQ(table->rows(), 0u);
  store = Open();
  EXPECT_EQ(store->GetTable("t")->schema(), replacement);
  EXPECT_EQ(store->GetTable("t")->rows(), 0u);
  EXPECT_EQ(Entries(dir_.path() + "/tables"), std::vector<std::string>{"t"});
}

TEST_F(StoreTest, ReopenFindsTheSameTablesPartsAndData) {
  std::vector<std::string> names = {"hits", "a/b", "..", "tmp.x", "Ünïcode table", "%41"};
  {
    std::unique_ptr<Store> store = Open();
    for (const std::string& name : names) {
      ASSERT_TRUE(store->CreateTable(TwoColumns(name), false, false).ok()) << name;
    }
    std::shared_ptr<Table> hits = store->GetTable("hits");
    ASSERT_TRUE(hits->Insert(Rows(0, 20000)).ok());
    ASSERT_TRUE(hits->Insert(Rows(20000, 5)).ok());
    ASSERT_TRUE(hits->Insert(Rows(20005, 1)).ok());
    ASSERT_TRUE(store->GetTable("a/b")->Insert(Rows(7, 3)).ok());
  }
  std::unique_ptr<Store> store = Open();
  ASSERT_EQ(store->Tables().size(), names.size());
  for (const std::string& name : names) EXPECT_NE(store->GetTable(name), nullptr) << name;
  std::shared_ptr<Table> hits = store->GetTable("hits");
  EXPECT_EQ(hits->schema(), TwoColumns("hits"));
  std::shared_ptr<const PartsSnapshot> snapshot = hits->Snapshot();
  ASSERT_EQ(snapshot->parts.size(), 3u);
  EXPECT_EQ(snapshot->parts[0]->name(), "all_1_1_0");
  EXPECT_EQ(snapshot->parts[0]->granule_count(), 3u);
  EXPECT_EQ(snapshot->parts[2]->name(), "all_3_3_0");
  EXPECT_EQ(Ids(*hits), Range(0, 20006));
  auto names_column = snapshot->parts[0]->ReadColumn(1, 2, 3);
  ASSERT_TRUE(names_column.ok());
  EXPECT_EQ((*names_column)->StringAt(0), "name16384");
  EXPECT_EQ(Ids(*store->GetTable("a/b")), Range(7, 3));

  // Block numbers continue after the largest existing part.
  absl::StatusOr<std::string> next = hits->Insert(Rows(30000, 2));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, "all_4_4_0");
}

TEST_F(StoreTest, OpenRemovesLeftovers) {
  {
    std::unique_ptr<Store> store = Open();
    ASSERT_TRUE(store->CreateTable(TwoColumns("t"), false, false).ok());
    std::shared_ptr<Table> table = store->GetTable("t");
    ASSERT_TRUE(table->Insert(Rows(0, 100)).ok());
    ASSERT_TRUE(table->Insert(Rows(100, 100)).ok());
  }
  std::string parts = TableDir("t") + "/parts";
  // An insert that crashed before its rename.
  fs::create_directory(parts + "/tmp_insert_all_9_9_0");
  std::ofstream(parts + "/tmp_insert_all_9_9_0/data.bin") << "partial";
  // A complete-looking part with a missing file, and one with a truncated data file (the parts
  // are small, so compact: data.bin and data.mrk hold every column).
  fs::copy(parts + "/all_2_2_0", parts + "/all_7_7_0");
  fs::remove(parts + "/all_7_7_0/data.mrk");
  fs::copy(parts + "/all_2_2_0", parts + "/all_8_8_0");
  fs::resize_file(parts + "/all_8_8_0/data.bin", fs::file_size(parts + "/all_8_8_0/data.bin") - 1);
  // A foreign entry, a CREATE and a DROP that crashed half-way.
  std::ofstream(parts + "/junk") << "x";
  fs::create_directory(dir_.path() + "/tables/tmp.create.u");
  fs::create_directory(dir_.path() + "/tables/tmp.drop.v");

  std::unique_ptr<Store> store = Open();
  EXPECT_EQ(Entries(parts), (std::vector<std::string>{"all_1_1_0", "all_2_2_0"}));
  EXPECT_EQ(Entries(dir_.path() + "/tables"), std::vector<std::string>{"t"});
  ASSERT_EQ(store->Tables().size(), 1u);
  std::shared_ptr<Table> table = store->GetTable("t");
  EXPECT_EQ(Ids(*table), Range(0, 200));
  absl::StatusOr<std::string> next = table->Insert(Rows(200, 1));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, "all_3_3_0");
}

TEST_F(StoreTest, KeepsATableWithADamagedSchemaAsBroken) {
  {
    std::unique_ptr<Store> store = Open();
    ASSERT_TRUE(store->CreateTable(TwoColumns("t"), false, false).ok());
  }
  std::string schema_file = TableDir("t") + "/schema";
  fs::resize_file(schema_file, fs::file_size(schema_file) - 1);
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_.path());
  ASSERT_TRUE(store.ok()) << store.status();  // the other tables are served
  absl::Status status = (*store)->TableOrError("t").status();
  EXPECT_EQ(CodeOf(status), ErrorCode::kCorruptedData);
  EXPECT_NE(status.message().find(TableDir("t")), std::string::npos) << status;
  EXPECT_TRUE(fs::exists(schema_file));  // nothing was deleted
}

}  // namespace
}  // namespace granite::storage
