#include "core/functions/function_registry.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "core/functions/constant_column.h"
#include "core/functions/date_time64_arguments.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/functions/null_functions.h"
#include "core/functions/time_zone_arguments.h"

namespace granite::core {
namespace {

std::string Lower(std::string_view s) { return absl::AsciiStrToLower(ToAbsl(s)); }

const FunctionTable& Table() {
  static const FunctionTable* table = [] {
    auto* t = new FunctionTable();
    RegisterArithmeticFunctions(*t);
    RegisterRoundingFunctions(*t);
    RegisterComparisonFunctions(*t);
    RegisterLogicalFunctions(*t);
    RegisterConstantFunctions(*t);
    RegisterDefaultValueFunctions(*t);
    RegisterInFunctions(*t);
    RegisterLikeFunctions(*t);
    RegisterConditionalFunctions(*t);
    RegisterConversionFunctions(*t);
    RegisterDateFunctions(*t);
    RegisterStringFunctions(*t);
    RegisterRegexpFunctions(*t);
    RegisterMathFunctions(*t);
    RegisterStringExtraFunctions(*t);
    RegisterUrlFunctions(*t);
    RegisterHashFunctions(*t);
    RegisterDateExtraFunctions(*t);
    RegisterTimeZoneFunctions(*t);
    RegisterJsonFunctions(*t);
    RegisterMiscFunctions(*t);
    RegisterExtendedTypeFunctions(*t);
    RegisterEnumFunctions(*t);
    RegisterArrayFunctions(*t);
    RegisterArrayTransformFunctions(*t);
    RegisterHigherOrderFunctions(*t);
    RegisterNullFunctions(*t);
    return t;
  }();
  return *table;
}

const FunctionTable& ArrayOverloads() {
  static const FunctionTable* table = [] {
    auto* t = new FunctionTable();
    RegisterArrayOverloads(*t);
    return t;
  }();
  return *table;
}

std::string ExpectedCount(const FunctionDef& def) {
  if (def.max_args == kVariadic) return absl::StrCat("at least ", def.min_args);
  if (def.min_args == def.max_args) return absl::StrCat(def.min_args);
  return absl::StrCat(def.min_args, " to ", def.max_args);
}

absl::StatusOr<const FunctionDef*> Lookup(std::string_view name,
                                          const std::vector<ArgumentInfo>& args) {
  int array_arg = -1;
  for (size_t i = 0; i < args.size() && array_arg < 0; ++i) {
    if (IsArray(args[i].type)) array_arg = static_cast<int>(i);
  }
  const FunctionDef* def = array_arg >= 0 ? ArrayOverloads().Find(name) : nullptr;
  if (def == nullptr) def = Table().Find(name);
  if (def == nullptr) {
    return Error(ErrorCode::kUnknownFunction, absl::StrCat("Unknown function ", ToAbsl(name)));
  }
  if (!args.empty() && args[0].lambda) {
    if (!def->takes_lambda) {
      return Error(ErrorCode::kIllegalTypeOfArgument,
                   absl::StrCat("Function ", ToAbsl(def->name),
                                " can't have lambda-expressions as arguments"));
    }
    return def;  // its resolve checks the arrays after the lambda
  }
  int n = static_cast<int>(args.size());
  if (n < def->min_args || (def->max_args != kVariadic && n > def->max_args)) {
    return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                 absl::StrCat("Number of arguments for function ", ToAbsl(def->name),
                              " doesn't match: passed ", n, ", should be ", ExpectedCount(*def)));
  }
  if (array_arg >= 0 && !def->accepts_arrays) {
    return IllegalArgumentType(def->name, array_arg, args[array_arg].type);
  }
  return def;
}

// Returns `args` with every constant in canonical form for its type (int64_t for signed types,
// uint64_t for unsigned and dates, double for floats, std::string for String), so that the
// functions can rely on the alternative. Errors: a constant that does not fit its type.
absl::StatusOr<std::vector<ArgumentInfo>> Canonical(const std::vector<ArgumentInfo>& args) {
  std::vector<ArgumentInfo> out = args;
  for (ArgumentInfo& arg : out) {
    if (!arg.constant) continue;
    ASSIGN_OR_RETURN(ColumnPtr column, MakeConstantColumn(*arg.constant, arg.type));
    arg.constant = ValueAt(*column, 0);
  }
  return out;
}

}  // namespace

void FunctionTable::Add(const FunctionDef& def) {
  defs_.push_back(std::make_unique<FunctionDef>(def));
  const FunctionDef* stored = defs_.back().get();
  exact_[std::string(def.name)] = stored;
  if (def.case_insensitive) lowercase_[Lower(def.name)] = stored;
}

