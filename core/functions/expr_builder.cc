#include "core/functions/expr_builder.h"

#include <string>

#include "core/functions/function_registry.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

ArgumentInfo InfoOf(const plan::Expr& e) {
  // A lambda stands for its values over the arrays' elements (ArgumentInfo::lambda).
  if (e.IsCall("lambda")) {
    ArgumentInfo info{MakeArray(e.type), std::nullopt};
    info.lambda = true;
    return info;
  }
  ArgumentInfo info{e.type, std::nullopt};
  if (e.is_literal()) info.constant = e.literal;
  if (e.is_set()) info.set = e.set;
  return info;
}

}  // namespace

TypeId LiteralType(const Value& value) {
  if (const auto* u = std::get_if<uint64_t>(&value)) {
    if (*u <= UINT8_MAX) return TypeId::kUInt8;
    if (*u <= UINT16_MAX) return TypeId::kUInt16;
    if (*u <= UINT32_MAX) return TypeId::kUInt32;
    return TypeId::kUInt64;
  }
  if (const auto* i = std::get_if<int64_t>(&value)) {
    if (*i >= 0) return LiteralType(Value(static_cast<uint64_t>(*i)));
    if (*i >= INT8_MIN) return TypeId::kInt8;
    if (*i >= INT16_MIN) return TypeId::kInt16;
    if (*i >= INT32_MIN) return TypeId::kInt32;
    return TypeId::kInt64;
  }
  if (std::holds_alternative<double>(value)) return TypeId::kFloat64;
  return TypeId::kString;
}

plan::Expr Col(uint32_t index, TypeId type) {
  plan::Expr e;
  e.kind = plan::Expr::Kind::kColumn;
  e.type = type;
  e.column = index;
  return e;
}

plan::Expr LambdaParameter(uint32_t slot, TypeId type) {
  plan::Expr e = Col(slot, type);  // the slot rides in `column`
  e.kind = plan::Expr::Kind::kLambdaParameter;
  return e;
}

plan::Expr Lit(const Value& value, TypeId type) {
  plan::Expr e;
  e.kind = plan::Expr::Kind::kLiteral;
  e.type = type;
  e.literal = value;
  return e;
}

plan::Expr Lit(const Value& value) { return Lit(value, LiteralType(value)); }

plan::Expr Call(std::string_view name, TypeId type, std::vector<plan::Expr> args) {
  plan::Expr e;
  e.kind = plan::Expr::Kind::kCall;
  e.type = type;
  e.function = std::string(name);
  e.args = std::move(args);
  return e;
}

absl::StatusOr<plan::Expr> TypedCall(std::string_view name, std::vector<plan::Expr> args) {
  std::vector<ArgumentInfo> infos;
  for (size_t i = 0; i < args.size(); ++i) {
    const plan::Expr& arg = args[i];
    const bool tuple = (name == "in" || name == "notIn") && i == 1 && arg.IsCall("tuple");
    if (tuple) {
      for (const plan::Expr& element : arg.args) infos.push_back(InfoOf(element));
    } else {
      infos.push_back(InfoOf(arg));
    }
  }
  ASSIGN_OR_RETURN(ResolvedFunction resolved, ResolveFunction(name, infos));
  return Call(resolved.name, resolved.result_type, std::move(args));
}

}  // namespace granite::core
