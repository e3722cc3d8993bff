// Column filtering and taking: String columns keep their values and offsets; fixed-width columns
// their values, for masks that keep runs, single rows, everything and nothing.
#include "core/column.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace granite::core {
namespace {

Column Strings(const std::vector<std::string>& values) {
  Column column(TypeId::kString);
  for (const std::string& value : values) column.AppendString(value);
  return column;
}

std::vector<std::string> ValuesOf(const Column& column) {
  std::vector<std::string> out;
  for (size_t r = 0; r < column.size(); ++r) out.emplace_back(column.StringAt(r));
  return out;
}

TEST(ColumnTest, FilterStringsCopiesRunsOfKeptRows) {
  Column column = Strings({"a", "", "bcd", "ef", "", "ghij", "k"});
  const uint8_t runs[] = {1, 1, 0, 1, 1, 1, 0};
  Column kept = column.Filter(runs);
  EXPECT_EQ(ValuesOf(kept), (std::vector<std::string>{"a", "", "ef", "", "ghij"}));
  EXPECT_EQ(kept.Chars(), "aefghij");
  EXPECT_EQ(kept.Offsets(), (std::vector<uint64_t>{1, 1, 3, 3, 7}));

  const uint8_t last[] = {0, 0, 0, 0, 0, 0, 1};
  EXPECT_EQ(ValuesOf(column.Filter(last)), (std::vector<std::string>{"k"}));
  const uint8_t all[] = {1, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(ValuesOf(column.Filter(all)), ValuesOf(column));
  const uint8_t none[] = {0, 0, 0, 0, 0, 0, 0};
  Column empty = column.Filter(none);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_TRUE(empty.Chars().empty());
}

TEST(ColumnTest, FilterAndTakeFixedWidth) {
  Column column(TypeId::kUInt64);
  for (uint64_t v = 10; v < 15; ++v) column.Append<uint64_t>(v);
  const uint8_t mask[] = {0, 1, 0, 1, 1};
  Column kept = column.Filter(mask);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept.Get<uint64_t>(0), 11u);
  EXPECT_EQ(kept.Get<uint64_t>(2), 14u);
  const uint32_t indices[] = {4, 0, 4};
  Column taken = column.Take(indices, 3);
  EXPECT_EQ(taken.Get<uint64_t>(0), 14u);
  EXPECT_EQ(taken.Get<uint64_t>(1), 10u);
  EXPECT_EQ(taken.Get<uint64_t>(2), 14u);
}

TEST(ColumnTest, AppendTakenAddsToWhatIsThere) {
  Column column = Strings({"x", "yy", "", "zzz"});
  Column grown = Strings({"head"});
  const uint32_t first[] = {3, 0};
  const uint32_t second[] = {2, 1, 1};
  grown.AppendTaken(column, first, 2);
  grown.AppendTaken(column, second, 3);
  grown.AppendTaken(column, second, 0);
  EXPECT_EQ(ValuesOf(grown), (std::vector<std::string>{"head", "zzz", "x", "", "yy", "yy"}));
  EXPECT_EQ(grown.Offsets(), (std::vector<uint64_t>{4, 7, 8, 8, 10, 12}));

  Column numbers(TypeId::kUInt32);
  for (uint32_t v = 0; v < 100; ++v) numbers.Append<uint32_t>(v * 3);
  Column appended(TypeId::kUInt32);
  appended.Append<uint32_t>(7);
  std::vector<uint32_t> rows;
  for (uint32_t batch = 0; batch < 50; ++batch) {
    const uint32_t pick[] = {batch, 99 - batch};
    appended.AppendTaken(numbers, pick, 2);
    rows.insert(rows.end(), {batch, 99 - batch});
  }
  ASSERT_EQ(appended.size(), 101u);
  EXPECT_EQ(appended.Get<uint32_t>(0), 7u);
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(appended.Get<uint32_t>(i + 1), rows[i] * 3);
}

TEST(ColumnTest, TakeStringsInAnyOrder) {
  Column column = Strings({"x", "yy", "", "zzz"});
  const uint32_t indices[] = {3, 2, 0, 3};
  EXPECT_EQ(ValuesOf(column.Take(indices, 4)), (std::vector<std::string>{"zzz", "", "x", "zzz"}));
}

// Every fixed width has its own Take / Filter loop: each must match a row-by-row AppendFrom.
TEST(ColumnTest, TakeAndFilterMatchAppendFromForEveryWidth) {
  for (TypeId type : {TypeId::kUInt8, TypeId::kInt16, TypeId::kDate, TypeId::kUInt32,
                      TypeId::kFloat32, TypeId::kInt64, TypeId::kFloat64}) {
    Column column(type);
    const size_t width = ValueSize(type);
    column.Resize(37);
    for (size_t i = 0; i < column.RawSize(); ++i) column.RawData()[i] = static_cast<char>(i * 7 + 3);
    std::vector<uint32_t> indices = {36, 0, 5, 5, 17, 1, 36};
    std::vector<uint8_t> mask(37);
    for (size_t i = 0; i < mask.size(); ++i) mask[i] = (i % 3 == 0) ? 2 : 0;
    Column want_take(type);
    for (uint32_t row : indices) want_take.AppendFrom(column, row);
    Column want_filter(type);
    for (size_t i = 0; i < mask.size(); ++i) {
      if (mask[i]) want_filter.AppendFrom(column, i);
    }
    Column taken = column.Take(indices.data(), indices.size());
    Column kept = column.Filter(mask.data());
    ASSERT_EQ(taken.size(), indices.size()) << TypeName(type);
    ASSERT_EQ(kept.size(), 13u) << TypeName(type);
    EXPECT_EQ(std::string(taken.RawData(), taken.RawSize()),
              std::string(want_take.RawData(), want_take.RawSize())) << TypeName(type);
    EXPECT_EQ(std::string(kept.RawData(), kept.RawSize()),
              std::string(want_filter.RawData(), want_filter.RawSize())) << TypeName(type);
    EXPECT_EQ(taken.RawSize(), indices.size() * width);
    EXPECT_EQ(column.Take(indices.data(), 0).size(), 0u);
  }
}

// Filter reads the mask eight rows at a time: whole dropped words, whole kept words (bytes of 1),
// mixed words and a tail must each match a row-by-row AppendFrom.
TEST(ColumnTest, FilterMatchesAppendFromOverMaskWords) {
  for (TypeId type : {TypeId::kUInt8, TypeId::kInt16, TypeId::kUInt32, TypeId::kUInt64}) {
    Column column(type);
    column.Resize(83);
    for (size_t i = 0; i < column.RawSize(); ++i) column.RawData()[i] = static_cast<char>(i * 5 + 1);
    std::vector<uint8_t> mask(83, 0);
    for (size_t i = 16; i < 40; ++i) mask[i] = 1;         // whole kept words
    for (size_t i = 40; i < 56; i += 3) mask[i] = 1;      // mixed words
    mask[57] = 7;                                         // a non-0/1 byte in an otherwise 0 word
    for (size_t i = 80; i < 83; ++i) mask[i] = 1;         // the tail
    Column want(type);
    for (size_t i = 0; i < mask.size(); ++i) {
      if (mask[i]) want.AppendFrom(column, i);
    }
    Column kept = column.Filter(mask.data());
    ASSERT_EQ(kept.size(), want.size()) << TypeName(type);
    EXPECT_EQ(std::string(kept.RawData(), kept.RawSize()),
              std::string(want.RawData(), want.RawSize())) << TypeName(type);
  }
}

// A mixed last word whose last rows are dropped: the branch-free copy writes those rows into the
// spare value past the kept ones (ASan checks the bound), and the result holds only kept rows.
TEST(ColumnTest, FilterOfAMixedLastWordDroppingItsLastRows) {
  for (TypeId type : {TypeId::kUInt8, TypeId::kInt16, TypeId::kUInt32, TypeId::kUInt64}) {
    for (size_t rows : {size_t{8}, size_t{16}, size_t{24}}) {
      Column column(type);
      column.Resize(rows);
      for (size_t i = 0; i < column.RawSize(); ++i) column.RawData()[i] = static_cast<char>(i + 1);
      std::vector<uint8_t> mask(rows, 0);
      mask[rows - 8] = 1;
      mask[rows - 6] = 1;
      Column want(type);
      want.AppendFrom(column, rows - 8);
      want.AppendFrom(column, rows - 6);
      Column kept = column.Filter(mask.data());
      ASSERT_EQ(kept.size(), 2u) << TypeName(type);
      EXPECT_EQ(kept.RawSize(), want.RawSize());
      EXPECT_EQ(std::string(kept.RawData(), kept.RawSize()),
                std::string(want.RawData(), want.RawSize())) << TypeName(type);
    }
  }
}

TEST(ColumnTest, TakeStringsSizesOffsetsAndChars) {
  Column column = Strings({"", "ab", "", "cde", "f"});
  const uint32_t indices[] = {0, 3, 2, 1, 4, 0};
  Column taken = column.Take(indices, 6);
  EXPECT_EQ(ValuesOf(taken), (std::vector<std::string>{"", "cde", "", "ab", "f", ""}));
  EXPECT_EQ(taken.Chars(), "cdeabf");
  EXPECT_EQ(taken.Offsets(), (std::vector<uint64_t>{0, 3, 3, 5, 6, 6}));
  EXPECT_EQ(column.Take(indices, 0).size(), 0u);
}

TEST(ColumnTest, ResizeZeroesRowsThatHeldValuesBefore) {
  // The buffer does not zero its growth (DefaultInitAllocator): Resize must still give zeros,
  // even where the capacity holds earlier values.
  Column column(TypeId::kInt64);
  for (int64_t i = 0; i < 1000; ++i) column.Append<int64_t>(-1 - i);
  column.Resize(10);
  column.Resize(1000);
  ASSERT_EQ(column.size(), 1000u);
  ASSERT_EQ(column.RawSize(), 8000u);
  EXPECT_EQ(column.Get<int64_t>(9), -10);
  for (size_t row = 10; row < 1000; ++row) ASSERT_EQ(column.Get<int64_t>(row), 0) << row;
}

TEST(ColumnTest, ResizeUninitializedKeepsValuesAndSizesTheBuffer) {
  Column column(TypeId::kUInt16);
  column.Append<uint16_t>(7);
  column.Append<uint16_t>(9);
  column.ResizeUninitialized(5000);
  ASSERT_EQ(column.size(), 5000u);
  ASSERT_EQ(column.RawSize(), 10000u);
  EXPECT_EQ(column.Get<uint16_t>(0), 7);
  EXPECT_EQ(column.Get<uint16_t>(1), 9);
  uint16_t* data = column.Data<uint16_t>();
  for (size_t row = 2; row < 5000; ++row) data[row] = static_cast<uint16_t>(row);
  Column copy = column.Slice(4990, 10);
  EXPECT_EQ(copy.Get<uint16_t>(0), 4990);
  column.ResizeUninitialized(3);
  EXPECT_EQ(column.size(), 3u);
  EXPECT_EQ(column.Get<uint16_t>(2), 2);
}

}  // namespace
}  // namespace granite::core
