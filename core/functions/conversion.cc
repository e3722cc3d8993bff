// Type conversions: CAST(x, 'T'), toUInt8 ... toUInt64, toInt8 ... toInt64, toFloat32,
// toFloat64, toString, toDate, toDateTime, toUnixTimestamp, toDecimal32/64/128(x, S). Semantics are CastColumn's
// (cast_column.h); an unparsable string fails with kCannotParseText naming the value.
// Time zones (ClickHouse's): toDateTime(x, 'tz') -> DateTime('tz') (text read as that zone's wall
// clock; a zoned date-time keeps its zone without the argument); toString(t, 'tz') writes t in
// that zone; toDate(t, 'tz') is t's local day; toUnixTimestamp(text, 'tz') reads the text in it.
// toUnixTimestamp of a number is toUInt32 of it (wrapping), of a Date its midnight.
// TimeZoneConversion is the zoned type a value passes through.
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/functions/cast_column.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/status_macros.h"
#include "core/time_zone.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

struct NamedConversion {
  std::string_view name;
  TypeId type;
};

constexpr NamedConversion kConversions[] = {
    {"toUInt8", TypeId::kUInt8},     {"toUInt16", TypeId::kUInt16},
    {"toUInt32", TypeId::kUInt32},   {"toUInt64", TypeId::kUInt64},
    {"toInt8", TypeId::kInt8},       {"toInt16", TypeId::kInt16},
    {"toInt32", TypeId::kInt32},     {"toInt64", TypeId::kInt64},
    {"toFloat32", TypeId::kFloat32}, {"toFloat64", TypeId::kFloat64},
    {"toString", TypeId::kString},   {"toDate", TypeId::kDate},
    {"toDateTime", TypeId::kDateTime},
};

// Returns the zone a conversion's second argument names, or kNoTimeZone without one.
absl::StatusOr<uint32_t> ZoneArgument(std::string_view name, const std::vector<ArgumentInfo>& args) {
  if (args.size() < 2) return kNoTimeZone;
  if (!IsString(args[1].type)) return IllegalArgumentType(name, 1, args[1].type);
  if (!args[1].constant) return ArgumentMustBeConstant(name, 1);
  return TimeZoneId(ValueToText(*args[1].constant));
}

// Returns the type argument 0 passes through before the conversion (kNothing: none): the
// zoned date-time of toString(t, 'tz'), toDate(t, 'tz') and toUnixTimestamp(text, 'tz').
absl::StatusOr<TypeId> TimeZoneConversion(std::string_view name,
                                          const std::vector<ArgumentInfo>& args) {
  ASSIGN_OR_RETURN(const uint32_t zone, ZoneArgument(name, args));
  if (zone == kNoTimeZone || name == "toDateTime") return TypeId::kNothing;
  const TypeId from = RemoveNullable(args[0].type);
  if (IsDateTime(from) || IsDateTime64(from)) return WithTimeZone(from, zone);
  if (IsString(from) && name != "toString") return WithTimeZone(TypeId::kDateTime, zone);
  return IllegalArgumentType(name, 0, args[0].type);
}

absl::StatusOr<TypeId> ResolveNamedConversion(std::string_view name,
                                              const std::vector<ArgumentInfo>& args) {
  RETURN_IF_ERROR(TimeZoneConversion(name, args).status());
  if (name == "toUnixTimestamp") {
    // A number is already seconds: converted as toUInt32 converts it (wrapping), as ClickHouse.
    if (!IsNumeric(args[0].type) && !IsString(args[0].type)) {
      return IllegalArgumentType(name, 0, args[0].type);
    }
    return TypeId::kUInt32;
  }
  if (name == "toDateTime") {
    ASSIGN_OR_RETURN(const uint32_t zone, ZoneArgument(name, args));
    if (zone != kNoTimeZone) return WithTimeZone(TypeId::kDateTime, zone);
    return WithTimeZone(TypeId::kDateTime, TimeZoneOf(args[0].type));
  }
  if (args.size() > 1 && name != "toString" && name != "toDate") {
    return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                 absl::StrCat("Number of arguments for function ", ToAbsl(name),
                              " doesn't match: passed ", args.size(), ", should be 1"));
  }
  for (const NamedConversion& conversion : kConversions) {
    if (conversion.name == name) return conversion.type;
  }
  return Error(ErrorCode::kLogicalError, "Unhandled conversion function");
}

