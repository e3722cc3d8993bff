// Nullable columns in parts: each granule of a Nullable(T) column is T's bytes then its null
// map; columns of other types keep the layout parts had before Nullable, so old parts open.
#include <gtest/gtest.h>

#include "storage/part.h"
#include "storage/part_format.h"
#include "storage/part_writer.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::TypeId;

TEST(PartNullableTest, NullMapsRoundTripAndGranulesWithNullsHaveNoBounds) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  const TypeId nullable_int = core::MakeNullable(TypeId::kInt32);
  const TypeId nullable_string = core::MakeNullable(TypeId::kString);
  auto schema = std::make_shared<const TableSchema>(TableSchema{
      .name = "t", .columns = {{"k", TypeId::kUInt32}, {"n", nullable_int}, {"s", nullable_string}}});
  auto keys = std::make_shared<core::Column>(TypeId::kUInt32);
  auto numbers = std::make_shared<core::Column>(nullable_int);
  auto strings = std::make_shared<core::Column>(nullable_string);
  for (int i = 0; i < 100; ++i) {
    keys->Append(static_cast<uint32_t>(i));
    // Rows 0..31 (the first two granules) have no NULL; after that every third row is NULL.
    if (i >= 32 && i % 3 == 0) {
      numbers->AppendNull();
      strings->AppendNull();
    } else {
      numbers->Append(int32_t{i - 50});
      strings->AppendString("v" + std::to_string(i));
    }
  }
  PartWriter::Options options;
  options.granule_rows = 16;
  PartWriter writer(Posix(), schema, dir.path(), options);
  absl::StatusOr<std::shared_ptr<const Part>> written = writer.Write(
      core::Block{{keys, numbers, strings}}, PartDescription(), PartName{1, 1, 0}, kInsertTmpPrefix);
  ASSERT_TRUE(written.ok()) << written.status();
  absl::StatusOr<std::shared_ptr<const Part>> loaded =
      Part::Load(Posix(), schema, dir.path() + "/all_1_1_0", PartName{1, 1, 0});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Part& part = **loaded;
  for (auto [begin, end] : {std::pair<size_t, size_t>{0, part.granule_count()}, {1, 4}, {3, 5}}) {
    absl::StatusOr<core::ColumnPtr> n = part.ReadColumn(1, begin, end);
    absl::StatusOr<core::ColumnPtr> s = part.ReadColumn(2, begin, end);
    ASSERT_TRUE(n.ok() && s.ok()) << n.status() << s.status();
    ASSERT_TRUE((*n)->nullable() && (*s)->nullable());
    const size_t first = part.granule_first_row(begin);
    ASSERT_EQ((*n)->size(), part.granule_first_row(end) - first);
    for (size_t r = 0; r < (*n)->size(); ++r) {
      ASSERT_EQ((*n)->IsNullAt(r), numbers->IsNullAt(first + r)) << r;
      ASSERT_EQ((*s)->IsNullAt(r), strings->IsNullAt(first + r)) << r;
      ASSERT_EQ((*n)->Get<int32_t>(r), numbers->Get<int32_t>(first + r));
      ASSERT_EQ((*s)->StringAt(r), strings->StringAt(first + r));
    }
  }
  // Granules 0 and 1 hold no NULL: exact bounds; granule 2 holds NULLs: none. The part has no
  // bounds for the column then (min/max shortcuts and pruning must read it).
  EXPECT_TRUE(part.granule_bounds(1, 0).present);
  EXPECT_TRUE(part.granule_bounds(1, 1).present);
  EXPECT_FALSE(part.granule_bounds(1, 2).present);
  EXPECT_FALSE(part.column_bounds(1).present);
  // The string sizes shortcut reads plain String columns only.
  EXPECT_FALSE(part.ReadStringSizes(2, 0, 1).ok());
}

TEST(PartNullableTest, ColumnsThatAreNotNullableKeepTheOldGranuleLayout) {
  // A part written before Nullable existed has exactly these bytes: values only, no null map.
  core::Column numbers(TypeId::kInt32);
  for (int i = 0; i < 10; ++i) numbers.Append(int32_t{i});
  std::string scratch;
  EXPECT_EQ(EncodeGranule(numbers, 2, 6, &scratch).size(), 4u * 4);
  EXPECT_EQ(EncodeGranule(numbers, 2, 6, &scratch, /*null_map=*/true).size(), 4u * 5);

  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  auto schema = std::make_shared<const TableSchema>(
      TableSchema{.name = "old", .columns = {{"n", TypeId::kInt32}, {"s", TypeId::kString}}});
  auto values = std::make_shared<core::Column>(TypeId::kInt32);
  auto strings = std::make_shared<core::Column>(TypeId::kString);
  for (int i = 0; i < 40; ++i) {
    values->Append(int32_t{i});
    strings->AppendString(std::string(i % 5, 'x'));
  }
  PartWriter writer(Posix(), schema, dir.path(), PartWriter::Options());
  ASSERT_TRUE(writer.Write(core::Block{{values, strings}}, PartDescription(), PartName{2, 2, 0},
                           kInsertTmpPrefix)
                  .ok());
  absl::StatusOr<std::shared_ptr<const Part>> loaded =
      Part::Load(Posix(), schema, dir.path() + "/all_2_2_0", PartName{2, 2, 0});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ((*loaded)->column_uncompressed_bytes(0), 40u * 4);
  absl::StatusOr<core::ColumnPtr> n = (*loaded)->ReadColumn(0, 0, (*loaded)->granule_count());
  ASSERT_TRUE(n.ok());
  EXPECT_FALSE((*n)->nullable());
  EXPECT_EQ((*n)->Get<int32_t>(39), 39);
}

}  // namespace
}  // namespace granite::storage
