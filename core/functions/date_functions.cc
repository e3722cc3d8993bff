// Date and time functions over Date and DateTime (UTC; core/date_time.h does the calendar math):
//   toYear (UInt16), toQuarter, toMonth, toDayOfMonth, toDayOfWeek (UInt8), toDayOfYear (UInt16),
//   toYYYYMM, toYYYYMMDD (UInt32), toMonday, toStartOfMonth, toStartOfQuarter, toStartOfYear
//   (Date), toStartOfDay (DateTime) — on Date or DateTime;
//   toHour, toMinute, toSecond (UInt8), toStartOfMinute, toStartOfFiveMinutes,
//   toStartOfFifteenMinutes, toStartOfHour (DateTime) — on DateTime only;
//   dateTrunc(unit, t) with unit 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' |
//   'quarter' | 'year': DateTime for DateTime input; for Date input Date for day and longer
//   units, DateTime (midnight) for second, minute and hour.
// Each function is a struct with Day(int64_t day) and/or Time(uint32_t seconds); one templated
// loop per struct and input type.
#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/date_time.h"
#include "core/error.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/functions/vector_loops.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

template <typename Fn>
concept HasDay = requires { Fn::Day(int64_t{0}); };

// A function of the day, also applied to a DateTime's day.
template <typename Out, Out (*F)(int64_t)>
struct DayPart {
  static Out Day(int64_t d) { return F(d); }
  static Out Time(uint32_t s) { return F(DayOf(s)); }
};

// Year, month and day of every day number a Date or a DateTime can hold (0 .. 65535; a DateTime's
// last day is 49710), computed once: a table lookup instead of the civil-date arithmetic per row.
struct CivilDay {
  uint16_t year;
  uint8_t month;
  uint8_t day;
};

const CivilDay* CivilDays() {
  static const CivilDay* table = [] {
    auto* days = new CivilDay[kMaxDate + 1];
    for (int64_t d = 0; d <= kMaxDate; ++d) {
      int y;
      unsigned m, dd;
      CivilFromDays(d, &y, &m, &dd);
      days[d] = {static_cast<uint16_t>(y), static_cast<uint8_t>(m), static_cast<uint8_t>(dd)};
    }
    return days;
  }();
  return table;
}

inline const CivilDay& Civil(int64_t d) { return CivilDays()[static_cast<uint16_t>(d)]; }

uint16_t Year(int64_t d) { return Civil(d).year; }
uint8_t Quarter(int64_t d) { return static_cast<uint8_t>((Civil(d).month + 2) / 3); }
uint8_t Month(int64_t d) { return Civil(d).month; }
uint8_t DayOfMonth(int64_t d) { return Civil(d).day; }
uint8_t DayOfWeek(int64_t d) { return static_cast<uint8_t>(DayOfWeekOf(d)); }
uint16_t DayOfYear(int64_t d) { return static_cast<uint16_t>(DayOfYearOf(d)); }
uint32_t YyyyMm(int64_t d) { return Civil(d).year * 100u + Civil(d).month; }
uint32_t YyyyMmDd(int64_t d) {
  const CivilDay& c = Civil(d);
  return c.year * 10000u + c.month * 100u + c.day;
}
// Days before the first Monday of the Date range (1970-01-05) give 1970-01-01, as in ClickHouse.
uint16_t Monday(int64_t d) {
  return static_cast<uint16_t>(std::max<int64_t>(0, StartOfWeekMonday(d)));
}
uint16_t MonthStart(int64_t d) { return static_cast<uint16_t>(d - Civil(d).day + 1); }
uint16_t QuarterStart(int64_t d) { return static_cast<uint16_t>(StartOfQuarter(d)); }
uint16_t YearStart(int64_t d) { return static_cast<uint16_t>(StartOfYear(d)); }
uint16_t SameDay(int64_t d) { return static_cast<uint16_t>(d); }

// A function of the time of a DateTime only.
template <typename Out, Out (*F)(uint32_t)>
struct TimePart {
  static Out Time(uint32_t s) { return F(s); }
};

uint8_t Hour(uint32_t s) { return static_cast<uint8_t>(HourOf(s)); }
uint8_t Minute(uint32_t s) { return static_cast<uint8_t>(MinuteOf(s)); }
uint8_t Second(uint32_t s) { return static_cast<uint8_t>(SecondOf(s)); }
uint32_t MinuteStart(uint32_t s) { return StartOfMinute(s); }
uint32_t FiveMinutesStart(uint32_t s) { return s - s % 300; }
uint32_t FifteenMinutesStart(uint32_t s) { return s - s % 900; }
uint32_t HourStart(uint32_t s) { return StartOfHour(s); }
uint32_t SameSecond(uint32_t s) { return s; }

