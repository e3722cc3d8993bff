#include "coordinator/exec/with_fill.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "absl/time/civil_time.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using core::Column;
using core::ColumnPtr;
using core::TypeId;

constexpr int64_t kSecondsPerDay = 86400;

}  // namespace

FillCoordinate CoordinateOf(const Column& column, size_t row) {
  switch (core::BaseOf(column.type())) {
    case TypeId::kUInt8: return column.Get<uint8_t>(row);
    case TypeId::kUInt16: return column.Get<uint16_t>(row);
    case TypeId::kUInt32: return column.Get<uint32_t>(row);
    case TypeId::kUInt64: return column.Get<uint64_t>(row);
    case TypeId::kInt8: return column.Get<int8_t>(row);
    case TypeId::kInt16: return column.Get<int16_t>(row);
    case TypeId::kInt32: return column.Get<int32_t>(row);
    case TypeId::kInt64: return column.Get<int64_t>(row);
    case TypeId::kFloat32: return column.Get<float>(row);
    case TypeId::kFloat64: return column.Get<double>(row);
    case TypeId::kDate: return column.Get<uint16_t>(row);
    case TypeId::kDateTime: return column.Get<uint32_t>(row);
    default: return 0;
  }
}

namespace {

template <typename T>
bool InRange(FillCoordinate value) {
  return value >= static_cast<FillCoordinate>(std::numeric_limits<T>::lowest()) &&
         value <= static_cast<FillCoordinate>(std::numeric_limits<T>::max());
}

// Whether a column of `type` (FillableType) holds `value`.
bool Fits(TypeId type, FillCoordinate value) {
  switch (core::BaseOf(type)) {
    case TypeId::kUInt8: return InRange<uint8_t>(value);
    case TypeId::kUInt16:
    case TypeId::kDate: return InRange<uint16_t>(value);
    case TypeId::kUInt32:
    case TypeId::kDateTime: return InRange<uint32_t>(value);
    case TypeId::kUInt64: return InRange<uint64_t>(value);
    case TypeId::kInt8: return InRange<int8_t>(value);
    case TypeId::kInt16: return InRange<int16_t>(value);
    case TypeId::kInt32: return InRange<int32_t>(value);
    case TypeId::kInt64: return InRange<int64_t>(value);
    case TypeId::kFloat32: return InRange<float>(value);
    default: return true;
  }
}

// Appends `value` converted to an integer type T; false when it is out of T's range.
template <typename T>
bool AppendIntegral(FillCoordinate value, Column* column) {
  const FillCoordinate rounded = std::nearbyint(value);
  if (rounded < static_cast<FillCoordinate>(std::numeric_limits<T>::min()) ||
      rounded > static_cast<FillCoordinate>(std::numeric_limits<T>::max())) {
    return false;
  }
  column->Append<T>(static_cast<T>(rounded));
  return true;
}

// Appends `value` to `column` (FillableType); false when the type cannot hold it.
bool AppendCoordinate(FillCoordinate value, Column* column) {
  switch (core::BaseOf(column->type())) {
    case TypeId::kUInt8: return AppendIntegral<uint8_t>(value, column);
    case TypeId::kUInt16:
    case TypeId::kDate: return AppendIntegral<uint16_t>(value, column);
    case TypeId::kUInt32:
    case TypeId::kDateTime: return AppendIntegral<uint32_t>(value, column);
    case TypeId::kUInt64: return AppendIntegral<uint64_t>(value, column);
    case TypeId::kInt8: return AppendIntegral<int8_t>(value, column);
    case TypeId::kInt16: return AppendIntegral<int16_t>(value, column);
    case TypeId::kInt32: return AppendIntegral<int32_t>(value, column);
    case TypeId::kInt64: return AppendIntegral<int64_t>(value, column);
    case TypeId::kFloat32: column->Append<float>(static_cast<float>(value)); return true;
    case TypeId::kFloat64: column->Append<double>(static_cast<double>(value)); return true;
    default: return false;
  }
}

// T's default value: NULL for a Nullable column, else zero or the empty string.
void AppendDefault(Column* column) {
  if (column->nullable()) {
    column->AppendNull();
  } else if (core::IsString(column->type())) {
    column->AppendString("");
  } else {
    column->Resize(column->size() + 1);
  }
}

// `days` (since 1970-01-01) plus `months` calendar months, the day of month cut to the new
// month's length (Jan 31 + 1 month = Feb 28 or 29).
int64_t AddMonthsToDays(int64_t days, int32_t months) {
  const absl::CivilDay day = absl::CivilDay(1970, 1, 1) + days;
  const absl::CivilMonth month = absl::CivilMonth(day) + months;
  const int64_t length = (absl::CivilDay(month + 1) - absl::CivilDay(month));
  const absl::CivilDay moved(month.year(), month.month(),
                             std::min<int64_t>(day.day(), length));
  return moved - absl::CivilDay(1970, 1, 1);
}

class Filler {
 public:
  Filler(const core::Block& sorted, const FillOptions& options)
      : sorted_(sorted), options_(options) {
    for (const ColumnPtr& column : sorted.columns) {
      auto out = std::make_shared<Column>(column->logical_type());
      out->Reserve(column->size());
      out_.push_back(std::move(out));
    }
    level_of_.assign(sorted.columns.size(), -1);
    for (size_t i = 0; i < options.levels.size(); ++i) {
      level_of_[options.levels[i].column] = static_cast<int>(i);
    }
    interpolated_.assign(sorted.columns.size(), false);
    for (size_t c : options.interpolated) interpolated_[c] = true;
  }

