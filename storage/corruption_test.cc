// Damages files of stored parts and checks what readers and a reopened store see.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/metrics/events.h"
#include "storage/store.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::CodeOf;
using core::ErrorCode;
using core::TypeId;
namespace fs = std::filesystem;

// Flips one byte of `path` at `offset` from the end.
void FlipByteFromEnd(const std::string& path, size_t offset) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekg(-static_cast<std::streamoff>(offset), std::ios::end);
  char c = 0;
  file.get(c);
  file.seekp(-static_cast<std::streamoff>(offset), std::ios::end);
  file.put(static_cast<char>(c ^ 0x5a));
}

class CorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    OpenStore();
    TableSchema schema;
    schema.name = "hits";
    schema.columns = {{"id", TypeId::kUInt64}, {"URL", TypeId::kString}};
    // Wide parts (a file pair per column); CompactCorruptionTest below damages compact ones.
    schema.settings["min_bytes_for_wide_part"] = Compact() ? "10485760" : "0";
    ASSERT_TRUE(store_->CreateTable(schema, false, false).ok());
    for (uint64_t first : {uint64_t{0}, uint64_t{20000}}) {
      auto ids = std::make_shared<core::Column>(TypeId::kUInt64);
      auto urls = std::make_shared<core::Column>(TypeId::kString);
      for (uint64_t i = first; i < first + 20000; ++i) {
        ids->Append(i);
        urls->AppendString("https://example.com/" + std::to_string(i));
      }
      core::Block block;
      block.columns = {ids, urls};
      ASSERT_TRUE(store_->GetTable("hits")->Insert(block).ok());
    }
    part_dir_ = dir_.path() + "/tables/hits/parts/all_1_1_0";
  }

  void OpenStore() {
    store_.reset();
    auto store = Store::Open(dir_.path());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }

  std::shared_ptr<const PartsSnapshot> Snapshot() { return store_->GetTable("hits")->Snapshot(); }
  virtual bool Compact() const { return false; }

  TempDirectory dir_;
  std::unique_ptr<Store> store_;
  std::string part_dir_;
};

TEST_F(CorruptionTest, FlippedDataByteFailsOnlyReadsOfThatGranule) {
  // The last bytes of c1.bin belong to the last granule (2) of column URL.
  FlipByteFromEnd(part_dir_ + "/c1.bin", 3);
  for (int reopen = 0; reopen < 2; ++reopen) {
    if (reopen) OpenStore();  // data blocks are verified on read, so the part still loads
    std::shared_ptr<const PartsSnapshot> snapshot = Snapshot();
    ASSERT_EQ(snapshot->parts.size(), 2u);
    const Part& damaged = *snapshot->parts[0];
    absl::Status status = damaged.ReadColumn(1, 0, 3).status();
    EXPECT_EQ(CodeOf(status), ErrorCode::kChecksumDoesntMatch);
    EXPECT_EQ(status.message(),
              "Checksum mismatch in table hits, part all_1_1_0, column URL, granule 2");
    EXPECT_EQ(CodeOf(damaged.ReadColumn(1, 2, 3).status()), ErrorCode::kChecksumDoesntMatch);

    auto head = damaged.ReadColumn(1, 0, 2);
    ASSERT_TRUE(head.ok()) << head.status();
    EXPECT_EQ((*head)->StringAt(16383), "https://example.com/16383");
    EXPECT_TRUE(damaged.ReadColumn(0, 0, 3).ok());
    auto other = snapshot->parts[1]->ReadColumn(1, 0, 3);
    ASSERT_TRUE(other.ok()) << other.status();
    EXPECT_EQ((*other)->StringAt(19999), "https://example.com/39999");
  }
}

TEST_F(CorruptionTest, DamagedMarksOrMetaDetachThePartAtOpen) {
  FlipByteFromEnd(part_dir_ + "/c0.mrk", 20);
  FlipByteFromEnd(dir_.path() + "/tables/hits/parts/all_2_2_0/meta", 1);
  const uint64_t detached_before = core::EventTotal(core::Event::kPartsDetached);
  OpenStore();
  EXPECT_EQ(core::EventTotal(core::Event::kPartsDetached), detached_before + 2);  // and logged
  EXPECT_TRUE(Snapshot()->parts.empty());
  EXPECT_FALSE(fs::exists(part_dir_));
  // Kept aside for inspection, as ClickHouse does, never loaded again.
  EXPECT_TRUE(fs::exists(dir_.path() + "/tables/hits/detached/broken_all_1_1_0/c0.mrk"));
  EXPECT_TRUE(fs::exists(dir_.path() + "/tables/hits/detached/broken_all_2_2_0/meta"));
  // Numbering restarts after the largest surviving part: none here.
  auto ids = std::make_shared<core::Column>(TypeId::kUInt64);
  auto urls = std::make_shared<core::Column>(TypeId::kString);
  ids->Append(uint64_t{1});
  urls->AppendString("u");
  absl::StatusOr<std::string> name = store_->GetTable("hits")->Insert(core::Block{{ids, urls}});
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_EQ(*name, "all_1_1_0");
}

