// Tests of FillGaps beyond what tests/sql/select/with_fill.test checks against ClickHouse: the
// cap on added rows, the early stop at LIMIT + OFFSET rows (a fill towards a far TO stays cheap
// under a LIMIT), and calendar steps from a month's last day.
#include "coordinator/exec/with_fill.h"

#include <gtest/gtest.h>

#include <memory>

#include "core/error.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

core::Block Numbers(TypeId type, const std::vector<uint32_t>& values) {
  auto column = std::make_shared<core::Column>(type);
  for (uint32_t v : values) {
    if (type == TypeId::kDate) {
      column->Append<uint16_t>(static_cast<uint16_t>(v));
    } else {
      column->Append<uint32_t>(v);
    }
  }
  core::Block block;
  block.columns.push_back(column);
  return block;
}

FillOptions OneLevel(std::optional<FillCoordinate> to = std::nullopt) {
  FillOptions options;
  FillLevel level;
  level.fill = true;
  level.to = to;
  options.levels.push_back(level);
  return options;
}

TEST(WithFillTest, TooManyAddedRowsFailsInsteadOfGrowing) {
  FillOptions options = OneLevel();
  options.max_added = 5;
  absl::StatusOr<core::Block> out = FillGaps(Numbers(TypeId::kUInt32, {0, 100}), options);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(core::CodeOf(out.status()), core::ErrorCode::kTooManyRowsOrBytes) << out.status();
}

TEST(WithFillTest, StopsAtMaxRowsEvenTowardsAFarEnd) {
  FillOptions options = OneLevel(4e9);
  options.max_added = 100;  // the far TO would add billions: max_rows stops it first
  options.max_rows = 7;
  absl::StatusOr<core::Block> out = FillGaps(Numbers(TypeId::kUInt32, {0, 3}), options);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->rows(), 7u);
  for (uint32_t i = 0; i < 7; ++i) EXPECT_EQ(out->columns[0]->Get<uint32_t>(i), i);
}

TEST(WithFillTest, MonthStepsFromTheLastDayKeepTheCutDay) {
  // 2024-01-31 is day 19753; a month later is cut to 2024-02-29 (19782), then 2024-03-29 (19811).
  FillOptions options = OneLevel();
  options.levels[0].step = 0;
  options.levels[0].months = 1;
  absl::StatusOr<core::Block> out = FillGaps(Numbers(TypeId::kDate, {19753, 19820}), options);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->rows(), 4u);
  EXPECT_EQ(out->columns[0]->Get<uint16_t>(1), 19782);
  EXPECT_EQ(out->columns[0]->Get<uint16_t>(2), 19811);
  EXPECT_EQ(out->columns[0]->Get<uint16_t>(3), 19820);
}

TEST(WithFillTest, ValuesOutsideTheTypeAreNotAdded) {
  // UInt8 up to TO 400 by 100: 200 is the last value the type holds.
  auto column = std::make_shared<core::Column>(TypeId::kUInt8);
  column->Append<uint8_t>(0);
  core::Block block;
  block.columns.push_back(column);
  FillOptions options = OneLevel(400);
  options.levels[0].step = 100;
  absl::StatusOr<core::Block> out = FillGaps(block, options);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->rows(), 3u);
  EXPECT_EQ(out->columns[0]->Get<uint8_t>(2), 200);
}

}  // namespace
}  // namespace granite::coordinator
