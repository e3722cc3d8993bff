// SelectBinder's lowering of Enum8 / Enum16 columns (core/enum_type.h). An enum column is read
// as its values (Int8 / Int16) and bound as __enumName(values, 'Enum8(...)'): selected, cast to
// String or grouped, it shows its names, as in ClickHouse. The calls below see through that
// wrapper and work on the values instead:
//   comparisons (=, !=, <, >, <=, >=) and IN with names compare values: each name becomes its
//     value here, once per query (an unknown name, as ClickHouse answers: != is
//     UNKNOWN_ELEMENT_OF_ENUM, the other comparisons are false, IN ignores it); with numbers
//     they compare values too;
//   CAST(e AS <number>), toInt8(e), ... give the value;
//   min, max, any, anyLast, argMin, argMax pick by value and show the name (select_binder.cc);
//   GROUP BY / DISTINCT keys are the values, mapped to names after aggregation; ORDER BY sorts by
//     value (binder.cc through EnumValuesOrSelf).
// CAST(x AS Enum8(...)) is __enumName(__enumValue(x as text, ...), ...): it checks the names.
// Workers need no definition: it travels as the functions' constant argument.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "coordinator/planner/select_binder.h"
#include "core/absl_compat.h"
#include "core/enum_type.h"
#include "core/functions/expr_builder.h"
#include "core/schema_error_codes.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::coordinator {

using core::TypeId;
using core::plan::Expr;

