#include "core/functions/time_zone_arguments.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "core/absl_compat.h"
#include "core/date_time.h"
#include "core/functions/function_errors.h"
#include "core/status_macros.h"
#include "core/time_zone.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

// A calendar function: where its zone argument may stand and which arguments are date-times.
struct CalendarFunction {
  size_t first_zone_index;  // the zone is the last argument, at this index or later
  size_t first_time;        // the date-time arguments: [first_time, last_time]
  size_t last_time;
};

const absl::flat_hash_map<std::string_view, CalendarFunction>& CalendarFunctions() {
  static const auto* functions = [] {
    auto* map = new absl::flat_hash_map<std::string_view, CalendarFunction>();
    for (std::string_view name :
         {"toYear", "toQuarter", "toMonth", "toDayOfMonth", "toDayOfWeek", "toDayOfYear",
          "toYYYYMM", "toYYYYMMDD", "toYYYYMMDDhhmmss", "toMonday", "toStartOfMonth",
          "toStartOfQuarter", "toStartOfYear", "toStartOfDay", "toHour", "toMinute", "toSecond",
          "toStartOfMinute", "toStartOfFiveMinutes", "toStartOfTenMinutes",
          "toStartOfFifteenMinutes", "toStartOfHour", "toStartOfISOYear", "toLastDayOfMonth",
          "toISOYear", "toISOWeek", "toWeek", "toYearWeek", "toStartOfWeek", "toRelativeYearNum",
          "toRelativeQuarterNum", "toRelativeMonthNum", "toRelativeWeekNum", "toRelativeDayNum",
          "toRelativeHourNum", "toRelativeMinuteNum", "toRelativeSecondNum", "timeSlot"}) {
      map->emplace(name, CalendarFunction{1, 0, 0});
    }
    map->emplace("formatDateTime", CalendarFunction{2, 0, 0});
    map->emplace("dateTrunc", CalendarFunction{2, 1, 1});
    map->emplace("dateDiff", CalendarFunction{3, 1, 2});
    return map;
  }();
  return *functions;
}

// The aliases a calendar function is also called by (YEAR(t, 'tz'), DATE_TRUNC, ...).
std::string_view CalendarName(std::string_view name) {
  static const auto* aliases = new absl::flat_hash_map<std::string, std::string_view>{
      {"year", "toYear"},           {"quarter", "toQuarter"},      {"month", "toMonth"},
      {"day", "toDayOfMonth"},      {"dayofmonth", "toDayOfMonth"}, {"dayofweek", "toDayOfWeek"},
      {"dayofyear", "toDayOfYear"}, {"hour", "toHour"},            {"minute", "toMinute"},
      {"second", "toSecond"},       {"date_trunc", "dateTrunc"},   {"datetrunc", "dateTrunc"},
      {"date_diff", "dateDiff"},    {"datediff", "dateDiff"},      {"timestampdiff", "dateDiff"},
      {"timestamp_diff", "dateDiff"}};
  if (CalendarFunctions().contains(name)) return name;
  auto it = aliases->find(absl::AsciiStrToLower(ToAbsl(name)));
  return it == aliases->end() ? name : it->second;
}

// Functions whose DateTime result is not their argument's instant in its zone: conversions name
// their result type themselves.
bool KeepsOwnResultZone(std::string_view canonical) {
  return canonical == "CAST" || absl::StartsWith(ToAbsl(canonical), "to") ||
         absl::StartsWith(ToAbsl(canonical), "accurateCast") ||
         absl::StartsWith(ToAbsl(canonical), "reinterpret");
}

// dateDiff counts seconds, minutes and hours as elapsed time, as ClickHouse's toRelative*Num do in
// zones whose offsets are whole hours (every one but a few, Asia/Kolkata among them); days and
// longer units count local calendar boundaries.
bool CountsElapsedTime(std::string_view canonical, const std::vector<ArgumentInfo>& args,
                       const TimeZone& zone) {
  if (canonical != "dateDiff" || args.empty() || !args[0].constant) return false;
  std::string unit = absl::AsciiStrToLower(ToAbsl(ValueToText(*args[0].constant)));
  if (unit.size() > 2 && unit.back() == 's') unit.pop_back();  // "hours"
  if (unit == "second" || unit == "ss" || unit == "s" || unit == "minute" || unit == "mi" ||
      unit == "n") {
    return true;
  }
  constexpr int64_t kYear2000 = 946684800;
  return (unit == "hour" || unit == "hh" || unit == "h") && zone.OffsetAt(kYear2000) % 3600 == 0;
}

