// Part::ReadColumn of one granule through the uncompressed cache: the cache keeps the granule
// decoded and a hit returns that column (no copy), equal to a cold read, for fixed-width, String
// and Nullable columns and both String length layouts; Sparse columns and multi-granule reads copy
// (also out of decoded granules), ReadStringSizes reads and keeps decoded granules, and a held
// column outlives the cache evicting it.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/metrics/events.h"
#include "storage/part.h"
#include "storage/part_writer.h"
#include "storage/temp_directory.h"
#include "storage/test_column_expectations.h"

namespace granite::storage {
namespace {

using core::TypeId;

constexpr size_t kRows = 1000;
constexpr size_t kGranuleRows = 64;

class PartDecodedTest : public ::testing::TestWithParam<StringSizes> {
 protected:
  // Columns: Int16, String (long values), Nullable(Int32), Nullable(String) (short values), a
  // mostly-zero UInt64 (sparse).
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    const TypeId nullable_int = core::MakeNullable(TypeId::kInt32);
    const TypeId nullable_string = core::MakeNullable(TypeId::kString);
    auto schema = std::make_shared<const TableSchema>(
        TableSchema{.name = "t",
                    .columns = {{"n", TypeId::kInt16},
                                {"s", TypeId::kString},
                                {"nn", nullable_int},
                                {"ns", nullable_string},
                                {"z", TypeId::kUInt64}}});
    std::vector<core::MutableColumnPtr> columns = {
        std::make_shared<core::Column>(TypeId::kInt16),
        std::make_shared<core::Column>(TypeId::kString),
        std::make_shared<core::Column>(nullable_int),
        std::make_shared<core::Column>(nullable_string),
        std::make_shared<core::Column>(TypeId::kUInt64)};
    for (size_t i = 0; i < kRows; ++i) {
      columns[0]->Append(static_cast<int16_t>(i * 7 - 3000));
      columns[1]->AppendString(i % 5 == 0 ? ""
                                          : "a value long enough to stay decoded " +
                                                std::to_string(i * 13));
      if (i % 4 == 1) {
        columns[2]->AppendNull();
        columns[3]->AppendNull();
      } else {
        columns[2]->Append(static_cast<int32_t>(i * 31));
        columns[3]->AppendString(std::string(i % 9, 'a' + i % 26));
      }
      columns[4]->Append(static_cast<uint64_t>(i % 100 == 7 ? i : 0));
    }
    for (const core::MutableColumnPtr& column : columns) expected_.columns.push_back(column);
    PartWriter::Options options;
    options.granule_rows = kGranuleRows;
    options.string_sizes = GetParam();
    PartWriter writer(Posix(), schema, dir_.path(), options);
    absl::StatusOr<std::shared_ptr<const Part>> part =
        writer.Write(expected_, PartDescription(), PartName{1, 1, 0}, kInsertTmpPrefix);
    ASSERT_TRUE(part.ok()) << part.status();
    part_ = *part;
  }

  // Expects `column` to hold granule `g` of column `c` as written.
  void ExpectGranule(const core::Column& column, size_t c, size_t g) {
    const size_t first = part_->granule_first_row(g);
    core::Column expected =
        expected_.columns[c]->Slice(first, part_->granule_first_row(g + 1) - first);
    ExpectSameColumn(column, expected, c);
  }

  // Whether one-granule reads of column `c` keep the granule decoded in the cache: not the
  // sparse column, nor the short strings of `ns` (a few bytes each: Part::kMinDecodedStringBytes).
  bool KeptDecoded(size_t c) const {
    return part_->column_serialization(c) != ColumnSerialization::kSparse && c != 3;
  }