// Midnight of the day as a DateTime, for Date or DateTime input; Dates past 2106-02-07 give the
// largest DateTime, as in ClickHouse.
struct DayStart {
  static uint32_t Day(int64_t d) {
    return static_cast<uint32_t>(std::min<int64_t>(d * kSecondsPerDay, kMaxDateTime));
  }
  static uint32_t Time(uint32_t s) { return StartOfDay(s); }
};

// A Date-valued day function (toMonday, ...) applied to a DateTime and returned as DateTime.
template <uint16_t (*F)(int64_t)>
struct DayTruncToTime {
  static uint32_t Time(uint32_t s) { return static_cast<uint32_t>(F(DayOf(s)) * kSecondsPerDay); }
};

template <typename Fn>
class DateKernel : public ScalarKernel {
 public:
  explicit DateKernel(TypeId result) : result_(result) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    auto out = NewColumn(result_, rows);
    const Column& in = *args[0].column;
    if constexpr (HasDay<Fn>) {
      if (in.type() == TypeId::kDate) {
        using Out = decltype(Fn::Day(0));
        UnaryLoop(in.Data<uint16_t>(), out->template Data<Out>(), rows,
                  [](uint16_t d) { return Fn::Day(d); });
        return ColumnPtr(std::move(out));
      }
    }
    using Out = decltype(Fn::Time(0));
    UnaryLoop(in.Data<uint32_t>(), out->template Data<Out>(), rows,
              [](uint32_t s) { return Fn::Time(s); });
    return ColumnPtr(std::move(out));
  }

 private:
  const TypeId result_;
};

struct DateFunction {
  std::string_view name;
  TypeId result;
  bool accepts_date;
  std::unique_ptr<ScalarKernel> (*make)(TypeId result);
};

template <typename Fn>
DateFunction Entry(std::string_view name, TypeId result) {
  return {name, result, HasDay<Fn>,
          [](TypeId r) -> std::unique_ptr<ScalarKernel> { return std::make_unique<DateKernel<Fn>>(r); }};
}

const std::vector<DateFunction>& DateFunctions() {
  static const auto* functions = new std::vector<DateFunction>{
      Entry<DayPart<uint16_t, Year>>("toYear", TypeId::kUInt16),
      Entry<DayPart<uint8_t, Quarter>>("toQuarter", TypeId::kUInt8),
      Entry<DayPart<uint8_t, Month>>("toMonth", TypeId::kUInt8),
      Entry<DayPart<uint8_t, DayOfMonth>>("toDayOfMonth", TypeId::kUInt8),
      Entry<DayPart<uint8_t, DayOfWeek>>("toDayOfWeek", TypeId::kUInt8),
      Entry<DayPart<uint16_t, DayOfYear>>("toDayOfYear", TypeId::kUInt16),
      Entry<DayPart<uint32_t, YyyyMm>>("toYYYYMM", TypeId::kUInt32),
      Entry<DayPart<uint32_t, YyyyMmDd>>("toYYYYMMDD", TypeId::kUInt32),
      Entry<DayPart<uint16_t, Monday>>("toMonday", TypeId::kDate),
      Entry<DayPart<uint16_t, MonthStart>>("toStartOfMonth", TypeId::kDate),
      Entry<DayPart<uint16_t, QuarterStart>>("toStartOfQuarter", TypeId::kDate),
      Entry<DayPart<uint16_t, YearStart>>("toStartOfYear", TypeId::kDate),
      Entry<DayStart>("toStartOfDay", TypeId::kDateTime),
      Entry<TimePart<uint8_t, Hour>>("toHour", TypeId::kUInt8),
      Entry<TimePart<uint8_t, Minute>>("toMinute", TypeId::kUInt8),
      Entry<TimePart<uint8_t, Second>>("toSecond", TypeId::kUInt8),
      Entry<TimePart<uint32_t, MinuteStart>>("toStartOfMinute", TypeId::kDateTime),
      Entry<TimePart<uint32_t, FiveMinutesStart>>("toStartOfFiveMinutes", TypeId::kDateTime),
      Entry<TimePart<uint32_t, FifteenMinutesStart>>("toStartOfFifteenMinutes",
                                                     TypeId::kDateTime),
      Entry<TimePart<uint32_t, HourStart>>("toStartOfHour", TypeId::kDateTime),
  };
  return *functions;
}