int64_t ClampDateTime(int64_t seconds) { return std::clamp<int64_t>(seconds, 0, kMaxDateTime); }

// Returns `in` (a DateTime column, maybe Nullable) as plain DateTime local wall-clock seconds,
// clamped to the DateTime range as ClickHouse's date functions clamp.
ColumnPtr ToLocalColumn(const Column& in, const TimeZone& zone) {
  auto out = std::make_shared<Column>(WithNullable(TypeId::kDateTime, in.nullable()));
  out->Resize(in.size());
  const uint32_t* src = in.Data<uint32_t>();
  uint32_t* dst = out->Data<uint32_t>();
  for (size_t i = 0; i < in.size(); ++i) {
    dst[i] = static_cast<uint32_t>(ClampDateTime(zone.ToLocal(src[i])));
  }
  if (in.nullable()) std::memcpy(out->MutableNullMap(), in.NullMap(), in.size());
  return out;
}

// Runs a call in its zone (see the header).
class ZonedKernel : public ScalarKernel {
 public:
  ZonedKernel(std::unique_ptr<ScalarKernel> kernel, TimeZoneCall call, TypeId inner_result)
      : kernel_(std::move(kernel)),
        call_(std::move(call)),
        zone_(TimeZone::Get(call_.zone)),
        from_local_(call_.zone != 0 && IsDateTime(inner_result)) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    std::vector<Operand> local = args;
    for (size_t i = 0; i < local.size() && i < call_.to_local.size(); ++i) {
      if (call_.to_local[i] != 0) {
        local[i].column = ToLocalColumn(*args[i].column, TimeZone::Get(call_.to_local[i]));
      }
    }
    ASSIGN_OR_RETURN(ColumnPtr out, kernel_->Execute(local, rows));
    if (!from_local_ && !call_.stamp) return out;
    if (!IsDateTime(out->type()) && !IsDateTime64(out->type())) return out;
    auto result = std::make_shared<Column>(*out);
    if (from_local_) FromLocal(args, result.get());
    if (call_.stamp && TimeZoneOf(result->type()) == kNoTimeZone) {
      result->SetTimeZone(call_.result_zone);
    }
    return ColumnPtr(std::move(result));
  }

 private:
  // Turns local wall-clock results back into instants: a truncation of an argument's instant
  // keeps that instant's offset where it holds (TimeZone::TruncatedToUtc).
  void FromLocal(const std::vector<Operand>& args, Column* result) const {
    uint32_t* values = result->Data<uint32_t>();
    const Operand* in = call_.truncated_argument >= 0 &&
                                static_cast<size_t>(call_.truncated_argument) < args.size()
                            ? &args[call_.truncated_argument]
                            : nullptr;
    for (size_t i = 0; i < result->size(); ++i) {
      const int64_t local = values[i];
      const int64_t utc =
          in != nullptr
              ? zone_.TruncatedToUtc(in->column->Get<uint32_t>(in->is_constant ? 0 : i), local)
              : zone_.ToUtc(local);
      values[i] = static_cast<uint32_t>(ClampDateTime(utc));
    }
  }

  const std::unique_ptr<ScalarKernel> kernel_;
  const TimeZoneCall call_;
  const TimeZone& zone_;
  const bool from_local_;
};

}  // namespace

absl::StatusOr<TimeZoneCall> StripZoneArgument(std::string_view name,
                                               std::vector<ArgumentInfo>* args) {
  TimeZoneCall call;
  const auto& functions = CalendarFunctions();
  auto it = functions.find(CalendarName(name));
  if (it == functions.end()) return call;
  call.calendar = true;
  const CalendarFunction& f = it->second;
  const size_t last = args->size() - 1;
  if (args->size() <= f.first_zone_index || !IsString((*args)[last].type)) return call;
  const ArgumentInfo& zone = (*args)[last];
  if (!zone.constant) return ArgumentMustBeConstant(name, last);
  ASSIGN_OR_RETURN(call.explicit_zone, TimeZoneId(ValueToText(*zone.constant)));
  args->pop_back();
  return call;
}