  absl::StatusOr<core::Block> Run() {
    RETURN_IF_ERROR(Process(0, 0, sorted_.rows()));
    core::Block block;
    block.columns.assign(out_.begin(), out_.end());
    block.rows_without_columns = rows_;
    return block;
  }

 private:
  bool Done() const { return options_.max_rows > 0 && rows_ >= options_.max_rows; }

  // Whether `a` comes before `b` in level `level`'s order.
  bool Before(const FillLevel& level, FillCoordinate a, FillCoordinate b) const {
    return level.descending ? a > b : a < b;
  }

  FillCoordinate Next(const FillLevel& level, FillCoordinate value) const {
    if (level.months == 0) return value + level.step;
    const TypeId type = core::BaseOf(sorted_.columns[level.column]->type());
    if (type == TypeId::kDate) return AddMonthsToDays(static_cast<int64_t>(value), level.months);
    const int64_t seconds = static_cast<int64_t>(value);  // a DateTime: never negative
    const int64_t days = seconds / kSecondsPerDay;
    return AddMonthsToDays(days, level.months) * kSecondsPerDay + (seconds - days * kSecondsPerDay);
  }

  // Rows [begin, end) at level `i`: grouped or filled, then the next level within each run.
  absl::Status Process(size_t i, size_t begin, size_t end) {
    if (Done()) return absl::OkStatus();
    if (i == options_.levels.size()) {
      const size_t take = options_.max_rows > 0
                              ? std::min<uint64_t>(end - begin, options_.max_rows - rows_)
                              : end - begin;
      for (size_t c = 0; c < out_.size(); ++c) {
        out_[c]->AppendRange(*sorted_.columns[c], begin, take);
      }
      rows_ += take;
      return absl::OkStatus();
    }
    const FillLevel& level = options_.levels[i];
    const Column& column = *sorted_.columns[level.column];
    std::optional<FillCoordinate> cursor = level.from;
    if (!cursor && begin < end) cursor = CoordinateOf(column, begin);
    size_t run = begin;
    while (run < end && !Done()) {
      size_t run_end = run + 1;
      while (run_end < end && SameValue(column, run, run_end)) ++run_end;
      if (level.fill) {
        const FillCoordinate value = CoordinateOf(column, run);
        while (cursor && Before(level, *cursor, value) && !Done()) {
          if (level.to && !Before(level, *cursor, *level.to)) break;
          if (!Fits(column.type(), *cursor)) break;
          RETURN_IF_ERROR(AddAt(i, *cursor, run));
          cursor = Next(level, *cursor);
        }
        RETURN_IF_ERROR(Process(i + 1, run, run_end));
        if (cursor && *cursor == value) cursor = Next(level, *cursor);
      } else {
        RETURN_IF_ERROR(Process(i + 1, run, run_end));
      }
      run = run_end;
    }
    if (level.fill && level.to && cursor) {
      // A group's prefix comes from any of its rows; with no rows there is no prefix.
      const std::optional<size_t> prefix =
          begin < end ? std::optional<size_t>(begin) : std::nullopt;
      while (Before(level, *cursor, *level.to) && Fits(column.type(), *cursor) && !Done()) {
        RETURN_IF_ERROR(AddAt(i, *cursor, prefix));
        cursor = Next(level, *cursor);
      }
    }
    return absl::OkStatus();
  }

