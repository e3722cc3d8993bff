// More date and time functions (UTC), ClickHouse's names, argument orders and result types:
//   now() -> DateTime, today(), yesterday() -> Date (evaluated once per block);
//   addSeconds/Minutes/Hours/Days/Weeks/Months/Quarters/Years(t, n) and subtract*(t, n): Date
//     stays Date for day and longer units, otherwise DateTime; months clamp the day to the month's
//     end (2021-01-31 + 1 month = 2021-02-28); results wrap around the type's range as ClickHouse;
//   dateAdd / dateSub(unit, n, t) (two arguments: plus / minus) and dateDiff(unit, start, end)
//     -> Int64 with unit a constant
//     string ('second' ... 'year' and ClickHouse's abbreviations); dateDiff counts unit
//     boundaries crossed (toRelative*Num(end) - toRelative*Num(start));
//   toRelativeYearNum (UInt16), toRelativeQuarterNum, toRelativeMonthNum, toRelativeWeekNum,
//     toRelativeDayNum, toRelativeHourNum, toRelativeMinuteNum, toRelativeSecondNum (UInt32);
//   toISOYear (UInt16), toISOWeek, toWeek(t[, mode 0..3]) (UInt8), toYearWeek (UInt32, mode 0),
//     toStartOfWeek(t[, mode]) (Date; mode 0: Sunday, 1: Monday), toStartOfISOYear,
//     toLastDayOfMonth (Date), toStartOfTenMinutes, timeSlot (DateTime),
//     toYYYYMMDDhhmmss (UInt64), monthName (String), makeDate(y, m, d) or (y, day_of_year),
//     makeDateTime(y, m, d, h, mi, s) (numbers, fractions dropped),
//     fromUnixTimestamp(n[, format]) (FROM_UNIXTIME);
//   formatDateTime(t, format) with MySQL-style specifiers (see FormatOne);
//   parseDateTimeBestEffort(s[, 'tz']) / parseDateTimeBestEffortOrZero(s[, 'tz']) -> DateTime
//     (DateTime('tz'), text without an offset read in that zone): ISO 8601 with 'T' and a zone
//     (Z, +hh:mm), "YYYY-MM-DD[ hh:mm[:ss[.frac]]]", '/' separators, YYYYMMDD[hhmmss],
//     unix timestamps, DD/MM/YYYY, RFC 2822 and "Mar 7 2021 2:05 PM" / "7 March 2021".
#include <algorithm>
#include <chrono>
#include <limits>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/date_time.h"
#include "core/error.h"
#include "core/function_error_codes.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_registry.h"
#include "core/functions/simple_function.h"
#include "core/functions/vector_loops.h"
#include "core/status_macros.h"
#include "core/time_zone.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

using A = Arg;

enum class Unit { kSecond, kMinute, kHour, kDay, kWeek, kMonth, kQuarter, kYear, kInvalid };

Unit ParseUnit(std::string_view text) {
  std::string u = absl::AsciiStrToLower(ToAbsl(text));
  if (u.size() > 1 && u.back() == 's' && u != "ss" && u != "s") u.pop_back();  // "days"
  if (u == "second" || u == "ss" || u == "s") return Unit::kSecond;
  if (u == "minute" || u == "mi" || u == "n") return Unit::kMinute;
  if (u == "hour" || u == "hh" || u == "h") return Unit::kHour;
  if (u == "day" || u == "dd" || u == "d") return Unit::kDay;
  if (u == "week" || u == "wk" || u == "ww") return Unit::kWeek;
  if (u == "month" || u == "mm" || u == "m") return Unit::kMonth;
  if (u == "quarter" || u == "qq" || u == "q") return Unit::kQuarter;
  if (u == "year" || u == "yyyy" || u == "yy") return Unit::kYear;
  return Unit::kInvalid;
}