void AdaptTimeZones(std::string_view canonical, std::vector<ArgumentInfo>* args,
                    TimeZoneCall* call) {
  if (!call->calendar) {
    for (const ArgumentInfo& arg : *args) {
      if (TimeZoneOf(arg.type) == kNoTimeZone || IsArray(arg.type)) continue;
      call->result_zone = TimeZoneOf(arg.type);
      call->stamp = !KeepsOwnResultZone(canonical);
      break;
    }
    return;
  }
  auto found = CalendarFunctions().find(canonical);
  if (found == CalendarFunctions().end()) return;
  const CalendarFunction& f = found->second;
  uint32_t zone = call->explicit_zone;
  for (size_t i = f.first_time; i <= f.last_time && i < args->size() && zone == 0; ++i) {
    if (IsDateTime((*args)[i].type)) zone = TimeZoneOf((*args)[i].type);
  }
  call->result_zone = zone;
  call->stamp = zone != kNoTimeZone;
  const TimeZone& tz = TimeZone::Get(zone);
  if (zone != kNoTimeZone && !tz.IsUtc() && !CountsElapsedTime(canonical, *args, tz)) {
    call->zone = zone;
  }
  // dateDiff without a zone argument reads each date-time in its own zone, as ClickHouse
  // (dateDiff('day', a UTC, b Asia/Tokyo) counts a's UTC day to b's Tokyo day).
  const bool own_zones = canonical == "dateDiff" && call->explicit_zone == kNoTimeZone;
  call->to_local.assign(args->size(), 0);
  for (size_t i = f.first_time; i <= f.last_time && i < args->size(); ++i) {
    ArgumentInfo& arg = (*args)[i];
    if (!IsDateTime(arg.type)) continue;
    uint32_t local_zone = call->zone;
    if (own_zones) {
      local_zone = TimeZoneOf(arg.type);
      const TimeZone& own = TimeZone::Get(local_zone);
      if (own.IsUtc() || CountsElapsedTime(canonical, *args, own)) local_zone = 0;
    }
    arg.type = RemoveTimeZone(arg.type);
    if (local_zone == 0) continue;
    call->to_local[i] = local_zone;
    if (call->truncated_argument < 0) call->truncated_argument = static_cast<int>(i);
    if (arg.constant && !arg.constant_is_null) {
      if (const auto* seconds = std::get_if<uint64_t>(&*arg.constant)) {
        const TimeZone& zone = TimeZone::Get(local_zone);
        arg.constant = Value(static_cast<uint64_t>(ClampDateTime(zone.ToLocal(*seconds))));
      }
    }
  }
}

int ImplicitZoneArgument(std::string_view name, const std::vector<ArgumentInfo>& args) {
  const auto zoneless = [](TypeId type) {
    return (IsDateTime(type) || IsDateTime64(type) || RemoveNullable(type) == TypeId::kDate) &&
           !IsArray(type) && TimeZoneOf(type) == kNoTimeZone;
  };
  const int n = static_cast<int>(args.size());
  auto it = CalendarFunctions().find(CalendarName(name));
  if (it != CalendarFunctions().end()) {
    const CalendarFunction& f = it->second;
    if (n < static_cast<int>(f.first_time) + 1) return -1;
    if (n > static_cast<int>(f.first_zone_index) && IsString(args[n - 1].type)) return -1;
    if (static_cast<int>(f.first_zone_index) > n) return -1;
    for (size_t i = f.first_time; i <= f.last_time && i < args.size(); ++i) {
      if (!zoneless(args[i].type)) return -1;
    }
    return n;
  }
  if (n == 0) return -1;
  const TypeId first = args[0].type;
  if (name == "toString" || name == "toDate") {
    return n == 1 && zoneless(first) && RemoveNullable(first) != TypeId::kDate ? 1 : -1;
  }
  if (name == "toDateTime" || name == "toUnixTimestamp" || name == "parseDateTimeBestEffort" ||
      name == "parseDateTimeBestEffortOrZero") {
    return n == 1 && IsString(first) ? 1 : -1;
  }
  if (name == "toDateTime64") return n == 2 && IsString(first) ? 2 : -1;
  return -1;
}

TypeId ZonedResult(const TimeZoneCall& call, TypeId result) {
  if (!call.stamp || (!IsDateTime(result) && !IsDateTime64(result))) return result;
  if (TimeZoneOf(result) != kNoTimeZone) return result;
  return WithTimeZone(result, call.result_zone);
}

std::unique_ptr<ScalarKernel> TimeZoneKernel(std::unique_ptr<ScalarKernel> kernel,
                                             TimeZoneCall call, TypeId inner_result) {
  return std::make_unique<ZonedKernel>(std::move(kernel), std::move(call), inner_result);
}

}  // namespace granite::core
