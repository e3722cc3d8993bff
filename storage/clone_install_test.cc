// Clone install (storage/clone_install.h, Table::InstallClone): a replica's table switches to
// parts copied from a peer and the peer's block ids at once, at run time and across a crash.
#include <gtest/gtest.h>

#include <filesystem>

#include "storage/clone_install.h"
#include "storage/store.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::TypeId;

TableSchema Schema() {
  TableSchema schema;
  schema.name = "t";
  schema.columns = {{"id", TypeId::kUInt64}};
  return schema;
}

core::Block Rows(uint64_t first, size_t count) {
  auto ids = std::make_shared<core::Column>(TypeId::kUInt64);
  for (uint64_t i = first; i < first + count; ++i) ids->Append(i);
  return core::Block{{ids}};
}

std::unique_ptr<Store> OpenStore(const std::string& dir) {
  auto store = Store::Open(dir);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? std::move(*store) : nullptr;
}

class CloneInstallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    peer_ = OpenStore(peer_dir_.path());
    ASSERT_TRUE(peer_->CreateTable(Schema(), false, false).ok());
    for (uint64_t b = 0; b < 3; ++b) ASSERT_TRUE(peer_->GetTable("t")->Insert(Rows(b * 100, 100)).ok());
    store_ = OpenStore(dir_.path());
    ASSERT_TRUE(store_->CreateTable(Schema(), false, false).ok());
    ASSERT_TRUE(store_->GetTable("t")->Insert(Rows(0, 100)).ok());  // the replica's old rows
  }

  std::string table_dir() const { return dir_.path() + "/tables/t"; }

  // Stages the peer's parts and one block-id file as ReplicaCloner would; returns the parts.
  std::vector<Table::ClonedPart> Stage() {
    const std::string staging = table_dir() + "/parts/" + kStaging;
    std::filesystem::create_directories(staging + "/ids");
    std::vector<Table::ClonedPart> parts;
    for (const auto& part : peer_->GetTable("t")->Snapshot()->parts) {
      std::filesystem::copy(part->directory(), staging + "/" + part->name(),
                            std::filesystem::copy_options::recursive);
      parts.push_back({part->name(), part->part_name()});
    }
    EXPECT_TRUE(WriteFile(*Posix(), staging + "/ids/" + kId, "7\nc:block").ok());
    return parts;
  }

  bool HasId() const {
    return std::filesystem::exists(table_dir() + "/replication/ids/" + kId);
  }

  static constexpr char kStaging[] = "tmp_clone_x";
  static constexpr char kId[] = "0123456789abcdef0123456789abcdef";
  TempDirectory peer_dir_;
  TempDirectory dir_;
  std::unique_ptr<Store> peer_;
  std::unique_ptr<Store> store_;
};

TEST_F(CloneInstallTest, InstallReplacesEveryPartAndAddsTheIds) {
  std::shared_ptr<Table> table = store_->GetTable("t");
  std::vector<Table::ClonedPart> parts = Stage();
  for (const auto& part : parts) {
    ASSERT_TRUE(table->VerifyStagedPart(table_dir() + "/parts/" + kStaging + "/" +
                                            part.staged_name, part.name).ok());
  }
  absl::StatusOr<uint64_t> rows = table->InstallClone(kStaging, parts);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, 300u);
  EXPECT_EQ(table->rows(), 300u);
  EXPECT_TRUE(HasId());
  EXPECT_FALSE(std::filesystem::exists(table_dir() + "/parts/" + kStaging));
  // The copies are numbered above the old part, which is deleted once unused.
  for (const auto& part : table->Snapshot()->parts) EXPECT_GT(part->part_name().min_block, 1u);
  EXPECT_EQ(table->DeleteUnusedParts(), 1u);
  // New inserts are numbered above the copies; all of it survives a restart.
  ASSERT_TRUE(table->Insert(Rows(1000, 10)).ok());
  table.reset();
  store_ = OpenStore(dir_.path());
  EXPECT_EQ(store_->GetTable("t")->rows(), 310u);
}

TEST_F(CloneInstallTest, OpenFinishesASwitchACrashInterrupted) {
  std::vector<Table::ClonedPart> parts = Stage();
  // The plan was made durable, nothing applied: as if the process died right after.
  ClonePlan plan;
  plan.floor = 10;
  plan.staging = kStaging;
  for (const auto& part : parts) {
    PartName renamed = part.name;
    renamed.min_block += plan.floor;
    renamed.max_block += plan.floor;
    plan.moves.emplace_back(part.staged_name, renamed.ToString());
  }
  ASSERT_TRUE(WriteClonePlan(*Posix(), table_dir(), plan).ok());
  // One part was moved before the crash.
  std::filesystem::rename(table_dir() + "/parts/" + kStaging + "/" + plan.moves[0].first,
                          table_dir() + "/parts/" + plan.moves[0].second);
  store_.reset();
  store_ = OpenStore(dir_.path());
  EXPECT_EQ(store_->GetTable("t")->rows(), 300u);  // the old 100 rows are gone, not added
  EXPECT_TRUE(HasId());
  absl::StatusOr<ClonePlan> after = ReadClonePlan(*Posix(), table_dir());
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->floor, 10u);
  EXPECT_TRUE(after->staging.empty());
  // Later inserts are numbered above the floor: a restart keeps them.
  ASSERT_TRUE(store_->GetTable("t")->Insert(Rows(1000, 10)).ok());
  store_.reset();
  store_ = OpenStore(dir_.path());
  EXPECT_EQ(store_->GetTable("t")->rows(), 310u);
}

TEST_F(CloneInstallTest, ACrashBeforeTheSwitchKeepsTheOldRows) {
  Stage();
  store_.reset();
  store_ = OpenStore(dir_.path());
  EXPECT_EQ(store_->GetTable("t")->rows(), 100u);
  EXPECT_FALSE(HasId());
  EXPECT_FALSE(std::filesystem::exists(table_dir() + "/parts/" + kStaging));
}

}  // namespace
}  // namespace granite::storage
