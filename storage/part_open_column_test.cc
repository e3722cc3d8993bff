// Part::OpenColumn: reads through an opened column file (ReadColumn, ReadStringSizes) equal reads
// that open their own, for String and fixed-width columns; a bad column index is an error.
#include <gtest/gtest.h>

#include "core/error.h"
#include "storage/part.h"
#include "storage/part_writer.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::TypeId;

TEST(PartOpenColumnTest, ReadsThroughAnOpenedFileEqualReadsThatOpenTheirOwn) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  auto schema = std::make_shared<const TableSchema>(
      TableSchema{.name = "t", .columns = {{"n", TypeId::kInt16}, {"s", TypeId::kString}}});
  auto numbers = std::make_shared<core::Column>(TypeId::kInt16);
  auto strings = std::make_shared<core::Column>(TypeId::kString);
  for (int i = 0; i < 1000; ++i) {
    numbers->Append(static_cast<int16_t>(i * 7 - 3000));
    strings->AppendString(i % 5 == 0 ? "" : "value " + std::to_string(i * 13));
  }
  PartWriter::Options options;
  options.granule_rows = 64;
  PartWriter writer(Posix(), schema, dir.path(), options);
  absl::StatusOr<std::shared_ptr<const Part>> part = writer.Write(
      core::Block{{numbers, strings}}, PartDescription(), PartName{1, 1, 0}, kInsertTmpPrefix);
  ASSERT_TRUE(part.ok()) << part.status();
  ASSERT_EQ((*part)->granule_count(), 16u);

  absl::StatusOr<std::unique_ptr<RandomAccessFile>> s_file = (*part)->OpenColumn(1);
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> n_file = (*part)->OpenColumn(0);
  ASSERT_TRUE(s_file.ok() && n_file.ok()) << s_file.status() << n_file.status();
  // Several ranges through the same files, as a scan reads morsel after morsel.
  for (auto [begin, end] : {std::pair<size_t, size_t>{3, 7}, {0, 1}, {7, 16}, {0, 16}}) {
    absl::StatusOr<core::ColumnPtr> s = (*part)->ReadColumn(1, begin, end, s_file->get());
    absl::StatusOr<core::ColumnPtr> n = (*part)->ReadColumn(0, begin, end, n_file->get());
    absl::StatusOr<core::ColumnPtr> sizes = (*part)->ReadStringSizes(1, begin, end, s_file->get());
    ASSERT_TRUE(s.ok() && n.ok() && sizes.ok());
    const size_t first = (*part)->granule_first_row(begin);
    ASSERT_EQ((*s)->size(), (*part)->granule_first_row(end) - first);
    ASSERT_EQ((*n)->size(), (*s)->size());
    for (size_t r = 0; r < (*s)->size(); ++r) {
      ASSERT_EQ((*s)->StringAt(r), strings->StringAt(first + r));
      ASSERT_EQ((*n)->Get<int16_t>(r), numbers->Get<int16_t>(first + r));
      ASSERT_EQ((*sizes)->Get<uint64_t>(r), strings->StringAt(first + r).size());
    }
  }
  EXPECT_EQ(core::CodeOf((*part)->OpenColumn(2).status()), core::ErrorCode::kArgumentOutOfBound);
}

}  // namespace
}  // namespace granite::storage