int64_t SecondsOf(TypeId type, const Column& c, size_t row) {
  return type == TypeId::kDate ? int64_t{c.Data<uint16_t>()[row]} * kSecondsPerDay
                               : int64_t{c.Data<uint32_t>()[row]};
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

// Monday-based week number since 1970-01-01 (whose week starts on 1969-12-29).
int64_t RelativeWeek(int64_t day) { return FloorDiv(day + 3, 7); }

int64_t MonthNumber(int64_t day) {
  int y;
  unsigned m, d;
  CivilFromDays(day, &y, &m, &d);
  return int64_t{y} * 12 + m - 1;
}

int64_t Relative(Unit unit, int64_t seconds) {
  const int64_t day = FloorDiv(seconds, kSecondsPerDay);
  switch (unit) {
    case Unit::kSecond: return seconds;
    case Unit::kMinute: return FloorDiv(seconds, 60);
    case Unit::kHour: return FloorDiv(seconds, 3600);
    case Unit::kDay: return day;
    case Unit::kWeek: return RelativeWeek(day);
    case Unit::kMonth: return MonthNumber(day) + 1;  // ClickHouse counts year * 12 + month
    case Unit::kQuarter: return FloorDiv(MonthNumber(day), 3);
    case Unit::kYear: return FloorDiv(MonthNumber(day), 12);
    case Unit::kInvalid: break;
  }
  return 0;
}

// Adds `n` units to a day number / seconds value (months clamp the day of month).
int64_t AddMonths(int64_t day, int64_t months) {
  int y;
  unsigned m, d;
  CivilFromDays(day, &y, &m, &d);
  int64_t total = int64_t{y} * 12 + (m - 1) + months;
  const int ny = static_cast<int>(FloorDiv(total, 12));
  const unsigned nm = static_cast<unsigned>(total - int64_t{ny} * 12 + 1);
  return DaysFromCivil(ny, nm, std::min(d, DaysInMonth(ny, nm)));
}

int64_t AddUnits(Unit unit, int64_t seconds, int64_t n) {
  switch (unit) {
    case Unit::kSecond: return seconds + n;
    case Unit::kMinute: return seconds + n * 60;
    case Unit::kHour: return seconds + n * 3600;
    case Unit::kDay: return seconds + n * kSecondsPerDay;
    case Unit::kWeek: return seconds + n * 7 * kSecondsPerDay;
    case Unit::kMonth:
    case Unit::kQuarter:
    case Unit::kYear: {
      const int64_t months = unit == Unit::kMonth ? n : unit == Unit::kQuarter ? 3 * n : 12 * n;
      const int64_t day = FloorDiv(seconds, kSecondsPerDay);
      return AddMonths(day, months) * kSecondsPerDay + (seconds - day * kSecondsPerDay);
    }
    case Unit::kInvalid: break;
  }
  return seconds;
}

bool IsDayOrLonger(Unit unit) { return unit >= Unit::kDay; }

// ---- addX / subtractX / dateAdd / dateSub ----

struct AddFunction {
  std::string_view name;
  Unit unit;
  int sign;
};

constexpr AddFunction kAddFunctions[] = {
    {"addSeconds", Unit::kSecond, 1},       {"addMinutes", Unit::kMinute, 1},
    {"addHours", Unit::kHour, 1},           {"addDays", Unit::kDay, 1},
    {"addWeeks", Unit::kWeek, 1},           {"addMonths", Unit::kMonth, 1},
    {"addQuarters", Unit::kQuarter, 1},     {"addYears", Unit::kYear, 1},
    {"subtractSeconds", Unit::kSecond, -1}, {"subtractMinutes", Unit::kMinute, -1},
    {"subtractHours", Unit::kHour, -1},     {"subtractDays", Unit::kDay, -1},
    {"subtractWeeks", Unit::kWeek, -1},     {"subtractMonths", Unit::kMonth, -1},
    {"subtractQuarters", Unit::kQuarter, -1}, {"subtractYears", Unit::kYear, -1},
};

// Finds the unit and sign of a call, and the positions of the time and the count.
absl::StatusOr<AddFunction> AddCallOf(std::string_view name, const std::vector<ArgumentInfo>& args,
                                      size_t* time, size_t* count) {
  for (const AddFunction& f : kAddFunctions) {
    if (f.name == name) {
      *time = 0;
      *count = 1;
      return f;
    }
  }
  // dateAdd / dateSub(unit, n, t).
  if (!IsString(args[0].type)) return IllegalArgumentType(name, 0, args[0].type);
  if (!args[0].constant) return ArgumentMustBeConstant(name, 0);
  const Unit unit = ParseUnit(ValueToText(*args[0].constant));
  if (unit == Unit::kInvalid) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Function ", ToAbsl(name), " does not support the unit '",
                              ValueToText(*args[0].constant), "'"));
  }
  *time = 2;
  *count = 1;
  return AddFunction{name, unit, name == "dateSub" ? -1 : 1};
}

// dateAdd(a, b) / dateSub(a, b) without a unit are ClickHouse's plus(a, b) / minus(a, b) (the
// form `date_add(d, INTERVAL 1 DAY)` takes after its interval is folded).
std::string_view TwoArgumentForm(std::string_view name, const std::vector<ArgumentInfo>& args) {
  if (args.size() != 2) return {};
  if (name == "dateAdd") return "plus";
  if (name == "dateSub") return "minus";
  return {};
}

absl::StatusOr<TypeId> ResolveAdd(std::string_view name, const std::vector<ArgumentInfo>& args) {
  if (std::string_view op = TwoArgumentForm(name, args); !op.empty()) {
    ASSIGN_OR_RETURN(ResolvedFunction resolved, ResolveFunction(op, args));
    return resolved.result_type;
  }
  size_t time, count;
  ASSIGN_OR_RETURN(AddFunction f, AddCallOf(name, args, &time, &count));
  if (!IsDateOrDateTime(args[time].type)) return IllegalArgumentType(name, time, args[time].type);
  // A float count is truncated toward zero (addHours(d, 2.5) adds 2 hours), as ClickHouse.
  if (!(IsInteger(args[count].type) || IsFloat(args[count].type)) ||
      IsDateOrDateTime(args[count].type)) {
    return IllegalArgumentType(name, count, args[count].type);
  }
  return args[time].type == TypeId::kDate && IsDayOrLonger(f.unit) ? TypeId::kDate
                                                                    : TypeId::kDateTime;
}

