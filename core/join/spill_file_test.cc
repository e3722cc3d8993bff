#include "core/join/spill_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace granite::core {
namespace {

std::string NewDir() {
  std::string dir = ::testing::TempDir() + "spill_file_testXXXXXX";
  EXPECT_NE(::mkdtemp(dir.data()), nullptr);
  return dir;
}

bool Exists(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

Block Rows(uint64_t from, size_t count) {
  auto keys = std::make_shared<Column>(TypeId::kUInt64);
  auto names = std::make_shared<Column>(WithNullable(TypeId::kString, true));
  for (size_t i = 0; i < count; ++i) {
    keys->Append<uint64_t>(from + i);
    if (i % 3 == 0) {
      names->AppendNull();
    } else {
      names->AppendString("name-" + std::to_string(from + i));
    }
  }
  Block block;
  block.columns = {keys, std::make_shared<Column>(TypeId::kInt32), names};  // 1: a placeholder
  return block;
}

TEST(SpillFileTest, ReadsBackItsBlocksInOrderWithPlaceholders) {
  const std::string dir = NewDir() + "/tmp";  // created on first use
  auto file = SpillFile::Create(dir);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_TRUE((*file)->Append(Rows(10, 5)).ok());
  ASSERT_TRUE((*file)->Append(Rows(100, 1000)).ok());
  EXPECT_EQ((*file)->rows(), 1005u);
  EXPECT_GT((*file)->bytes_written(), 0u);
  EXPECT_TRUE(Exists((*file)->path()));
  for (uint64_t from : {10, 100}) {
    auto block = (*file)->Next();
    ASSERT_TRUE(block.ok()) << block.status();
    ASSERT_TRUE(block->has_value());
    const Block& rows = **block;
    ASSERT_EQ(rows.columns.size(), 3u);
    EXPECT_EQ(rows.columns[1]->size(), 0u);
    EXPECT_EQ(rows.columns[1]->logical_type(), TypeId::kInt32);
    EXPECT_EQ(rows.rows(), from == 10 ? 5u : 1000u);
    EXPECT_EQ(rows.columns[0]->Get<uint64_t>(1), from + 1);
    EXPECT_TRUE(rows.columns[2]->IsNullAt(0));
    EXPECT_EQ(rows.columns[2]->StringAt(2), "name-" + std::to_string(from + 2));
  }
  auto end = (*file)->Next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
  // Appends after reading started are read next.
  ASSERT_TRUE((*file)->Append(Rows(7, 2)).ok());
  auto more = (*file)->Next();
  ASSERT_TRUE(more.ok() && more->has_value());
  EXPECT_EQ((**more).rows(), 2u);
  ASSERT_TRUE((*file)->Clear().ok());
  EXPECT_EQ((*file)->rows(), 0u);
  const std::string path = (*file)->path();
  file->reset();
  EXPECT_FALSE(Exists(path));
}

TEST(SpillFileTest, RemoveSpillFilesRemovesOnlySpillFiles) {
  const std::string dir = NewDir();
  std::ofstream(dir + "/join-1-2.spill") << "left over";
  std::ofstream(dir + "/keep.txt") << "not ours";
  EXPECT_EQ(RemoveSpillFiles(dir), 1u);
  EXPECT_FALSE(Exists(dir + "/join-1-2.spill"));
  EXPECT_TRUE(Exists(dir + "/keep.txt"));
  EXPECT_EQ(RemoveSpillFiles(dir + "/missing"), 0u);
}

TEST(SpillFileTest, ACorruptRecordIsAnError) {
  auto file = SpillFile::Create(NewDir());
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->Append(Rows(1, 10)).ok());
  {
    std::fstream raw((*file)->path(), std::ios::in | std::ios::out | std::ios::binary);
    raw.seekp(30);
    raw.write("garbage!", 8);
  }
  auto block = (*file)->Next();
  EXPECT_FALSE(block.ok());
}

}  // namespace
}  // namespace granite::core
