// Internal functions of Enum8 / Enum16 columns (core/enum_type.h), placed in plans by the binder,
// not meant to be written by users (system.functions leaves out names starting with "__"):
//   __enumName(value, 'Enum8(...)') -> String: the name of each value (an enum column as users
//     see it); Nullable and arrays of values give Nullable and arrays of names. A value the enum
//     lacks is UNKNOWN_ELEMENT_OF_ENUM, as ClickHouse reading it.
//   __enumValue(text, 'Enum8(...)') -> Int8 / Int16: the value of each name (or number that is a
//     value); CAST(x AS Enum8(...)) is __enumName(__enumValue(toString(x), ...), ...).
// The definition travels as a constant argument, so a worker needs no table schema to run them.
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/enum_type.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/schema_error_codes.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

absl::StatusOr<EnumType> DefinitionArgument(std::string_view name,
                                            const std::vector<ArgumentInfo>& args) {
  if (!IsString(args[1].type) || IsArray(args[1].type)) {
    return IllegalArgumentType(name, 1, args[1].type);
  }
  if (!args[1].constant) return ArgumentMustBeConstant(name, 1);
  ASSIGN_OR_RETURN(std::optional<EnumType> type, ParseEnumType(ValueToText(*args[1].constant)));
  if (!type) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Function ", ToAbsl(name), " expects an enum type, got ",
                              ToAbsl(ValueToText(*args[1].constant))));
  }
  return *std::move(type);
}

// Returns `type` with its innermost base replaced by `base` (Nullable and array depth kept).
TypeId WithInnermost(TypeId type, TypeId base) {
  if (IsArray(type)) return MakeArray(WithInnermost(ArrayElementOf(type), base));
  return WithNullable(base, IsNullable(type));
}

absl::StatusOr<TypeId> ResolveEnumName(std::string_view name,
                                       const std::vector<ArgumentInfo>& args) {
  ASSIGN_OR_RETURN(EnumType type, DefinitionArgument(name, args));
  if (RemoveNullable(ArrayInnermostOf(args[0].type)) != type.value_type()) {
    return IllegalArgumentType(name, 0, args[0].type);
  }
  return WithInnermost(args[0].type, TypeId::kString);
}

absl::StatusOr<TypeId> ResolveEnumValue(std::string_view name,
                                        const std::vector<ArgumentInfo>& args) {
  ASSIGN_OR_RETURN(EnumType type, DefinitionArgument(name, args));
  if (RemoveNullable(ArrayInnermostOf(args[0].type)) != TypeId::kString) {
    return IllegalArgumentType(name, 0, args[0].type);
  }
  return WithInnermost(args[0].type, type.value_type());
}

class EnumNameKernel : public ScalarKernel {
 public:
  explicit EnumNameKernel(EnumType type) : type_(std::move(type)) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t) const override {
    return EnumNamesOf(*args[0].column, type_);
  }

 private:
  const EnumType type_;
};

class EnumValueKernel : public ScalarKernel {
 public:
  EnumValueKernel(EnumType type, TypeId result) : type_(std::move(type)), result_(result) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t) const override {
    return EnumValuesOf(*args[0].column, result_, type_);
  }

 private:
  const EnumType type_;
  const TypeId result_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileEnumName(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId) {
  ASSIGN_OR_RETURN(EnumType type, DefinitionArgument(name, args));
  return std::make_unique<EnumNameKernel>(std::move(type));
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileEnumValue(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result) {
  ASSIGN_OR_RETURN(EnumType type, DefinitionArgument(name, args));
  return std::make_unique<EnumValueKernel>(std::move(type), result);
}

}  // namespace

void RegisterEnumFunctions(FunctionTable& table) {
  table.Add({"__enumName", 2, 2, false, ResolveEnumName, CompileEnumName,
             /*accepts_arrays=*/true, /*handles_nulls=*/true});
  table.Add({"__enumValue", 2, 2, false, ResolveEnumValue, CompileEnumValue,
             /*accepts_arrays=*/true, /*handles_nulls=*/true});
}

}  // namespace granite::core