void FunctionTable::AddAlias(std::string_view alias, std::string_view canonical,
                             bool case_insensitive) {
  auto it = exact_.find(std::string(canonical));
  if (it == exact_.end()) return;  // a registration bug; caught by the registry tests
  // Copy the definition first: inserting the alias may rehash exact_ and invalidate `it`.
  const FunctionDef* def = it->second;
  exact_[std::string(alias)] = def;
  aliases_.push_back({std::string(alias), case_insensitive, std::string(def->name)});
  if (case_insensitive) lowercase_[Lower(alias)] = def;
}

const FunctionDef* FunctionTable::Find(std::string_view name) const {
  if (auto it = exact_.find(std::string(name)); it != exact_.end()) return it->second;
  if (auto it = lowercase_.find(Lower(name)); it != lowercase_.end()) return it->second;
  return nullptr;
}

std::vector<FunctionListing> FunctionTable::List() const {
  std::vector<FunctionListing> out;
  out.reserve(defs_.size() + aliases_.size());
  for (const auto& def : defs_) out.push_back({std::string(def->name), def->case_insensitive, ""});
  out.insert(out.end(), aliases_.begin(), aliases_.end());
  return out;
}

std::vector<FunctionListing> ListScalarFunctions() { return Table().List(); }

absl::StatusOr<ResolvedFunction> ResolveFunction(std::string_view name,
                                                 const std::vector<ArgumentInfo>& written) {
  // A calendar function's zone argument is taken off first (time_zone_arguments.h).
  std::vector<ArgumentInfo> args = written;
  ASSIGN_OR_RETURN(TimeZoneCall zones, StripZoneArgument(name, &args));
  ASSIGN_OR_RETURN(const FunctionDef* def, Lookup(name, args));
  ASSIGN_OR_RETURN(std::vector<ArgumentInfo> canonical, Canonical(MarkNullArguments(args)));
  std::vector<TypeId> casts;
  RETURN_IF_ERROR(AdaptDateTime64Arguments(def->name, &canonical, &casts).status());
  AdaptTimeZones(def->name, &canonical, &zones);
  ASSIGN_OR_RETURN(TypeId type, NeedsNullHandling(*def, canonical)
                                    ? ResolveWithNulls(*def, canonical)
                                    : def->resolve(def->name, canonical));
  return ResolvedFunction{std::string(def->name), ZonedResult(zones, type)};
}

absl::Status CheckTakesLambda(std::string_view name) {
  ArgumentInfo lambda{TypeId::kUInt8, std::nullopt};
  lambda.lambda = true;
  return Lookup(name, {lambda}).status();
}

bool IsScalarFunction(std::string_view name) { return Table().Find(name) != nullptr; }

absl::StatusOr<CompiledFunction> CompileFunction(std::string_view name,
                                                 const std::vector<ArgumentInfo>& written) {
  std::vector<ArgumentInfo> args = written;
  ASSIGN_OR_RETURN(TimeZoneCall zones, StripZoneArgument(name, &args));
  ASSIGN_OR_RETURN(const FunctionDef* def, Lookup(name, args));
  ASSIGN_OR_RETURN(std::vector<ArgumentInfo> canonical, Canonical(MarkNullArguments(args)));
  // DateTime64 arguments of DateTime functions run as DateTime (date_time64_arguments.h).
  std::vector<TypeId> casts;
  ASSIGN_OR_RETURN(const bool adapted, AdaptDateTime64Arguments(def->name, &canonical, &casts));
  // Then zoned DateTime arguments as local wall-clock seconds (time_zone_arguments.h).
  AdaptTimeZones(def->name, &canonical, &zones);
  TypeId type;
  std::unique_ptr<ScalarKernel> kernel;
  if (NeedsNullHandling(*def, canonical)) {
    ASSIGN_OR_RETURN(type, ResolveWithNulls(*def, canonical));
    ASSIGN_OR_RETURN(kernel, CompileWithNulls(*def, canonical, type));
  } else {
    ASSIGN_OR_RETURN(type, def->resolve(def->name, canonical));
    ASSIGN_OR_RETURN(kernel, def->compile(def->name, canonical, type));
  }
  if (zones.Active()) kernel = TimeZoneKernel(std::move(kernel), zones, type);
  if (adapted) kernel = CastArgumentsKernel(std::move(kernel), std::move(casts));
  return CompiledFunction{ResolvedFunction{std::string(def->name), ZonedResult(zones, type)},
                          std::move(kernel)};
}

}  // namespace granite::core