class AddKernel : public ScalarKernel {
 public:
  AddKernel(AddFunction f, size_t time, OperandCaster caster, TypeId result)
      : f_(f), time_(time), caster_(std::move(caster)), result_(result) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    ASSIGN_OR_RETURN(std::vector<Operand> ops, caster_.CastAll(args));
    const Operand& t = ops[time_];
    const Operand& n = ops[1];
    auto out = NewColumn(result_, rows);
    for (size_t i = 0; i < rows; ++i) {
      const int64_t seconds = SecondsOf(t.type(), *t.column, t.is_constant ? 0 : i);
      const int64_t k = I64(n, i) * f_.sign;
      const int64_t r = AddUnits(f_.unit, seconds, k);
      if (result_ == TypeId::kDate) {
        out->Data<uint16_t>()[i] = static_cast<uint16_t>(FloorDiv(r, kSecondsPerDay));
      } else {
        out->Data<uint32_t>()[i] = static_cast<uint32_t>(r);
      }
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const AddFunction f_;
  const size_t time_;
  const OperandCaster caster_;
  const TypeId result_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileAdd(std::string_view name,
                                                         const std::vector<ArgumentInfo>& args,
                                                         TypeId result) {
  if (std::string_view op = TwoArgumentForm(name, args); !op.empty()) {
    ASSIGN_OR_RETURN(CompiledFunction compiled, CompileFunction(op, args));
    return std::move(compiled.kernel);
  }
  size_t time, count;
  ASSIGN_OR_RETURN(AddFunction f, AddCallOf(name, args, &time, &count));
  std::vector<TypeId> targets;
  for (const ArgumentInfo& a : args) targets.push_back(a.type);
  targets[count] = TypeId::kInt64;
  ASSIGN_OR_RETURN(OperandCaster caster, OperandCaster::Create(args, targets));
  return std::make_unique<AddKernel>(f, time, std::move(caster), result);
}

// ---- dateDiff ----

absl::StatusOr<TypeId> ResolveDateDiff(std::string_view name,
                                       const std::vector<ArgumentInfo>& args) {
  if (!IsString(args[0].type)) return IllegalArgumentType(name, 0, args[0].type);
  if (!args[0].constant) return ArgumentMustBeConstant(name, 0);
  if (ParseUnit(ValueToText(*args[0].constant)) == Unit::kInvalid) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Function ", ToAbsl(name), " does not support the unit '",
                              ValueToText(*args[0].constant), "'"));
  }
  for (size_t i = 1; i < 3; ++i) {
    if (!IsDateOrDateTime(args[i].type)) return IllegalArgumentType(name, i, args[i].type);
  }
  return TypeId::kInt64;
}