  TempDirectory dir_;
  core::Block expected_;
  std::shared_ptr<const Part> part_;
};

TEST_P(PartDecodedTest, OneGranuleHitReturnsTheCachedColumnEqualToAColdRead) {
  ASSERT_EQ(part_->column_serialization(4), ColumnSerialization::kSparse);  // the copied kind
  UncompressedCache cache(1 << 20);
  for (size_t c = 0; c < expected_.columns.size(); ++c) {
    for (size_t g = 0; g < part_->granule_count(); ++g) {
      absl::StatusOr<core::ColumnPtr> cold = part_->ReadColumn(c, g, g + 1);
      absl::StatusOr<core::ColumnPtr> miss = part_->ReadColumn(c, g, g + 1, nullptr, &cache);
      absl::StatusOr<core::ColumnPtr> hit = part_->ReadColumn(c, g, g + 1, nullptr, &cache);
      ASSERT_TRUE(cold.ok() && miss.ok() && hit.ok())
          << cold.status() << miss.status() << hit.status();
      // A hit hands out the column the miss decoded and inserted: no copy.
      EXPECT_EQ(hit->get() == miss->get(), KeptDecoded(c)) << c;
      if (KeptDecoded(c)) EXPECT_GE(hit->use_count(), 3);  // the cache holds it too
      ExpectGranule(**cold, c, g);
      ExpectGranule(**miss, c, g);
      ExpectGranule(**hit, c, g);
    }
  }
}

TEST_P(PartDecodedTest, MultiGranuleReadsAndSizesCopyOutOfDecodedGranules) {
  UncompressedCache cache(1 << 20);
  // Granules 2, 3 and 9 decoded; the run reads 0..15 mixing decoded hits and raw misses.
  for (size_t c = 0; c < expected_.columns.size(); ++c) {
    for (size_t g : {2, 3, 9}) ASSERT_TRUE(part_->ReadColumn(c, g, g + 1, nullptr, &cache).ok());
  }
  for (size_t c = 0; c < expected_.columns.size(); ++c) {
    absl::StatusOr<core::ColumnPtr> all =
        part_->ReadColumn(c, 0, part_->granule_count(), nullptr, &cache);
    ASSERT_TRUE(all.ok()) << all.status();
    ExpectSameColumn(**all, *expected_.columns[c], c);
  }
  absl::StatusOr<core::ColumnPtr> sizes =
      part_->ReadStringSizes(1, 0, part_->granule_count(), nullptr, &cache);
  ASSERT_TRUE(sizes.ok()) << sizes.status();
  for (size_t r = 0; r < kRows; ++r) {
    ASSERT_EQ((*sizes)->Get<uint64_t>(r), expected_.columns[1]->StringAt(r).size()) << r;
  }
  // The multi-granule reads inserted the other granules raw: a one-granule read of one copies
  // it out, as before.
  absl::StatusOr<core::ColumnPtr> raw_hit = part_->ReadColumn(1, 5, 6, nullptr, &cache);
  absl::StatusOr<core::ColumnPtr> raw_again = part_->ReadColumn(1, 5, 6, nullptr, &cache);
  ASSERT_TRUE(raw_hit.ok() && raw_again.ok());
  EXPECT_NE(raw_hit->get(), raw_again->get());
  ExpectGranule(**raw_hit, 1, 5);
}

TEST_P(PartDecodedTest, StringSizesKeepAWholeDecodedGranuleForTheNextRead) {
  UncompressedCache cache(1 << 20);
  absl::StatusOr<core::ColumnPtr> sizes = part_->ReadStringSizes(1, 4, 5, nullptr, &cache);
  ASSERT_TRUE(sizes.ok()) << sizes.status();
  const size_t first = part_->granule_first_row(4);
  for (size_t r = 0; r < (*sizes)->size(); ++r) {
    ASSERT_EQ((*sizes)->Get<uint64_t>(r), expected_.columns[1]->StringAt(first + r).size());
  }
  absl::StatusOr<core::ColumnPtr> a = part_->ReadColumn(1, 4, 5, nullptr, &cache);
  absl::StatusOr<core::ColumnPtr> b = part_->ReadColumn(1, 4, 5, nullptr, &cache);
  ASSERT_TRUE(a.ok() && b.ok());
  // LZ4 parts decode only the lengths and insert nothing; other codecs keep the granule decoded.
  EXPECT_EQ(a->get() == b->get(), !part_->column_codec(1).is_lz4_block());
  ExpectGranule(**a, 1, 4);
  absl::StatusOr<core::ColumnPtr> again = part_->ReadStringSizes(1, 4, 5, nullptr, &cache);
  ASSERT_TRUE(again.ok());
  for (size_t r = 0; r < (*again)->size(); ++r) {
    ASSERT_EQ((*again)->Get<uint64_t>(r), (*sizes)->Get<uint64_t>(r)) << r;
  }
}

TEST_P(PartDecodedTest, ReadsThatDoNotInsertCopyAndLookUpOnce) {
  UncompressedCache cache(1 << 20);
  uint64_t misses = core::EventTotal(core::Event::kUncompressedCacheMisses);
  absl::StatusOr<core::ColumnPtr> read =
      part_->ReadColumn(1, 3, 4, nullptr, &cache, /*insert=*/false);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->use_count(), 1);
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(core::EventTotal(core::Event::kUncompressedCacheMisses) - misses, 1u);
  ExpectGranule(**read, 1, 3);
}

TEST_P(PartDecodedTest, ColumnOutlivesTheCacheEvictingItsBlock) {
  UncompressedCache cache(1 << 20);
  std::vector<core::ColumnPtr> held;
  for (size_t c = 0; c < expected_.columns.size(); ++c) {
    absl::StatusOr<core::ColumnPtr> read = part_->ReadColumn(c, 7, 8, nullptr, &cache);
    ASSERT_TRUE(read.ok());
    held.push_back(*read);
  }
  cache.SetCapacity(0);  // evicts every block
  ASSERT_EQ(cache.entries(), 0u);
  for (size_t c = 0; c < held.size(); ++c) {
    EXPECT_EQ(held[c].use_count(), 1);  // the reader's alone now: it may change it
    ExpectGranule(*held[c], c, 7);
  }
}

INSTANTIATE_TEST_SUITE_P(StringSizes, PartDecodedTest,
                         ::testing::Values(StringSizes::kVarint, StringSizes::kU32));

}  // namespace
}  // namespace granite::storage