namespace {

constexpr std::string_view kEnumName = "__enumName";

bool IsEnumNames(const Expr& e) { return e.IsCall(kEnumName) && e.args.size() == 2; }

// The definition of an __enumName call.
absl::StatusOr<core::EnumType> DefinitionOf(const Expr& names) {
  ASSIGN_OR_RETURN(std::optional<core::EnumType> type,
                   core::ParseEnumType(core::ValueToText(names.args[1].literal)));
  if (!type) return core::Error(core::ErrorCode::kLogicalError, "__enumName without an enum");
  return *std::move(type);
}

bool IsNullLiteral(const Expr& e) {
  return e.is_literal() && core::RemoveNullable(e.type) == TypeId::kNothing;
}

// Returns the literal a name or number compares with as a value of `type`, or nullopt for a
// name the enum lacks. A number stays as it is (compared as a number, like ClickHouse).
std::optional<Expr> ValueLiteral(const Expr& literal, const core::EnumType& type) {
  const std::string* text = std::get_if<std::string>(&literal.literal);
  if (text == nullptr) return literal;
  std::optional<int16_t> value = type.ValueOf(*text);
  if (!value) return std::nullopt;
  return core::Lit(core::Value(int64_t{*value}), type.value_type());
}

absl::Status UnknownName(const Expr& literal, const core::EnumType& type) {
  return core::Error(core::kUnknownElementOfEnum,
                     absl::StrCat("Unknown element '", core::ToAbsl(core::ValueToText(literal.literal)),
                                  "' for enum ", type.Name()));
}

bool IsNumberConversion(const std::string& name) {
  for (std::string_view prefix : {"toInt", "toUInt", "toFloat", "toDecimal"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace

const Expr& EnumValuesOrSelf(const Expr& e) { return IsEnumNames(e) ? e.args[0] : e; }

absl::StatusOr<Expr> SelectBinder::EnumNames(Expr values, const core::EnumType& type) const {
  std::vector<Expr> args;
  args.push_back(std::move(values));
  args.push_back(core::Lit(core::Value(type.Name()), TypeId::kString));
  return core::TypedCall(kEnumName, std::move(args));
}

absl::StatusOr<std::unique_ptr<Expr>> SelectBinder::LowerEnumCallBoxed(
    const std::string& name, std::vector<Expr>* args, std::vector<core::ArgumentInfo>* infos) {
  ASSIGN_OR_RETURN(std::optional<Expr> decided, LowerEnumCall(name, args, infos));
  if (!decided) return nullptr;
  return std::make_unique<Expr>(*std::move(decided));
}

absl::StatusOr<std::optional<Expr>> SelectBinder::LowerEnumCall(
    const std::string& name, std::vector<Expr>* args, std::vector<core::ArgumentInfo>* infos) {
  static constexpr std::string_view kComparisons[] = {
      "equals", "notEquals", "less", "greater", "lessOrEquals", "greaterOrEquals"};
  const bool comparison =
      std::find(std::begin(kComparisons), std::end(kComparisons), name) != std::end(kComparisons);
  if (comparison && args->size() == 2) {
    for (size_t side = 0; side < 2; ++side) {
      Expr& self = (*args)[side];
      Expr& other = (*args)[1 - side];
      if (!IsEnumNames(self)) continue;
      if (IsEnumNames(other) && other.args[1] == self.args[1]) {  // one enum: compare values
        self = Expr(self.args[0]);
        other = Expr(other.args[0]);
        (*infos)[0] = {(*args)[0].type, std::nullopt};
        (*infos)[1] = {(*args)[1].type, std::nullopt};
        return std::nullopt;
      }
      if (!other.is_literal() || IsNullLiteral(other)) return std::nullopt;
      ASSIGN_OR_RETURN(core::EnumType type, DefinitionOf(self));
      std::optional<Expr> value = ValueLiteral(other, type);
      if (!value) {
        // As ClickHouse answers: != fails to convert the name, the others are false.
        if (name == "notEquals") return UnknownName(other, type);
        return core::Lit(core::Value(uint64_t{0}), TypeId::kUInt8);
      }
      self = Expr(self.args[0]);
      other = *std::move(value);
      (*infos)[side] = {self.type, std::nullopt};
      (*infos)[1 - side] = {other.type, other.literal};
      return std::nullopt;
    }
    return std::nullopt;
  }
  const bool in = name == "in" || name == "notIn" || name == "globalIn" || name == "globalNotIn";
  if (in && args->size() == 2 && IsEnumNames((*args)[0]) && (*args)[1].IsCall("tuple")) {
    ASSIGN_OR_RETURN(core::EnumType type, DefinitionOf((*args)[0]));
    Expr values = Expr((*args)[0].args[0]);
    Expr tuple = core::Call("tuple", values.type, {});
    std::vector<core::ArgumentInfo> lowered = {{values.type, std::nullopt}};
    for (const Expr& element : (*args)[1].args) {
      std::optional<Expr> value = IsNullLiteral(element) ? element : ValueLiteral(element, type);
      if (!value) continue;  // a name the enum lacks matches no row
      lowered.push_back({value->type, value->literal});
      tuple.args.push_back(*std::move(value));
    }
    if (tuple.args.empty()) {
      const bool negated = name == "notIn" || name == "globalNotIn";
      return core::Lit(core::Value(uint64_t{negated ? 1u : 0u}), TypeId::kUInt8);
    }
    (*args)[0] = std::move(values);
    (*args)[1] = std::move(tuple);
    *infos = std::move(lowered);
    return std::nullopt;
  }
  const bool cast = (name == "CAST" || name == "_CAST") && args->size() == 2 &&
                    (*args)[1].is_literal() &&
                    std::holds_alternative<std::string>((*args)[1].literal);
  if (cast) {
    const std::string& target = std::get<std::string>((*args)[1].literal);
    ASSIGN_OR_RETURN(std::optional<core::EnumColumnType> to_enum, core::ParseEnumColumnType(target));
    if (to_enum) {
      if (core::IsArray(to_enum->type) || core::IsArray((*args)[0].type)) {
        return core::Error(core::ErrorCode::kNotImplemented,
                           "CAST to an array of enums is not supported yet: " + target);
      }
      Expr text = (*args)[0];  // an enum gives its names: enum to enum maps by name
      if (!core::IsString(text.type)) {
        const TypeId string_type =
            core::WithNullable(TypeId::kString, core::IsNullable(text.type));
        std::vector<Expr> inner;
        inner.push_back(std::move(text));
        text = core::Call("toString", string_type, std::move(inner));
      }
      std::vector<Expr> value_args;
      value_args.push_back(std::move(text));
      value_args.push_back(core::Lit(core::Value(to_enum->enum_type.Name()), TypeId::kString));
      ASSIGN_OR_RETURN(Expr values, core::TypedCall("__enumValue", std::move(value_args)));
      if (core::IsNullable(to_enum->type) && !core::IsNullable(values.type)) {
        std::vector<Expr> inner;
        inner.push_back(std::move(values));
        inner.push_back(core::Lit(core::Value(std::string(core::TypeName(to_enum->type))),
                                  TypeId::kString));
        values = core::Call("CAST", to_enum->type, std::move(inner));
      }
      ASSIGN_OR_RETURN(Expr names, EnumNames(std::move(values), to_enum->enum_type));
      return names;
    }
    if (IsEnumNames((*args)[0])) {
      absl::StatusOr<TypeId> type = core::ParseType(target);
      if (type.ok() && !core::IsString(*type) && !core::IsFixedString(*type)) {
        (*args)[0] = Expr((*args)[0].args[0]);
        (*infos)[0] = {(*args)[0].type, std::nullopt};
      }
    }
    return std::nullopt;
  }
  if (IsNumberConversion(name) && !args->empty() && IsEnumNames((*args)[0])) {
    (*args)[0] = Expr((*args)[0].args[0]);
    (*infos)[0] = {(*args)[0].type, std::nullopt};
  }
  return std::nullopt;
}

}  // namespace granite::coordinator