TEST_F(CorruptionTest, TruncatedDataFileIsCaughtByReadsOfALoadedPart) {
  std::shared_ptr<const PartsSnapshot> snapshot = Snapshot();
  fs::resize_file(part_dir_ + "/c0.bin", fs::file_size(part_dir_ + "/c0.bin") - 10);
  absl::Status status = snapshot->parts[0]->ReadColumn(0, 0, 3).status();
  EXPECT_EQ(CodeOf(status), ErrorCode::kCannotReadFromFile) << status;
  EXPECT_TRUE(snapshot->parts[0]->ReadColumn(0, 0, 2).ok());
}

// Issue 19: a part detached for a checksum error is listed, checked, attached only once its
// data verifies (under a new block number), and dropped.
TEST_F(CorruptionTest, DetachedPartIsListedCheckedAttachedAfterRepairAndDropped) {
  std::shared_ptr<Table> table = store_->GetTable("hits");
  FlipByteFromEnd(part_dir_ + "/c1.bin", 3);
  std::vector<Table::PartCheck> checks = table->Check();
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].part_path, "all_1_1_0");
  EXPECT_FALSE(checks[0].passed);
  EXPECT_EQ(checks[0].message,
            "Checksum mismatch in table hits, part all_1_1_0, column URL, granule 2");
  EXPECT_TRUE(checks[1].passed) << checks[1].message;

  const uint64_t detached_before = core::EventTotal(core::Event::kPartsDetached);
  std::shared_ptr<const Part> broken = Snapshot()->parts[0];
  absl::StatusOr<bool> detached =
      table->DetachBrokenPart(broken, broken->ReadColumn(1, 0, 3).status());
  ASSERT_TRUE(detached.ok() && *detached) << detached.status();
  broken.reset();
  EXPECT_EQ(core::EventTotal(core::Event::kPartsDetached), detached_before + 1);
  auto listed = table->DetachedParts();
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].name, "broken_all_1_1_0");
  EXPECT_EQ((*listed)[0].reason, "broken");
  ASSERT_TRUE((*listed)[0].part.has_value());
  EXPECT_EQ((*listed)[0].part->ToString(), "all_1_1_0");
  EXPECT_GT((*listed)[0].bytes_on_disk, 0u);
  checks = table->Check();
  ASSERT_EQ(checks.size(), 2u);  // the remaining part, and the detached one as failed
  EXPECT_TRUE(checks[0].passed);
  EXPECT_EQ(checks[1].part_path, "detached/broken_all_1_1_0");
  EXPECT_FALSE(checks[1].passed);

  // Still damaged: refused, and left where it was.
  absl::StatusOr<std::string> attached = table->AttachPart("broken_all_1_1_0");
  EXPECT_EQ(CodeOf(attached.status()), ErrorCode::kChecksumDoesntMatch) << attached.status();
  EXPECT_EQ(table->DetachedParts()->size(), 1u);
  EXPECT_EQ(CodeOf(table->AttachPart("all_7_7_0").status()), ErrorCode::kNoSuchDataPart);
  EXPECT_EQ(CodeOf(table->AttachPart("../parts").status()), ErrorCode::kIncorrectFileName);

  // Repaired: attached under a fresh block number, all rows back.
  std::string detached_dir = dir_.path() + "/tables/hits/detached/broken_all_1_1_0";
  FlipByteFromEnd(detached_dir + "/c1.bin", 3);
  attached = table->AttachPart("broken_all_1_1_0");
  ASSERT_TRUE(attached.ok()) << attached.status();
  EXPECT_EQ(*attached, "all_3_3_0");
  EXPECT_EQ(Snapshot()->rows, 40000u);
  EXPECT_TRUE(table->DetachedParts()->empty());
  OpenStore();  // and it stays attached
  EXPECT_EQ(Snapshot()->rows, 40000u);
  table = store_->GetTable("hits");

  fs::create_directories(dir_.path() + "/tables/hits/detached/all_9_9_0");
  EXPECT_EQ(table->DetachedParts()->at(0).reason, "");
  EXPECT_EQ(CodeOf(table->DropDetachedPart("nothing")), ErrorCode::kNoSuchDataPart);
  EXPECT_TRUE(table->DropDetachedPart("all_9_9_0").ok());
  EXPECT_TRUE(table->DetachedParts()->empty());
}

// The same damage to compact parts (storage/part_format.h): data.bin holds both columns' blocks,
// URL's last, and data.mrk every mark.
class CompactCorruptionTest : public CorruptionTest {
 protected:
  bool Compact() const override { return true; }
};