  static bool SameValue(const Column& column, size_t a, size_t b) {
    if (column.IsNullAt(a) || column.IsNullAt(b)) return column.IsNullAt(a) == column.IsNullAt(b);
    if (core::IsString(column.type())) return column.StringAt(a) == column.StringAt(b);
    const size_t width = core::ValueSize(column.type());
    return std::memcmp(column.RawData() + a * width, column.RawData() + b * width, width) == 0;
  }

  // Adds the rows of value `value` at level `i`: the levels before i from row `prefix` (of the
  // sorted block), then the filled levels after i at their FROM.
  absl::Status AddAt(size_t i, FillCoordinate value, std::optional<size_t> prefix) {
    fixed_.assign(options_.levels.size(), std::nullopt);
    origin_ = i;
    fixed_[i] = value;
    return AddBelow(i, prefix);
  }

  absl::Status AddBelow(size_t i, std::optional<size_t> prefix) {
    size_t j = i + 1;
    while (j < options_.levels.size() && !options_.levels[j].fill) ++j;
    if (j == options_.levels.size() || !options_.levels[j].from) return AddRow(prefix);
    const FillLevel& level = options_.levels[j];
    FillCoordinate cursor = *level.from;
    const TypeId type = sorted_.columns[level.column]->type();
    do {
      if (!Fits(type, cursor)) break;
      fixed_[j] = cursor;
      RETURN_IF_ERROR(AddBelow(j, prefix));
      cursor = Next(level, cursor);
    } while (level.to && Before(level, cursor, *level.to) && !Done());
    fixed_[j].reset();
    return absl::OkStatus();
  }

  // One added row: the fixed values, the levels before the one it was added at from the prefix
  // row, then defaults or interpolations.
  absl::Status AddRow(std::optional<size_t> prefix) {
    if (Done()) return absl::OkStatus();
    if (++added_ > options_.max_added) {
      return core::Error(core::ErrorCode::kTooManyRowsOrBytes,
                         "WITH FILL would add more than " + std::to_string(options_.max_added) +
                             " rows");
    }
    std::vector<ColumnPtr> computed;
    const bool has_previous = rows_ > 0;
    if (has_previous && options_.compute && !options_.interpolated.empty()) {
      core::Block previous;
      for (const std::shared_ptr<Column>& column : out_) {
        previous.columns.push_back(
            std::make_shared<Column>(column->Slice(column->size() - 1, 1)));
      }
      ASSIGN_OR_RETURN(computed, options_.compute(previous));
    }
    size_t next_computed = 0;
    for (size_t c = 0; c < out_.size(); ++c) {
      Column& column = *out_[c];
      const int level = level_of_[c];
      if (level >= 0 && fixed_[level]) {
        if (!AppendCoordinate(*fixed_[level], &column)) AppendDefault(&column);
      } else if (level >= 0 && static_cast<size_t>(level) < origin_ && prefix) {
        column.AppendFrom(*sorted_.columns[c], *prefix);
      } else if (interpolated_[c] && has_previous) {
        if (!computed.empty()) {
          column.AppendFrom(*computed[next_computed], 0);
        } else {
          const Column previous = column.Slice(column.size() - 1, 1);  // not from itself
          column.AppendFrom(previous, 0);
        }
      } else {
        AppendDefault(&column);
      }
      if (interpolated_[c]) ++next_computed;
    }
    ++rows_;
    return absl::OkStatus();
  }

  const core::Block& sorted_;
  const FillOptions& options_;
  std::vector<std::shared_ptr<Column>> out_;
  uint64_t rows_ = 0;  // in out_
  std::vector<int> level_of_;        // per column: its level, or -1
  std::vector<bool> interpolated_;   // per column
  std::vector<std::optional<FillCoordinate>> fixed_;  // per level, for the row being added
  size_t origin_ = 0;  // the level the row being added was added at
  uint64_t added_ = 0;
};

}  // namespace

bool FillableType(TypeId type) { return core::IsNumeric(core::BaseOf(type)); }

absl::StatusOr<core::Block> FillGaps(const core::Block& sorted, const FillOptions& options) {
  return Filler(sorted, options).Run();
}

}  // namespace granite::coordinator
