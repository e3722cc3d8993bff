#include "core/functions/date_time64_arguments.h"

#include <cstring>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "core/absl_compat.h"
#include "core/functions/cast_column.h"
#include "core/functions/constant_column.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

// Runs the wrapped kernel on arguments cast to their DateTime form.
class CastArguments : public ScalarKernel {
 public:
  CastArguments(std::unique_ptr<ScalarKernel> kernel, std::vector<TypeId> casts)
      : kernel_(std::move(kernel)), casts_(std::move(casts)) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    std::vector<Operand> cast = args;
    for (size_t i = 0; i < cast.size() && i < casts_.size(); ++i) {
      if (casts_[i] == TypeId::kNothing) continue;
      const Column& in = *cast[i].column;
      ASSIGN_OR_RETURN(ColumnPtr out, CastColumn(cast[i].column, RemoveNullable(casts_[i])));
      if (in.nullable()) {
        // CastColumn converts the values; the NULLs stay where they were.
        auto with_nulls = std::make_shared<Column>(*out);
        with_nulls->MakeNullable();
        std::memcpy(with_nulls->MutableNullMap(), in.NullMap(), in.size());
        out = std::move(with_nulls);
      }
      cast[i].column = std::move(out);
    }
    return kernel_->Execute(cast, rows);
  }

 private:
  const std::unique_ptr<ScalarKernel> kernel_;
  const std::vector<TypeId> casts_;
};

}  // namespace

bool TakesDateTime64AsDateTime(std::string_view name, size_t index) {
  // Functions of one date-time (argument 0).
  static const auto* first = new absl::flat_hash_set<std::string_view>{
      "toYear", "toQuarter", "toMonth", "toDayOfMonth", "toDayOfWeek", "toDayOfYear", "toYYYYMM",
      "toYYYYMMDD", "toYYYYMMDDhhmmss", "toMonday", "toStartOfMonth", "toStartOfQuarter",
      "toStartOfYear", "toStartOfDay", "toHour", "toMinute", "toSecond", "toStartOfMinute",
      "toStartOfFiveMinutes", "toStartOfTenMinutes", "toStartOfFifteenMinutes", "toStartOfHour",
      "toStartOfWeek", "toStartOfISOYear", "toLastDayOfMonth", "toISOYear", "toISOWeek", "toWeek",
      "toYearWeek", "toRelativeYearNum", "toRelativeQuarterNum", "toRelativeMonthNum",
      "toRelativeWeekNum", "toRelativeDayNum", "toRelativeHourNum", "toRelativeMinuteNum",
      "toRelativeSecondNum", "toUnixTimestamp", "formatDateTime"};
  if (index == 0 && first->contains(name)) return true;
  // dateDiff(unit, a, b) and dateTrunc(unit, t).
  static const auto* later = new absl::flat_hash_set<std::string_view>{"dateDiff", "dateTrunc"};
  return index >= 1 && later->contains(name);
}

absl::StatusOr<bool> AdaptDateTime64Arguments(std::string_view name,
                                              std::vector<ArgumentInfo>* args,
                                              std::vector<TypeId>* casts) {
  bool any = false;
  for (size_t i = 0; i < args->size(); ++i) {
    ArgumentInfo& arg = (*args)[i];
    if (!IsDateTime64(arg.type) || !TakesDateTime64AsDateTime(name, i)) continue;
    // The DateTime keeps the DateTime64's zone.
    const TypeId seconds =
        WithNullable(WithTimeZone(TypeId::kDateTime, TimeZoneOf(arg.type)), IsNullable(arg.type));
    if (arg.constant && !arg.constant_is_null) {
      ASSIGN_OR_RETURN(ColumnPtr value, MakeConstantColumn(*arg.constant, RemoveNullable(arg.type)));
      ASSIGN_OR_RETURN(ColumnPtr converted, CastColumn(value, RemoveNullable(seconds)));
      arg.constant = ValueAt(*converted, 0);
    }
    arg.type = seconds;
    casts->resize(args->size(), TypeId::kNothing);
    (*casts)[i] = seconds;
    any = true;
  }
  return any;
}

std::unique_ptr<ScalarKernel> CastArgumentsKernel(std::unique_ptr<ScalarKernel> kernel,
                                                  std::vector<TypeId> casts) {
  return std::make_unique<CastArguments>(std::move(kernel), std::move(casts));
}

}  // namespace granite::core
