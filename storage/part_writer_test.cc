#include "storage/part_writer.h"

#include <gtest/gtest.h>

#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::TypeId;

TEST(PartWriterTest, LongStringsEndGranulesEarlyAndLoadBackIdentically) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  auto schema = std::make_shared<const TableSchema>(
      TableSchema{.name = "t", .columns = {{"n", TypeId::kInt32}, {"s", TypeId::kString}}});
  auto numbers = std::make_shared<core::Column>(TypeId::kInt32);
  auto strings = std::make_shared<core::Column>(TypeId::kString);
  for (int i = 0; i < 60; ++i) {
    numbers->Append(int32_t{i - 30});
    size_t length = i == 40 ? 5000 : i * 7 % 300;
    strings->AppendString(std::string(length, static_cast<char>('a' + i % 26)));
  }
  core::Block block{{numbers, strings}};

  PartWriter::Options options;
  options.granule_rows = 16;
  options.max_granule_bytes = 1000;
  PartWriter writer(Posix(), schema, dir.path(), options);
  absl::StatusOr<std::shared_ptr<const Part>> written =
      writer.Write(block, PartDescription(), PartName{5, 5, 0}, kInsertTmpPrefix);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ((*written)->directory(), dir.path() + "/all_5_5_0");

  absl::StatusOr<std::shared_ptr<const Part>> loaded =
      Part::Load(Posix(), schema, dir.path() + "/all_5_5_0", PartName{5, 5, 0});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  for (const auto& part : {*written, *loaded}) {
    EXPECT_EQ(part->rows(), 60u);
    EXPECT_EQ(part->size_on_disk(), (*written)->size_on_disk());
    ASSERT_GT(part->granule_count(), 60u / 16 + 1);  // byte limit split some granules
    size_t row = 0;
    for (size_t g = 0; g < part->granule_count(); ++g) {
      size_t rows = part->granule_rows(g);
      EXPECT_LE(rows, 16u);
      size_t bytes = 0;
      for (size_t r = row; r < row + rows; ++r) bytes += strings->StringAt(r).size() + 4;
      EXPECT_TRUE(bytes <= 1000 || rows == 1) << "granule " << g;
      if (row == 40) {
        EXPECT_EQ(rows, 1u);  // the 5000-byte value sits alone
      }
      row += rows;
    }
    auto s = part->ReadColumn(1, 0, part->granule_count());
    auto n = part->ReadColumn(0, 0, part->granule_count());
    ASSERT_TRUE(s.ok() && n.ok());
    for (size_t i = 0; i < 60; ++i) {
      ASSERT_EQ((*s)->StringAt(i), strings->StringAt(i));
      ASSERT_EQ((*n)->Get<int32_t>(i), numbers->Get<int32_t>(i));
    }
    EXPECT_EQ(part->column_uncompressed_bytes(0), 60u * 4);
  }
}

}  // namespace
}  // namespace granite::storage
