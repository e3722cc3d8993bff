#include "core/aggregation/aggregate_function_factory.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

enum class Kind { kCount, kSum, kAvg, kMin, kMax, kAny, kUniqExact, kUniq };

struct Entry {
  std::string_view lower_name;
  Kind kind;
  std::string_view canonical;
};

constexpr Entry kEntries[] = {
    {"count", Kind::kCount, "count"},         {"sum", Kind::kSum, "sum"},
    {"avg", Kind::kAvg, "avg"},               {"min", Kind::kMin, "min"},
    {"max", Kind::kMax, "max"},               {"any", Kind::kAny, "any"},
    {"uniqexact", Kind::kUniqExact, "uniqExact"},
    {"countdistinct", Kind::kUniqExact, "uniqExact"},
    {"uniq", Kind::kUniq, "uniq"},
};

const Entry* Find(std::string_view name) {
  std::string lower = absl::AsciiStrToLower(ToAbsl(name));
  for (const Entry& entry : kEntries) {
    if (entry.lower_name == lower) return &entry;
  }
  return nullptr;
}

absl::Status CheckArgumentCount(std::string_view name, size_t count, size_t min, size_t max) {
  if (count >= min && count <= max) return absl::OkStatus();
  std::string expected = min == max ? absl::StrCat("exactly ", min)
                                    : absl::StrCat(min, " or ", max);
  return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
               absl::StrCat("Aggregate function ", ToAbsl(name), " requires ", expected,
                            " argument", max == 1 ? "" : "s", ", got ", count));
}

absl::Status IllegalType(std::string_view name, TypeId type) {
  return Error(ErrorCode::kIllegalTypeOfArgument,
               absl::StrCat("Illegal type ", ToAbsl(TypeName(type)),
                            " of argument for aggregate function ", ToAbsl(name)));
}

TypeId SumType(TypeId arg) {
  if (IsDecimal(arg)) return MakeDecimal(kMaxDecimalPrecision, ScaleOf(arg));
  if (IsFloat(arg)) return TypeId::kFloat64;
  return IsSignedInteger(arg) ? TypeId::kInt64 : TypeId::kUInt64;
}

}  // namespace

absl::StatusOr<ResolvedAggregate> ResolveAggregate(std::string_view name,
                                                   const std::vector<TypeId>& arg_types) {
  const Entry* entry = Find(name);
  if (entry == nullptr) {
    return Error(ErrorCode::kUnknownAggregateFunction,
                 absl::StrCat("Unknown aggregate function ", ToAbsl(name)));
  }
  ResolvedAggregate resolved{std::string(entry->canonical), TypeId::kUInt64};
  switch (entry->kind) {
    case Kind::kCount:
      RETURN_IF_ERROR(CheckArgumentCount(name, arg_types.size(), 0, 1));
      return resolved;
    case Kind::kSum:
    case Kind::kAvg: {
      RETURN_IF_ERROR(CheckArgumentCount(name, arg_types.size(), 1, 1));
      TypeId arg = arg_types[0];
      if ((!IsNumeric(arg) && !IsDecimal(arg)) || IsDateOrDateTime(arg)) {
        return IllegalType(name, arg);
      }
      resolved.result_type = entry->kind == Kind::kSum ? SumType(arg) : TypeId::kFloat64;
      return resolved;
    }
    case Kind::kMin:
    case Kind::kMax:
    case Kind::kAny:
      RETURN_IF_ERROR(CheckArgumentCount(name, arg_types.size(), 1, 1));
      resolved.result_type = arg_types[0];
      return resolved;
    case Kind::kUniqExact:
    case Kind::kUniq:
      RETURN_IF_ERROR(CheckArgumentCount(name, arg_types.size(), 1, 1));
      // Their sets hold 64-bit keys; a 128-bit value would be cut.
      if (ValueSize(arg_types[0]) > 8) return IllegalType(name, arg_types[0]);
      return resolved;
  }
  return Error(ErrorCode::kLogicalError, "unreachable aggregate kind");
}

bool IsAggregateFunction(std::string_view name) { return Find(name) != nullptr; }

absl::StatusOr<std::unique_ptr<AggregateFunction>> CreateAggregateFunction(
    const AggregateSpec& spec) {
  RETURN_IF_ERROR(ResolveAggregate(spec.name, spec.arg_types).status());
  TypeId arg = spec.arg_types.empty() ? TypeId::kUInt8 : spec.arg_types[0];
  switch (Find(spec.name)->kind) {
    case Kind::kCount: return MakeCount();
    case Kind::kSum: return MakeSum(arg);
    case Kind::kAvg: return MakeAvg(arg);
    case Kind::kMin: return MakeMin(arg);
    case Kind::kMax: return MakeMax(arg);
    case Kind::kAny: return MakeAny(arg);
    case Kind::kUniqExact:
      if (spec.bitmap_bits > 0 && IsInteger(arg)) {
        return MakeDistinctBitmap(arg, spec.bitmap_base, spec.bitmap_bits);
      }
      return MakeUniqExact(arg);
    case Kind::kUniq: return MakeUniq(arg);
  }
  return Error(ErrorCode::kLogicalError, "unreachable aggregate kind");
}

}  // namespace granite::core
