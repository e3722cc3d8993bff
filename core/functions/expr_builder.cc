#include "core/functions/expr_builder.h"

#include <string>

#include "core/functions/function_registry.h"
#include "core/status_macros.h"

namespace granite::core {
namespace pb = ::granite::worker::v1;
namespace {

Value ValueOf(const pb::Value& v) {
  switch (v.kind_case()) {
    case pb::Value::kIntValue: return v.int_value();
    case pb::Value::kUintValue: return v.uint_value();
    case pb::Value::kFloatValue: return v.float_value();
    default: return v.string_value();
  }
}

ArgumentInfo InfoOf(const pb::Expr& e) {
  ArgumentInfo info{static_cast<TypeId>(e.type()), std::nullopt};
  if (e.node_case() == pb::Expr::kLiteral) info.constant = ValueOf(e.literal());
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

pb::Expr Col(uint32_t index, TypeId type) {
  pb::Expr e;
  e.set_type(static_cast<uint32_t>(type));
  e.set_column(index);
  return e;
}

pb::Expr Lit(const Value& value, TypeId type) {
  pb::Expr e;
  e.set_type(static_cast<uint32_t>(type));
  pb::Value* v = e.mutable_literal();
  if (const auto* i = std::get_if<int64_t>(&value)) v->set_int_value(*i);
  if (const auto* u = std::get_if<uint64_t>(&value)) v->set_uint_value(*u);
  if (const auto* d = std::get_if<double>(&value)) v->set_float_value(*d);
  if (const auto* s = std::get_if<std::string>(&value)) v->set_string_value(*s);
  return e;
}

pb::Expr Lit(const Value& value) { return Lit(value, LiteralType(value)); }

pb::Expr Call(std::string_view name, TypeId type, std::vector<pb::Expr> args) {
  pb::Expr e;
  e.set_type(static_cast<uint32_t>(type));
  pb::FunctionCall* call = e.mutable_call();
  call->set_name(std::string(name));
  for (pb::Expr& arg : args) *call->add_args() = std::move(arg);
  return e;
}

absl::StatusOr<pb::Expr> TypedCall(std::string_view name, std::vector<pb::Expr> args) {
  std::vector<ArgumentInfo> infos;
  for (size_t i = 0; i < args.size(); ++i) {
    const pb::Expr& arg = args[i];
    const bool tuple = (name == "in" || name == "notIn") && i == 1 &&
                       arg.node_case() == pb::Expr::kCall && arg.call().name() == "tuple";
    if (tuple) {
      for (const pb::Expr& element : arg.call().args()) infos.push_back(InfoOf(element));
    } else {
      infos.push_back(InfoOf(arg));
    }
  }
  ASSIGN_OR_RETURN(ResolvedFunction resolved, ResolveFunction(name, infos));
  return Call(resolved.name, resolved.result_type, std::move(args));
}

}  // namespace granite::core
