// Columns read from a part carry the magnitude bound of their granules' min / max
// (core/magnitude_bits.h, storage/part.cc): one granule or several, cold, decoded into the cache
// and hit there, for decimals, signed and small unsigned integers and Nullable granules without
// NULLs; never for a granule holding a NULL (it keeps no bounds), a UInt64 column or a String.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/decimal.h"
#include "core/magnitude_bits.h"
#include "storage/part.h"
#include "storage/part_writer.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::TypeId;

constexpr size_t kRows = 200;
constexpr size_t kGranuleRows = 64;

TEST(PartMagnitudeBitsTest, ReadsCarryTheirGranulesBound) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  const TypeId decimal = core::MakeDecimal(15, 2);
  const TypeId nullable = core::MakeNullable(core::MakeDecimal(18, 0));
  auto schema = std::make_shared<const TableSchema>(
      TableSchema{.name = "t",
                  .columns = {{"d", decimal},
                              {"i", TypeId::kInt32},
                              {"u", TypeId::kUInt64},
                              {"n", nullable},
                              {"s", TypeId::kString}}});
  std::vector<core::MutableColumnPtr> columns = {
      std::make_shared<core::Column>(decimal), std::make_shared<core::Column>(TypeId::kInt32),
      std::make_shared<core::Column>(TypeId::kUInt64), std::make_shared<core::Column>(nullable),
      std::make_shared<core::Column>(TypeId::kString)};
  for (size_t i = 0; i < kRows; ++i) {
    // Granule g's largest magnitude grows with g; the values are negative there.
    columns[0]->Append<int64_t>(-static_cast<int64_t>(i) << (i / kGranuleRows * 8));
    columns[1]->Append<int32_t>(i == 70 ? -2147483647 - 1 : static_cast<int32_t>(i));
    columns[2]->Append<uint64_t>(i);
    if (i == 150) {
      columns[3]->AppendNull();  // granule 2 keeps no bounds
    } else {
      columns[3]->Append<int64_t>(static_cast<int64_t>(i) * 1000);
    }
    columns[4]->AppendString("v" + std::to_string(i));
  }
  core::Block block;
  for (const core::MutableColumnPtr& column : columns) block.columns.push_back(column);
  PartWriter::Options options;
  options.granule_rows = kGranuleRows;
  PartWriter writer(Posix(), schema, dir.path(), options);
  absl::StatusOr<std::shared_ptr<const Part>> written =
      writer.Write(block, PartDescription(), PartName{1, 1, 0}, kInsertTmpPrefix);
  ASSERT_TRUE(written.ok()) << written.status();
  const Part& part = **written;
  ASSERT_EQ(part.granule_count(), 4u);

  // The bits of the largest magnitude among the written rows of granules [begin, end).
  auto scanned = [&](size_t c, size_t begin, size_t end) {
    const size_t first = part.granule_first_row(begin);
    core::ColumnPtr rows = std::make_shared<core::Column>(
        columns[c]->Slice(first, part.granule_first_row(end) - first));
    return c == 1 ? core::MagnitudeBitsOf<int32_t>(rows) : core::MagnitudeBitsOf<int64_t>(rows);
  };
  UncompressedCache cache(1 << 20);
  for (size_t g = 0; g < part.granule_count(); ++g) {
    for (size_t c = 0; c < columns.size(); ++c) {
      absl::StatusOr<core::ColumnPtr> cold = part.ReadColumn(c, g, g + 1);
      absl::StatusOr<core::ColumnPtr> miss = part.ReadColumn(c, g, g + 1, nullptr, &cache);
      absl::StatusOr<core::ColumnPtr> hit = part.ReadColumn(c, g, g + 1, nullptr, &cache);
      ASSERT_TRUE(cold.ok() && miss.ok() && hit.ok());
      const bool bounded = c <= 1 || (c == 3 && g != 2);
      const int expected = bounded ? scanned(c, g, g + 1) : -1;
      EXPECT_EQ(core::KnownMagnitudeBits(*cold), expected) << c << " " << g;
      EXPECT_EQ(core::KnownMagnitudeBits(*miss), expected) << c << " " << g;
      EXPECT_EQ(core::KnownMagnitudeBits(*hit), expected) << c << " " << g;
    }
  }
  // Several granules: the largest of their bounds; none when one granule has none.
  for (size_t c : {0, 1}) {
    absl::StatusOr<core::ColumnPtr> all = part.ReadColumn(c, 0, part.granule_count());
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(core::KnownMagnitudeBits(*all), scanned(c, 0, part.granule_count())) << c;
  }
  EXPECT_EQ(core::KnownMagnitudeBits(*part.ReadColumn(1, 1, 2)), 32);  // INT32_MIN
  EXPECT_EQ(core::KnownMagnitudeBits(*part.ReadColumn(3, 0, 2)), scanned(3, 0, 2));
  EXPECT_EQ(core::KnownMagnitudeBits(*part.ReadColumn(3, 1, 3)), -1);
}

}  // namespace
}  // namespace granite::storage