// toDecimal32(x, S), toDecimal64(x, S), toDecimal128(x, S): Decimal(9 / 18 / 38, S).
absl::StatusOr<TypeId> ResolveToDecimal(std::string_view name,
                                        const std::vector<ArgumentInfo>& args) {
  const int precision = name == "toDecimal32" ? 9 : name == "toDecimal64" ? 18 : 38;
  if (!IsInteger(args[1].type) || IsDateOrDateTime(args[1].type)) {
    return IllegalArgumentType(name, 1, args[1].type);
  }
  if (!args[1].constant) return ArgumentMustBeConstant(name, 1);
  const Value& scale_value = *args[1].constant;
  int64_t scale = -1;
  if (const auto* i = std::get_if<int64_t>(&scale_value)) scale = *i;
  if (const auto* u = std::get_if<uint64_t>(&scale_value)) scale = *u > 1000 ? 1000 : *u;
  if (scale < 0 || scale > precision) {
    return Error(ErrorCode::kArgumentOutOfBound,
                 absl::StrCat("Scale ", scale, " is out of bounds (max scale: ", precision, ")"));
  }
  if (!IsNumeric(args[0].type) && !IsDecimal(args[0].type) && !IsString(args[0].type)) {
    return IllegalArgumentType(name, 0, args[0].type);
  }
  return MakeDecimal(precision, static_cast<int>(scale));
}

absl::StatusOr<TypeId> ResolveCast(std::string_view name, const std::vector<ArgumentInfo>& args) {
  if (!IsString(args[1].type)) return IllegalArgumentType(name, 1, args[1].type);
  if (!args[1].constant) return ArgumentMustBeConstant(name, 1);
  return ParseType(ValueToText(*args[1].constant));
}

// Converts argument 0 through `via` (when set) to `to`.
class CastKernel : public ScalarKernel {
 public:
  CastKernel(TypeId to, std::optional<TypeId> via) : to_(to), via_(via) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    ColumnPtr column = args[0].column;
    if (via_) {
      ASSIGN_OR_RETURN(column, CastColumn(column, *via_));
    }
    return CastColumn(column, to_);
  }

 private:
  const TypeId to_;
  const std::optional<TypeId> via_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileConversion(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  std::optional<TypeId> via;
  if (name == "toUnixTimestamp" && (IsDateOrDateTime(args[0].type) || IsString(args[0].type))) {
    via = TypeId::kDateTime;
  }
  if (name != "CAST" && !absl::StartsWith(ToAbsl(name), "toDecimal")) {
    ASSIGN_OR_RETURN(const TypeId zoned, TimeZoneConversion(name, args));
    if (zoned != TypeId::kNothing) via = zoned;
  }
  return std::make_unique<CastKernel>(result_type, via);
}

}  // namespace

void RegisterConversionFunctions(FunctionTable& table) {
  table.Add({"CAST", 2, 2, true, ResolveCast, CompileConversion, /*accepts_arrays=*/true});
  for (const NamedConversion& conversion : kConversions) {
    // toString([1, 2]) is '[1,2]'; the other conversions refuse arrays.
    // toString, toDate and toDateTime take a zone as a second argument.
    const bool zoned = conversion.type == TypeId::kString || conversion.type == TypeId::kDate ||
                       conversion.type == TypeId::kDateTime;
    table.Add({conversion.name, 1, zoned ? 2 : 1, false, ResolveNamedConversion,
               CompileConversion, conversion.type == TypeId::kString});
  }
  table.Add({"toUnixTimestamp", 1, 2, false, ResolveNamedConversion, CompileConversion});
  for (std::string_view name : {"toDecimal32", "toDecimal64", "toDecimal128"}) {
    table.Add({name, 2, 2, false, ResolveToDecimal, CompileConversion});
  }
}

}  // namespace granite::core
