// Functions of time zones themselves (ClickHouse's names and results):
//   toTimeZone(t, 'tz') (alias toTimezone) -> DateTime('tz') / DateTime64(p, 'tz'): the same
//     instant, written in another zone;
//   timeZoneOf(t) (alias timezoneOf) -> String: the zone of t's type ('UTC' without one, the
//     server's zone);
//   timeZoneOffset(t) (alias timezoneOffset) -> Int32: seconds east of UTC of t's zone at t.
// The calendar functions' zone arguments are time_zone_arguments.h's.
#include <memory>

#include "core/absl_compat.h"
#include "core/functions/cast_column.h"
#include "core/functions/constant_column.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/status_macros.h"
#include "core/time_zone.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

bool IsZonable(TypeId type) { return IsDateTime(type) || IsDateTime64(type); }

absl::StatusOr<TypeId> ResolveToTimeZone(std::string_view name,
                                         const std::vector<ArgumentInfo>& args) {
  if (!IsZonable(args[0].type) || IsArray(args[0].type)) {
    return IllegalArgumentType(name, 0, args[0].type);
  }
  if (!IsString(args[1].type)) return IllegalArgumentType(name, 1, args[1].type);
  if (!args[1].constant) return ArgumentMustBeConstant(name, 1);
  ASSIGN_OR_RETURN(const uint32_t zone, TimeZoneId(ValueToText(*args[1].constant)));
  return WithTimeZone(RemoveNullable(args[0].type), zone);
}

// Relabels argument 0 with the result's zone (CastColumn keeps the values).
class ToTimeZoneKernel : public ScalarKernel {
 public:
  explicit ToTimeZoneKernel(TypeId result) : result_(result) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t) const override {
    return CastColumn(args[0].column, result_);
  }

 private:
  const TypeId result_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileToTimeZone(
    std::string_view, const std::vector<ArgumentInfo>&, TypeId result) {
  return std::make_unique<ToTimeZoneKernel>(result);
}

// timeZoneOf(t) takes DateTime and DateTime64, timeZoneOffset(t) DateTime.
absl::StatusOr<TypeId> ResolveZoneQuery(std::string_view name,
                                        const std::vector<ArgumentInfo>& args) {
  const bool offset = name == "timeZoneOffset";
  const TypeId t = args[0].type;
  if (IsArray(t) || (offset ? !IsDateTime(t) : !IsZonable(t))) {
    return IllegalArgumentType(name, 0, t);
  }
  return offset ? TypeId::kInt32 : TypeId::kString;
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileTimeZoneOf(
    std::string_view, const std::vector<ArgumentInfo>& args, TypeId) {
  const uint32_t zone = TimeZoneOf(args[0].type);
  return StringConstantKernel(zone == kNoTimeZone ? "UTC" : TimeZoneName(zone));
}

class TimeZoneOffsetKernel : public ScalarKernel {
 public:
  explicit TimeZoneOffsetKernel(uint32_t zone) : zone_(TimeZone::Get(zone)) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    const Operand& t = args[0];
    auto out = std::make_shared<Column>(TypeId::kInt32);
    out->Resize(rows);
    int32_t* dst = out->Data<int32_t>();
    for (size_t i = 0; i < rows; ++i) {
      dst[i] = static_cast<int32_t>(
          zone_.OffsetAt(t.column->Get<uint32_t>(t.is_constant ? 0 : i)));
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const TimeZone& zone_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileTimeZoneOffset(
    std::string_view, const std::vector<ArgumentInfo>& args, TypeId) {
  return std::make_unique<TimeZoneOffsetKernel>(TimeZoneOf(args[0].type));
}

}  // namespace

void RegisterTimeZoneFunctions(FunctionTable& table) {
  table.Add({"toTimeZone", 2, 2, false, ResolveToTimeZone, CompileToTimeZone});
  table.AddAlias("toTimezone", "toTimeZone", false);
  table.Add({"timeZoneOf", 1, 1, false, ResolveZoneQuery, CompileTimeZoneOf});
  table.AddAlias("timezoneOf", "timeZoneOf", false);
  table.Add({"timeZoneOffset", 1, 1, false, ResolveZoneQuery, CompileTimeZoneOffset});
  table.AddAlias("timezoneOffset", "timeZoneOffset", false);
}

}  // namespace granite::core
