// ORDER BY ... WITH FILL: the rows ClickHouse adds to a sorted result where values of a filled
// key are missing, on a grid of FROM (or the first value) plus multiples of STEP, up to TO.
//
// Levels are the ORDER BY items up to the last WITH FILL one. A level without fill groups the
// rows: the filled levels after it restart in each group. Within a group a filled level walks a
// cursor from FROM (else the group's first value) in STEP increments: every cursor value before
// the next row's value becomes an added row, and a row equal to the cursor moves it on; after the
// group's last row the cursor goes on to TO when there is one (TO itself excluded). An added row
// of level i has the group's values at the levels before i, the cursor at level i, and at the
// filled levels after it FROM (walked to TO when both are set) or the type's default; every other
// column gets its default, or its INTERPOLATE value from the row before.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/block.h"

namespace granite::coordinator {

// A value of a filled column as a number: integers, Date (days) and DateTime (seconds) exactly;
// floats as they are.
using FillCoordinate = long double;

struct FillLevel {
  size_t column = 0;  // in the block
  bool fill = false;  // false: the rows group by this column
  bool descending = false;
  std::optional<FillCoordinate> from;
  std::optional<FillCoordinate> to;
  // The step in coordinate units (negative when descending), or with `months` != 0 a calendar
  // step of that many months (Date and DateTime columns; negative when descending).
  FillCoordinate step = 1;
  int32_t months = 0;
};

struct FillOptions {
  std::vector<FillLevel> levels;
  // Columns no level fills whose value in an added row comes from the row before it: the same
  // value, or with `compute` set the value `compute` gives for that column.
  std::vector<size_t> interpolated;
  // Given a one-row block (the row before, every column), returns one column per `interpolated`
  // column (same types). Unset: the values are copied.
  std::function<absl::StatusOr<std::vector<core::ColumnPtr>>(const core::Block&)> compute;
  uint64_t max_rows = 0;  // > 0: stop once this many rows are out (LIMIT + OFFSET)
  uint64_t max_added = 10'000'000;
};

// Whether columns of `type` can be filled: numbers, Date and DateTime (ClickHouse refuses
// decimals and strings).
bool FillableType(core::TypeId type);

// The coordinate of row `row` of `column`. REQUIRES: FillableType(column.type()).
FillCoordinate CoordinateOf(const core::Column& column, size_t row);

// The block with the added rows. REQUIRES: `sorted` is sorted by the levels; each level's column
// FillableType when filled. Errors: TOO_MANY_ROWS_OR_BYTES past options.max_added added rows;
// those of `compute`.
absl::StatusOr<core::Block> FillGaps(const core::Block& sorted, const FillOptions& options);

}  // namespace granite::coordinator
