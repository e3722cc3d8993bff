#include "core/functions/simple_function.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "core/functions/function_errors.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

// The rows of every family, by canonical name. Filled once while the registry initializes.
absl::flat_hash_map<std::string, SimpleFunction>& Functions() {
  static auto* functions = new absl::flat_hash_map<std::string, SimpleFunction>();
  return *functions;
}

Arg ArgOf(const SimpleFunction& f, size_t i) {
  return f.args[std::min(i, f.args.size() - 1)];
}

bool Accepts(Arg arg, TypeId type) {
  switch (arg) {
    case Arg::kFloat: return (IsNumeric(type) && !IsDateOrDateTime(type)) || IsDecimal(type);
    case Arg::kInt:
    case Arg::kUInt:
    case Arg::kCount: return IsInteger(type) && !IsDateOrDateTime(type);
    case Arg::kUInt32:
      return type == TypeId::kUInt8 || type == TypeId::kUInt16 || type == TypeId::kUInt32;
    case Arg::kString: return IsString(type);
    case Arg::kTime: return IsDateOrDateTime(type);
    case Arg::kAny: return true;
    case Arg::kNumber: return IsNumeric(type);
  }
  return false;
}

TypeId TargetOf(Arg arg) {
  switch (arg) {
    case Arg::kFloat:
    case Arg::kNumber:
    case Arg::kCount: return TypeId::kFloat64;
    case Arg::kInt: return TypeId::kInt64;
    case Arg::kUInt:
    case Arg::kUInt32: return TypeId::kUInt64;
    case Arg::kTime: return TypeId::kDateTime;
    case Arg::kString:
    case Arg::kAny: return TypeId::kString;
  }
  return TypeId::kString;
}

absl::StatusOr<TypeId> ResolveSimple(std::string_view name,
                                     const std::vector<ArgumentInfo>& args) {
  const SimpleFunction& f = Functions().at(std::string(name));
  for (size_t i = 0; i < args.size(); ++i) {
    if (!Accepts(ArgOf(f, i), args[i].type)) return IllegalArgumentType(name, i, args[i].type);
  }
  return f.result;
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileSimple(std::string_view name,
                                                            const std::vector<ArgumentInfo>& args,
                                                            TypeId result_type) {
  const SimpleFunction& f = Functions().at(std::string(name));
  std::vector<TypeId> targets;
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg arg = ArgOf(f, i);
    targets.push_back(arg == Arg::kTime && args[i].type == TypeId::kDate ? TypeId::kDate
                                                                          : TargetOf(arg));
  }
  ASSIGN_OR_RETURN(OperandCaster caster, OperandCaster::Create(args, targets));
  return f.make(std::move(caster), result_type);
}

}  // namespace

void AddSimpleFunctions(FunctionTable& table, const std::vector<SimpleFunction>& functions) {
  for (const SimpleFunction& f : functions) {
    Functions()[std::string(f.name)] = f;
    table.Add({f.name, f.min_args, f.max_args, f.case_insensitive, ResolveSimple, CompileSimple});
  }
}

}  // namespace granite::core