const DateFunction* FindDateFunction(std::string_view name) {
  for (const DateFunction& f : DateFunctions()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

absl::StatusOr<TypeId> ResolveDateFunction(std::string_view name,
                                           const std::vector<ArgumentInfo>& args) {
  const DateFunction* f = FindDateFunction(name);
  const TypeId t = args[0].type;
  if (f == nullptr) return Error(ErrorCode::kLogicalError, "Unhandled date function");
  if (t != TypeId::kDateTime && !(t == TypeId::kDate && f->accepts_date)) {
    return IllegalArgumentType(name, 0, t);
  }
  return f->result;
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileDateFunction(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  return FindDateFunction(name)->make(result_type);
}

// dateTrunc(unit, t): the kernel for each unit and input type.
struct TruncUnit {
  std::string_view unit;
  bool shorter_than_day;
  std::unique_ptr<ScalarKernel> (*for_date)(TypeId result);
  std::unique_ptr<ScalarKernel> (*for_time)(TypeId result);
};

template <typename Fn>
std::unique_ptr<ScalarKernel> Make(TypeId result) {
  return std::make_unique<DateKernel<Fn>>(result);
}

constexpr TruncUnit kTruncUnits[] = {
    {"second", true, Make<DayStart>, Make<TimePart<uint32_t, SameSecond>>},
    {"minute", true, Make<DayStart>, Make<TimePart<uint32_t, MinuteStart>>},
    {"hour", true, Make<DayStart>, Make<TimePart<uint32_t, HourStart>>},
    {"day", false, Make<DayPart<uint16_t, SameDay>>, Make<DayStart>},
    {"week", false, Make<DayPart<uint16_t, Monday>>, Make<DayTruncToTime<Monday>>},
    {"month", false, Make<DayPart<uint16_t, MonthStart>>, Make<DayTruncToTime<MonthStart>>},
    {"quarter", false, Make<DayPart<uint16_t, QuarterStart>>, Make<DayTruncToTime<QuarterStart>>},
    {"year", false, Make<DayPart<uint16_t, YearStart>>, Make<DayTruncToTime<YearStart>>},
};

absl::StatusOr<const TruncUnit*> FindTruncUnit(std::string_view name,
                                               const std::vector<ArgumentInfo>& args) {
  if (!IsString(args[0].type)) return IllegalArgumentType(name, 0, args[0].type);
  if (!args[0].constant) return ArgumentMustBeConstant(name, 0);
  const std::string unit = absl::AsciiStrToLower(ValueToText(*args[0].constant));
  for (const TruncUnit& u : kTruncUnits) {
    if (u.unit == unit) return &u;
  }
  return Error(ErrorCode::kBadArguments,
               absl::StrCat("Invalid unit '", unit, "' of function ", ToAbsl(name),
                            ": expected second, minute, hour, day, week, month, quarter or year"));
}

absl::StatusOr<TypeId> ResolveDateTrunc(std::string_view name,
                                        const std::vector<ArgumentInfo>& args) {
  ASSIGN_OR_RETURN(const TruncUnit* unit, FindTruncUnit(name, args));
  const TypeId t = args[1].type;
  if (t == TypeId::kDateTime) return TypeId::kDateTime;
  if (t == TypeId::kDate) return unit->shorter_than_day ? TypeId::kDateTime : TypeId::kDate;
  return IllegalArgumentType(name, 1, t);
}

// Applies the unit's kernel to argument 1.
class DateTruncKernel : public ScalarKernel {
 public:
  explicit DateTruncKernel(std::unique_ptr<ScalarKernel> inner) : inner_(std::move(inner)) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    return inner_->Execute({args[1]}, rows);
  }

 private:
  const std::unique_ptr<ScalarKernel> inner_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileDateTrunc(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  ASSIGN_OR_RETURN(const TruncUnit* unit, FindTruncUnit(name, args));
  auto make = args[1].type == TypeId::kDate ? unit->for_date : unit->for_time;
  return std::make_unique<DateTruncKernel>(make(result_type));
}

}  // namespace

void RegisterDateFunctions(FunctionTable& table) {
  for (const DateFunction& f : DateFunctions()) {
    table.Add({f.name, 1, 1, false, ResolveDateFunction, CompileDateFunction});
  }
  // ClickHouse's SQL-compatible aliases.
  table.AddAlias("YEAR", "toYear", true);
  table.AddAlias("QUARTER", "toQuarter", true);
  table.AddAlias("MONTH", "toMonth", true);
  table.AddAlias("DAY", "toDayOfMonth", true);
  table.AddAlias("DAYOFMONTH", "toDayOfMonth", true);
  table.AddAlias("DAYOFWEEK", "toDayOfWeek", true);
  table.AddAlias("DAYOFYEAR", "toDayOfYear", true);
  table.AddAlias("HOUR", "toHour", true);
  table.AddAlias("MINUTE", "toMinute", true);
  table.AddAlias("SECOND", "toSecond", true);
  table.Add({"dateTrunc", 2, 2, false, ResolveDateTrunc, CompileDateTrunc});
  table.AddAlias("date_trunc", "dateTrunc", true);
  table.AddAlias("DATE_TRUNC", "dateTrunc", true);
}

}  // namespace granite::core