TEST_F(CompactCorruptionTest, FlippedDataByteFailsOnlyReadsOfThatGranule) {
  ASSERT_EQ(Snapshot()->parts[0]->part_type(), PartType::kCompact);
  EXPECT_FALSE(fs::exists(part_dir_ + "/c1.bin"));
  // The last bytes of data.bin belong to the last granule (2) of the last column, URL.
  FlipByteFromEnd(part_dir_ + "/data.bin", 3);
  for (int reopen = 0; reopen < 2; ++reopen) {
    if (reopen) OpenStore();  // data blocks are verified on read, so the part still loads
    std::shared_ptr<const PartsSnapshot> snapshot = Snapshot();
    ASSERT_EQ(snapshot->parts.size(), 2u);
    const Part& damaged = *snapshot->parts[0];
    absl::Status status = damaged.ReadColumn(1, 0, 3).status();
    EXPECT_EQ(CodeOf(status), ErrorCode::kChecksumDoesntMatch);
    EXPECT_EQ(status.message(),
              "Checksum mismatch in table hits, part all_1_1_0, column URL, granule 2");
    auto head = damaged.ReadColumn(1, 0, 2);
    ASSERT_TRUE(head.ok()) << head.status();
    EXPECT_EQ((*head)->StringAt(16383), "https://example.com/16383");
    auto ids = damaged.ReadColumn(0, 0, 3);  // the other column's section is intact
    ASSERT_TRUE(ids.ok()) << ids.status();
    EXPECT_EQ((*ids)->Get<uint64_t>(19999), 19999u);
  }
  std::vector<Table::PartCheck> checks = store_->GetTable("hits")->Check();
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_FALSE(checks[0].passed);
  EXPECT_EQ(checks[0].message,
            "Checksum mismatch in table hits, part all_1_1_0, column URL, granule 2");
  EXPECT_TRUE(checks[1].passed) << checks[1].message;
}

TEST_F(CompactCorruptionTest, DamagedOrMissingMarksDetachThePartAtOpen) {
  FlipByteFromEnd(part_dir_ + "/data.mrk", 20);
  fs::remove(dir_.path() + "/tables/hits/parts/all_2_2_0/data.mrk");
  const uint64_t detached_before = core::EventTotal(core::Event::kPartsDetached);
  OpenStore();
  EXPECT_EQ(core::EventTotal(core::Event::kPartsDetached), detached_before + 2);
  EXPECT_TRUE(Snapshot()->parts.empty());
  EXPECT_TRUE(fs::exists(dir_.path() + "/tables/hits/detached/broken_all_1_1_0/data.mrk"));
  EXPECT_TRUE(fs::exists(dir_.path() + "/tables/hits/detached/broken_all_2_2_0/data.bin"));
}

TEST_F(CompactCorruptionTest, TruncatedDataFileFailsToLoadAndIsDetached) {
  fs::resize_file(part_dir_ + "/data.bin", fs::file_size(part_dir_ + "/data.bin") - 1);
  OpenStore();
  ASSERT_EQ(Snapshot()->parts.size(), 1u);
  EXPECT_EQ(Snapshot()->parts[0]->name(), "all_2_2_0");
  // Still truncated, ATTACH PART refuses it.
  std::shared_ptr<Table> table = store_->GetTable("hits");
  EXPECT_EQ(CodeOf(table->AttachPart("broken_all_1_1_0").status()), ErrorCode::kCorruptedData);
}

// Issue 19: one table's damaged schema file does not keep the store from opening the others.
TEST_F(CorruptionTest, DamagedSchemaFileBreaksOnlyItsTable) {
  TableSchema schema;
  schema.name = "other table";  // escaped on disk
  schema.columns = {{"id", TypeId::kUInt64}};
  ASSERT_TRUE(store_->CreateTable(schema, false, false).ok());
  FlipByteFromEnd(dir_.path() + "/tables/hits/schema", 1);
  OpenStore();
  EXPECT_EQ(store_->GetTable("hits"), nullptr);
  absl::Status status = store_->TableOrError("hits").status();
  EXPECT_EQ(CodeOf(status), ErrorCode::kCorruptedData) << status;
  EXPECT_NE(status.message().find("broken"), std::string::npos) << status;
  EXPECT_TRUE(store_->TableOrError("other table").ok());
  EXPECT_EQ(CodeOf(store_->TableOrError("none").status()), ErrorCode::kUnknownTable);
  ASSERT_EQ(store_->BrokenTables().size(), 1u);
  EXPECT_EQ(store_->BrokenTables().begin()->first, "hits");
  EXPECT_EQ(store_->Tables().size(), 1u);
  // Its data stays until it is dropped or replaced on purpose.
  EXPECT_TRUE(fs::exists(part_dir_));
  TableSchema hits;
  hits.name = "hits";
  hits.columns = {{"id", TypeId::kUInt64}};
  EXPECT_EQ(CodeOf(store_->CreateTable(hits, true, false)), ErrorCode::kTableAlreadyExists);
  EXPECT_TRUE(store_->DropTable("hits", false).ok());
  EXPECT_FALSE(fs::exists(dir_.path() + "/tables/hits"));
  EXPECT_TRUE(store_->BrokenTables().empty());
  EXPECT_TRUE(store_->CreateTable(hits, false, false).ok());
  OpenStore();
  EXPECT_TRUE(store_->BrokenTables().empty());
  EXPECT_EQ(store_->Tables().size(), 2u);
}

}  // namespace
}  // namespace granite::storage