class DateDiffKernel : public ScalarKernel {
 public:
  explicit DateDiffKernel(Unit unit) : unit_(unit) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    auto out = NewColumn(TypeId::kInt64, rows);
    const Operand& a = args[1];
    const Operand& b = args[2];
    for (size_t i = 0; i < rows; ++i) {
      const int64_t x = SecondsOf(a.type(), *a.column, a.is_constant ? 0 : i);
      const int64_t y = SecondsOf(b.type(), *b.column, b.is_constant ? 0 : i);
      out->Data<int64_t>()[i] = Relative(unit_, y) - Relative(unit_, x);
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const Unit unit_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileDateDiff(
    std::string_view, const std::vector<ArgumentInfo>& args, TypeId) {
  return std::make_unique<DateDiffKernel>(ParseUnit(ValueToText(*args[0].constant)));
}

// ---- simple calendar functions over a DateTime (Dates converted to midnight) ----

int64_t DayOfRow(const Operand* ops, size_t i) { return Time(ops[0], i) / kSecondsPerDay; }

template <Unit kUnit, typename R>
void RelativeRow(const Operand* ops, size_t i, Column* out) {
  // Seconds of Dates past 2106 do not fit UInt32: the largest value, as ClickHouse answers.
  const int64_t value = Relative(kUnit, Time(ops[0], i));
  out->Append<R>(static_cast<R>(std::min<int64_t>(value, std::numeric_limits<R>::max())));
}

void CivilOf(int64_t day, int* y, unsigned* m, unsigned* d) { CivilFromDays(day, y, m, d); }

// Monday of the ISO week 1 of ISO year `y`.
int64_t IsoYearStart(int y) {
  const int64_t jan4 = DaysFromCivil(y, 1, 4);
  return jan4 - static_cast<int64_t>((DayOfWeekOf(jan4) + 6) % 7);
}

int IsoYear(int64_t day) {
  int y;
  unsigned m, d;
  CivilOf(day, &y, &m, &d);
  if (day >= IsoYearStart(y + 1)) return y + 1;
  if (day < IsoYearStart(y)) return y - 1;
  return y;
}

unsigned IsoWeek(int64_t day) {
  return static_cast<unsigned>((day - IsoYearStart(IsoYear(day))) / 7 + 1);
}

// MySQL week modes 0 (Sunday first, weeks 0-53), 1 (Monday first, 4-day rule, 0-53),
// 2 (as 0, 1-53), 3 (ISO).
unsigned WeekOf(int64_t day, int64_t mode) {
  int y;
  unsigned m, d;
  CivilOf(day, &y, &m, &d);
  const int64_t jan1 = DaysFromCivil(y, 1, 1);
  if (mode == 3) return IsoWeek(day);
  if (mode == 1) {
    const int64_t w = FloorDiv(day - IsoYearStart(y), 7) + 1;
    return static_cast<unsigned>(std::max<int64_t>(0, w));
  }
  // Sunday-first: week 1 starts on the first Sunday of the year.
  const int64_t jan1_dow = DayOfWeekOf(jan1) % 7;  // Sunday = 0
  const unsigned w = static_cast<unsigned>((day - jan1 + jan1_dow) / 7);
  if (mode == 2 && w == 0) return WeekOf(jan1 - 1, 2);
  return w;
}

void IsoYearRow(const Operand* ops, size_t i, Column* out) {
  out->Append<uint16_t>(static_cast<uint16_t>(IsoYear(DayOfRow(ops, i))));
}
void IsoWeekRow(const Operand* ops, size_t i, Column* out) {
  out->Append<uint8_t>(static_cast<uint8_t>(IsoWeek(DayOfRow(ops, i))));
}
void WeekRow(const Operand* ops, size_t i, Column* out) {
  const int64_t mode = ops[1].column != nullptr ? I64(ops[1], i) & 3 : 0;
  out->Append<uint8_t>(static_cast<uint8_t>(WeekOf(DayOfRow(ops, i), mode)));
}
void YearWeekRow(const Operand* ops, size_t i, Column* out) {
  int64_t day = DayOfRow(ops, i);
  int y;
  unsigned m, d;
  CivilOf(day, &y, &m, &d);
  unsigned w = WeekOf(day, 0);
  if (w == 0) {
    day = DaysFromCivil(y, 1, 1) - 1;
    --y;
    w = WeekOf(day, 0);
  }
  out->Append<uint32_t>(static_cast<uint32_t>(y * 100 + static_cast<int>(w)));
}
void StartOfWeekRow(const Operand* ops, size_t i, Column* out) {
  const int64_t day = DayOfRow(ops, i);
  const int64_t mode = ops[1].column != nullptr ? I64(ops[1], i) : 0;
  const int64_t dow = DayOfWeekOf(day);  // Monday = 1 .. Sunday = 7
  const int64_t start = (mode & 1) ? day - (dow - 1) : day - (dow % 7);
  out->Append<uint16_t>(static_cast<uint16_t>(std::clamp<int64_t>(start, 0, kMaxDate)));
}
void StartOfIsoYearRow(const Operand* ops, size_t i, Column* out) {
  const int64_t start = IsoYearStart(IsoYear(DayOfRow(ops, i)));
  out->Append<uint16_t>(static_cast<uint16_t>(std::clamp<int64_t>(start, 0, kMaxDate)));
}
void LastDayOfMonthRow(const Operand* ops, size_t i, Column* out) {
  int y;
  unsigned m, d;
  const int64_t day = DayOfRow(ops, i);
  CivilOf(day, &y, &m, &d);
  const int64_t last = day + DaysInMonth(y, m) - d;
  out->Append<uint16_t>(static_cast<uint16_t>(std::min<int64_t>(last, kMaxDate)));
}
template <uint32_t kStep>
void StartOfStepRow(const Operand* ops, size_t i, Column* out) {
  const int64_t t = std::min<int64_t>(Time(ops[0], i), kMaxDateTime);
  out->Append<uint32_t>(static_cast<uint32_t>(t - t % kStep));
}
void YyyyMmDdHhMmSsRow(const Operand* ops, size_t i, Column* out) {
  const int64_t t = Time(ops[0], i);
  int y;
  unsigned m, d;
  CivilOf(t / kSecondsPerDay, &y, &m, &d);
  const auto time_of_day = static_cast<uint32_t>(t % kSecondsPerDay);
  out->Append<uint64_t>(((uint64_t(y) * 100 + m) * 100 + d) * 1000000 +
                        HourOf(time_of_day) * 10000 + MinuteOf(time_of_day) * 100 +
                        SecondOf(time_of_day));
}

constexpr const char* kMonths[] = {"January", "February", "March",     "April",
                                   "May",     "June",     "July",      "August",
                                   "September", "October", "November", "December"};
constexpr const char* kDays[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                 "Friday", "Saturday", "Sunday"};

void MonthNameRow(const Operand* ops, size_t i, Column* out) {
  out->AppendString(kMonths[MonthOf(DayOfRow(ops, i)) - 1]);
}

// A makeDate / makeDateTime argument: any number, its fraction dropped (NaN and far values give
// an invalid part, so the epoch).
int64_t Part(const Operand& op, size_t i) {
  const double v = F64(op, i);
  return v > -1e6 && v < 1e6 ? static_cast<int64_t>(v) : -1;
}

// makeDate(year, month, day) or makeDate(year, day_of_year); an invalid date is 1970-01-01.
void MakeDateRow(const Operand* ops, size_t i, Column* out) {
  const int64_t y = Part(ops[0], i);
  int64_t day = 0;
  if (ops[2].column == nullptr) {
    const int64_t n = Part(ops[1], i);
    const int64_t year_days = DaysFromCivil(static_cast<int>(y) + 1, 1, 1) -
                              DaysFromCivil(static_cast<int>(y), 1, 1);
    if (y >= 1970 && y <= 2149 && n >= 1 && n <= year_days) {
      day = DaysFromCivil(static_cast<int>(y), 1, 1) + n - 1;
      if (day > kMaxDate) day = 0;
    }
  } else {
    const int64_t m = Part(ops[1], i), d = Part(ops[2], i);
    if (m >= 1 && m <= 12 && d >= 1 && y >= 1970 && y <= 2149 &&
        d <= DaysInMonth(static_cast<int>(y), static_cast<unsigned>(m))) {
      day = DaysFromCivil(static_cast<int>(y), static_cast<unsigned>(m),
                          static_cast<unsigned>(d));
    }
  }
  out->Append<uint16_t>(static_cast<uint16_t>(std::clamp<int64_t>(day, 0, kMaxDate)));
}

void MakeDateTimeRow(const Operand* ops, size_t i, Column* out) {
  const int64_t y = Part(ops[0], i), m = Part(ops[1], i), d = Part(ops[2], i);
  int64_t seconds = 0;
  if (m >= 1 && m <= 12 && d >= 1 && y >= 1970 && y <= 2106 &&
      d <= DaysInMonth(static_cast<int>(y), static_cast<unsigned>(m))) {
    seconds = DaysFromCivil(static_cast<int>(y), static_cast<unsigned>(m),
                            static_cast<unsigned>(d)) * kSecondsPerDay +
              Part(ops[3], i) * 3600 + Part(ops[4], i) * 60 + Part(ops[5], i);
  }
  out->Append<uint32_t>(static_cast<uint32_t>(std::clamp<int64_t>(seconds, 0, kMaxDateTime)));
}

// ---- formatDateTime ----

void Pad2(unsigned v, std::string* out) {
  out->push_back(static_cast<char>('0' + v / 10 % 10));
  out->push_back(static_cast<char>('0' + v % 10));
}

void FormatOne(char spec, uint32_t t, std::string* out) {
  const int64_t day = t / kSecondsPerDay;
  int y;
  unsigned m, d;
  CivilFromDays(day, &y, &m, &d);
  const unsigned h = HourOf(t), mi = MinuteOf(t), s = SecondOf(t);
  const unsigned h12 = h % 12 == 0 ? 12 : h % 12;
  const unsigned dow = DayOfWeekOf(day);  // 1 = Monday
  switch (spec) {
    case 'a': out->append(std::string_view(kDays[dow - 1]).substr(0, 3)); break;
    case 'b': out->append(std::string_view(kMonths[m - 1]).substr(0, 3)); break;
    case 'c': Pad2(m, out); break;
    case 'C': Pad2(static_cast<unsigned>(y / 100), out); break;
    case 'd': Pad2(d, out); break;
    case 'D': Pad2(m, out), out->push_back('/'), Pad2(d, out), out->push_back('/'),
              Pad2(static_cast<unsigned>(y % 100), out); break;
    case 'e': out->append(std::to_string(d)); break;
    case 'f': out->append("000000"); break;
    case 'F': absl::StrAppend(out, y, "-"), Pad2(m, out), out->push_back('-'), Pad2(d, out); break;
    case 'h':
    case 'I': Pad2(h12, out); break;
    case 'H': Pad2(h, out); break;
    case 'i': Pad2(mi, out); break;
    case 'j': {
      const unsigned yd = DayOfYearOf(day);
      out->push_back(static_cast<char>('0' + yd / 100));
      Pad2(yd % 100, out);
      break;
    }
    case 'k': Pad2(h, out); break;
    case 'l': Pad2(h12, out); break;
    case 'm': Pad2(m, out); break;
    case 'M': out->append(kMonths[m - 1]); break;
    case 'n': out->push_back('\n'); break;
    case 'p': out->append(h < 12 ? "AM" : "PM"); break;
    case 'Q': out->push_back(static_cast<char>('0' + (m + 2) / 3)); break;
    case 'r': Pad2(h12, out), out->push_back(':'), Pad2(mi, out), out->append(h < 12 ? " AM" : " PM"); break;
    case 'R': Pad2(h, out), out->push_back(':'), Pad2(mi, out); break;
    case 's':
    case 'S': Pad2(s, out); break;
    case 't': out->push_back('\t'); break;
    case 'T': Pad2(h, out), out->push_back(':'), Pad2(mi, out), out->push_back(':'), Pad2(s, out); break;
    case 'u': out->push_back(static_cast<char>('0' + dow)); break;
    case 'V': Pad2(IsoWeek(day), out); break;
    case 'w': out->push_back(static_cast<char>('0' + dow % 7)); break;
    case 'W': out->append(kDays[dow - 1]); break;
    case 'y': Pad2(static_cast<unsigned>(y % 100), out); break;
    case 'Y': absl::StrAppend(out, y); break;
    case 'z': out->append("+0000"); break;
    case '%': out->push_back('%'); break;
    default: out->push_back('%'), out->push_back(spec);
  }
}

constexpr std::string_view kFormatSpecs = "abcCdDefFhHiIjklmMnpQrRsStTuVwWyYz%";

absl::StatusOr<TypeId> ResolveFormatDateTime(std::string_view name,
                                             const std::vector<ArgumentInfo>& args) {
  const bool from_unix = name == "fromUnixTimestamp";
  if (from_unix ? !(IsInteger(args[0].type) && !IsDateOrDateTime(args[0].type))
                : !IsDateOrDateTime(args[0].type)) {
    return IllegalArgumentType(name, 0, args[0].type);
  }
  if (args.size() == 1) return from_unix ? TypeId::kDateTime : TypeId::kString;
  if (!IsString(args[1].type)) return IllegalArgumentType(name, 1, args[1].type);
  if (!args[1].constant) return ArgumentMustBeConstant(name, 1);
  std::string format = ValueToText(*args[1].constant);
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') continue;
    if (i + 1 >= format.size() || kFormatSpecs.find(format[i + 1]) == std::string_view::npos) {
      return Error(ErrorCode::kNotImplemented,
                   absl::StrCat("Function ", ToAbsl(name), " does not support the format '%",
                                format.substr(i + 1, 1), "' in '", format, "'"));
    }
    ++i;
  }
  return TypeId::kString;
}

class FormatDateTimeKernel : public ScalarKernel {
 public:
  FormatDateTimeKernel(std::string format, OperandCaster caster, TypeId result)
      : format_(std::move(format)), caster_(std::move(caster)), result_(result) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    ASSIGN_OR_RETURN(Operand t, caster_.Cast(0, args[0]));
    if (result_ == TypeId::kDateTime) return t.column;  // fromUnixTimestamp(n)
    auto out = std::make_shared<Column>(TypeId::kString);
    out->Reserve(rows);
    std::string text;
    for (size_t i = 0; i < rows; ++i) {
      const uint32_t seconds = Time(t, i);
      text.clear();
      for (size_t k = 0; k < format_.size(); ++k) {
        if (format_[k] == '%' && k + 1 < format_.size()) {
          FormatOne(format_[++k], seconds, &text);
        } else {
          text.push_back(format_[k]);
        }
      }
      out->AppendString(text);
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const std::string format_;
  const OperandCaster caster_;
  const TypeId result_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileFormatDateTime(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result) {
  std::vector<TypeId> targets(args.size(), TypeId::kString);
  targets[0] = TypeId::kDateTime;
  ASSIGN_OR_RETURN(OperandCaster caster, OperandCaster::Create(args, targets));
  std::string format = args.size() > 1 ? ValueToText(*args[1].constant) : "";
  return std::make_unique<FormatDateTimeKernel>(std::move(format), std::move(caster), result);
}

// ---- parseDateTimeBestEffort ----

int MonthFromName(std::string_view word) {
  std::string w = absl::AsciiStrToLower(ToAbsl(word));
  if (w.size() < 3) return 0;
  for (int k = 0; k < 12; ++k) {
    std::string name = absl::AsciiStrToLower(kMonths[k]);
    if (name.starts_with(w.substr(0, 3)) && (w.size() == 3 || name == w)) return k + 1;
  }
  return 0;
}

// Reads digits into *value; returns how many were read.
size_t Digits(std::string_view s, size_t pos, int64_t* value) {
  size_t n = 0;
  *value = 0;
  while (pos + n < s.size() && absl::ascii_isdigit(s[pos + n]) && n < 18) {
    *value = *value * 10 + (s[pos + n] - '0');
    ++n;
  }
  return n;
}

// Parses `s`; text without its own offset ('Z', '+05:30', 'UTC') is the wall clock of `zone`.
bool BestEffort(std::string_view s, const TimeZone& zone, uint32_t* out) {
  s = std::string_view(s.data(), s.size());
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.empty()) return false;
  int64_t year = -1, month = -1, day = -1, hour = 0, minute = 0, second = 0, offset = 0;
  bool pm = false, am = false, has_offset = false;
  size_t pos = 0;
  int64_t v;
  // All digits: a unix timestamp, YYYYMMDD or YYYYMMDDhhmmss.
  if (Digits(s, 0, &v) == s.size()) {
    if (s.size() == 8) {
      year = v / 10000, month = v / 100 % 100, day = v % 100;
    } else if (s.size() == 14) {
      year = v / 10000000000, month = v / 100000000 % 100, day = v / 1000000 % 100;
      hour = v / 10000 % 100, minute = v / 100 % 100, second = v % 100;
    } else if (s.size() <= 10) {
      if (v > kMaxDateTime) return false;
      *out = static_cast<uint32_t>(v);
      return true;
    } else {
      return false;
    }
  } else {
    while (pos < s.size()) {
      const char c = s[pos];
      if (c == ' ' || c == ',' || c == 'T' || c == '\t') {
        ++pos;
        continue;
      }
      if (absl::ascii_isdigit(c)) {
        const size_t n = Digits(s, pos, &v);
        const char next = pos + n < s.size() ? s[pos + n] : '\0';
        if (n == 4 && (next == '-' || next == '/' || next == '.')) {  // YYYY-MM-DD
          year = v;
          pos += n + 1;
          int64_t mm, dd;
          const size_t a = Digits(s, pos, &mm);
          if (a == 0) return false;
          pos += a;
          if (pos < s.size() && (s[pos] == '-' || s[pos] == '/' || s[pos] == '.')) ++pos;
          const size_t b = Digits(s, pos, &dd);
          if (b == 0) return false;
          pos += b;
          month = mm, day = dd;
        } else if (next == ':') {  // hh:mm[:ss[.frac]]
          hour = v;
          pos += n + 1;
          const size_t a = Digits(s, pos, &minute);
          if (a == 0) return false;
          pos += a;
          if (pos < s.size() && s[pos] == ':') {
            ++pos;
            const size_t b = Digits(s, pos, &second);
            if (b == 0) return false;
            pos += b;
          }
          if (pos < s.size() && s[pos] == '.') {
            ++pos;
            int64_t frac;
            pos += Digits(s, pos, &frac);
          }
        } else if ((next == '/' || next == '-' || next == '.') && n <= 2) {  // DD/MM/YYYY
          day = v;
          pos += n + 1;
          int64_t mm, yy;
          const size_t a = Digits(s, pos, &mm);
          if (a == 0) return false;
          pos += a;
          if (pos >= s.size() || (s[pos] != '/' && s[pos] != '-' && s[pos] != '.')) return false;
          ++pos;
          const size_t b = Digits(s, pos, &yy);
          if (b != 4 && b != 2) return false;
          pos += b;
          month = mm, year = b == 2 ? 2000 + yy : yy;
        } else if (n == 4 && year < 0) {
          year = v;
          pos += n;
        } else if (n <= 2 && day < 0) {
          day = v;
          pos += n;
        } else {
          return false;
        }
        continue;
      }
      if (c == 'Z' && pos + 1 == s.size()) {
        has_offset = true;
        ++pos;
        continue;
      }
      if ((c == '+' || c == '-') && year >= 0) {  // zone offset +hh[:mm] / +hhmm
        const int sign = c == '+' ? 1 : -1;
        ++pos;
        int64_t hh, mm = 0;
        const size_t a = Digits(s, pos, &hh);
        if (a == 4) {
          mm = hh % 100;
          hh /= 100;
        } else if (a != 2 && a != 1) {
          return false;
        }
        pos += a;
        if (pos < s.size() && s[pos] == ':') {
          ++pos;
          pos += Digits(s, pos, &mm);
        }
        offset = sign * (hh * 3600 + mm * 60);
        has_offset = true;
        continue;
      }
      if (absl::ascii_isalpha(c)) {
        size_t end = pos;
        while (end < s.size() && absl::ascii_isalpha(s[end])) ++end;
        std::string_view word = s.substr(pos, end - pos);
        std::string lower = absl::AsciiStrToLower(ToAbsl(word));
        if (int mo = MonthFromName(word); mo > 0) {
          month = mo;
        } else if (lower == "am") {
          am = true;
        } else if (lower == "pm") {
          pm = true;
        } else if (lower == "gmt" || lower == "utc" || lower == "z") {
          has_offset = true;
        } else {
          bool weekday = false;
          for (const char* name : kDays) {
            std::string n = absl::AsciiStrToLower(name);
            if (lower.size() >= 3 && n.starts_with(lower)) weekday = true;
          }
          if (!weekday) return false;
        }
        pos = end;
        continue;
      }
      return false;
    }
  }
  if (pm && hour < 12) hour += 12;
  if (am && hour == 12) hour = 0;
  if (year < 0 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) {
    return false;
  }
  if (day > DaysInMonth(static_cast<int>(year), static_cast<unsigned>(month))) return false;
  int64_t seconds = DaysFromCivil(static_cast<int>(year), static_cast<unsigned>(month),
                                  static_cast<unsigned>(day)) * kSecondsPerDay +
                    hour * 3600 + minute * 60 + second - offset;
  if (!has_offset) seconds = zone.ToUtc(seconds);
  if (seconds < 0 || seconds > kMaxDateTime) return false;
  *out = static_cast<uint32_t>(seconds);
  return true;
}

// parseDateTimeBestEffort(s[, 'tz']) and parseDateTimeBestEffortOrZero: DateTime('tz') when
// the zone is written, read in that zone.
absl::StatusOr<TypeId> ResolveBestEffort(std::string_view name,
                                         const std::vector<ArgumentInfo>& args) {
  if (!IsString(args[0].type)) return IllegalArgumentType(name, 0, args[0].type);
  if (args.size() < 2) return TypeId::kDateTime;
  if (!IsString(args[1].type)) return IllegalArgumentType(name, 1, args[1].type);
  if (!args[1].constant) return ArgumentMustBeConstant(name, 1);
  ASSIGN_OR_RETURN(const uint32_t zone, TimeZoneId(ValueToText(*args[1].constant)));
  return WithTimeZone(TypeId::kDateTime, zone);
}

class BestEffortKernel : public ScalarKernel {
 public:
  BestEffortKernel(TypeId result, bool or_zero)
      : result_(result), zone_(TimeZone::Get(TimeZoneOf(result))), or_zero_(or_zero) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    auto out = std::make_shared<Column>(result_);
    out->Resize(rows);
    uint32_t* dst = out->Data<uint32_t>();
    const Operand& text = args[0];
    for (size_t i = 0; i < rows; ++i) {
      const std::string_view s = text.column->StringAt(text.is_constant ? 0 : i);
      if (!BestEffort(s, zone_, &dst[i])) {
        dst[i] = 0;
        if (!or_zero_) {
          return Error(kCannotParseDatetime,
                       absl::StrCat("Cannot read DateTime: unexpected text '", std::string(s), "'"));
        }
      }
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const TypeId result_;
  const TimeZone& zone_;
  const bool or_zero_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileBestEffort(
    std::string_view name, const std::vector<ArgumentInfo>&, TypeId result) {
  return std::make_unique<BestEffortKernel>(result, name == "parseDateTimeBestEffortOrZero");
}

// ---- now, today, yesterday ----

uint32_t NowSeconds() {
  return static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}
void NowRow(const Operand*, size_t, Column* out) { out->Append<uint32_t>(NowSeconds()); }
void TodayRow(const Operand*, size_t, Column* out) {
  out->Append<uint16_t>(static_cast<uint16_t>(NowSeconds() / kSecondsPerDay));
}
void YesterdayRow(const Operand*, size_t, Column* out) {
  out->Append<uint16_t>(static_cast<uint16_t>(NowSeconds() / kSecondsPerDay - 1));
}

constexpr TypeId kDate = TypeId::kDate;
constexpr TypeId kDateTime = TypeId::kDateTime;

}  // namespace

void RegisterDateExtraFunctions(FunctionTable& table) {
  for (const AddFunction& f : kAddFunctions) {
    table.Add({f.name, 2, 2, false, ResolveAdd, CompileAdd});
  }
  table.Add({"dateAdd", 2, 3, true, ResolveAdd, CompileAdd});
  table.Add({"dateSub", 2, 3, true, ResolveAdd, CompileAdd});
  table.AddAlias("date_add", "dateAdd", true);
  table.AddAlias("DATE_ADD", "dateAdd", true);
  table.AddAlias("timestampAdd", "dateAdd", true);
  table.AddAlias("timestamp_add", "dateAdd", true);
  table.AddAlias("date_sub", "dateSub", true);
  table.AddAlias("DATE_SUB", "dateSub", true);
  table.AddAlias("timestampSub", "dateSub", true);
  table.AddAlias("timestamp_sub", "dateSub", true);
  table.Add({"dateDiff", 3, 3, true, ResolveDateDiff, CompileDateDiff});
  table.AddAlias("date_diff", "dateDiff", false);
  table.AddAlias("DATE_DIFF", "dateDiff", false);
  table.AddAlias("timestampDiff", "dateDiff", false);
  table.AddAlias("timestamp_diff", "dateDiff", false);
  table.AddAlias("TIMESTAMP_DIFF", "dateDiff", false);
  table.Add({"formatDateTime", 2, 2, false, ResolveFormatDateTime, CompileFormatDateTime});
  table.AddAlias("DATE_FORMAT", "formatDateTime", true);
  table.Add({"fromUnixTimestamp", 1, 2, false, ResolveFormatDateTime, CompileFormatDateTime});
  table.AddAlias("FROM_UNIXTIME", "fromUnixTimestamp", true);
  AddSimpleFunctions(table, {
      {"now", {}, 0, 0, true, kDateTime, MakeRowKernel<NowRow>},
      {"today", {}, 0, 0, true, kDate, MakeRowKernel<TodayRow>},
      {"yesterday", {}, 0, 0, false, kDate, MakeRowKernel<YesterdayRow>},
      {"toRelativeYearNum", {A::kTime}, 1, 1, false, TypeId::kUInt16,
       MakeRowKernel<RelativeRow<Unit::kYear, uint16_t>>},
      {"toRelativeQuarterNum", {A::kTime}, 1, 1, false, TypeId::kUInt32,
       MakeRowKernel<RelativeRow<Unit::kQuarter, uint32_t>>},
      {"toRelativeMonthNum", {A::kTime}, 1, 1, false, TypeId::kUInt32,
       MakeRowKernel<RelativeRow<Unit::kMonth, uint32_t>>},
      {"toRelativeWeekNum", {A::kTime}, 1, 1, false, TypeId::kUInt32,
       MakeRowKernel<RelativeRow<Unit::kWeek, uint32_t>>},
      {"toRelativeDayNum", {A::kTime}, 1, 1, false, TypeId::kUInt32,
       MakeRowKernel<RelativeRow<Unit::kDay, uint32_t>>},
      {"toRelativeHourNum", {A::kTime}, 1, 1, false, TypeId::kUInt32,
       MakeRowKernel<RelativeRow<Unit::kHour, uint32_t>>},
      {"toRelativeMinuteNum", {A::kTime}, 1, 1, false, TypeId::kUInt32,
       MakeRowKernel<RelativeRow<Unit::kMinute, uint32_t>>},
      {"toRelativeSecondNum", {A::kTime}, 1, 1, false, TypeId::kUInt32,
       MakeRowKernel<RelativeRow<Unit::kSecond, uint32_t>>},
      {"toISOYear", {A::kTime}, 1, 1, false, TypeId::kUInt16, MakeRowKernel<IsoYearRow>},
      {"toISOWeek", {A::kTime}, 1, 1, false, TypeId::kUInt8, MakeRowKernel<IsoWeekRow>},
      {"toWeek", {A::kTime, A::kInt}, 1, 2, false, TypeId::kUInt8, MakeRowKernel<WeekRow>},
      {"toYearWeek", {A::kTime}, 1, 1, false, TypeId::kUInt32, MakeRowKernel<YearWeekRow>},
      {"toStartOfWeek", {A::kTime, A::kInt}, 1, 2, false, kDate, MakeRowKernel<StartOfWeekRow>},
      {"toStartOfISOYear", {A::kTime}, 1, 1, false, kDate, MakeRowKernel<StartOfIsoYearRow>},
      {"toLastDayOfMonth", {A::kTime}, 1, 1, false, kDate, MakeRowKernel<LastDayOfMonthRow>},
      {"toStartOfTenMinutes", {A::kTime}, 1, 1, false, kDateTime,
       MakeRowKernel<StartOfStepRow<600>>},
      {"timeSlot", {A::kTime}, 1, 1, false, kDateTime, MakeRowKernel<StartOfStepRow<1800>>},
      {"toYYYYMMDDhhmmss", {A::kTime}, 1, 1, false, TypeId::kUInt64,
       MakeRowKernel<YyyyMmDdHhMmSsRow>},
      {"monthName", {A::kTime}, 1, 1, true, TypeId::kString, MakeRowKernel<MonthNameRow>},
      {"makeDate", {A::kFloat}, 2, 3, true, kDate, MakeRowKernel<MakeDateRow>},
      {"makeDateTime", {A::kFloat}, 6, 6, true, kDateTime, MakeRowKernel<MakeDateTimeRow>},
  });
  table.Add({"parseDateTimeBestEffort", 1, 2, false, ResolveBestEffort, CompileBestEffort});
  table.Add({"parseDateTimeBestEffortOrZero", 1, 2, false, ResolveBestEffort, CompileBestEffort});
  table.AddAlias("parseDateTime32BestEffort", "parseDateTimeBestEffort", false);
  table.AddAlias("UTCTimestamp", "now", true);
  table.AddAlias("UTC_timestamp", "now", true);
  table.AddAlias("current_timestamp", "now", true);
  table.AddAlias("current_date", "today", true);
  table.AddAlias("curdate", "today", true);
  table.AddAlias("LAST_DAY", "toLastDayOfMonth", true);
}

}  // namespace granite::core
