// Builders of plan expressions (core/plan/expr.h) for tests and the binder:
//   Call("plus", TypeId::kUInt16, {Col(0, TypeId::kUInt8), Lit(uint64_t{1})})
// Lit without a type applies the binder's literal typing (LiteralType); TypedCall asks the
// function registry for the result type.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/types.h"
#include "core/value.h"
#include "core/plan/expr.h"

namespace granite::core {

// Returns the type the binder gives a literal: the smallest UInt type for a non-negative integer,
// the smallest Int type for a negative one, Float64 for a double, String for a string.
TypeId LiteralType(const Value& value);

// Returns a reference to column `index` of the input block.
plan::Expr Col(uint32_t index, TypeId type);

// Returns a reference to lambda parameter `slot` (core/plan/expr.h).
plan::Expr LambdaParameter(uint32_t slot, TypeId type);

// Returns a literal of `type`; without a type, of LiteralType(value).
plan::Expr Lit(const Value& value, TypeId type);
plan::Expr Lit(const Value& value);

// Returns a call with an explicit result type.
plan::Expr Call(std::string_view name, TypeId type, std::vector<plan::Expr> args);

// Returns a call typed by ResolveFunction (literal arguments count as constants; the tuple of
// in(x, tuple(...)) is flattened; a first argument lambda(...) is the lambda of a higher-order
// call, typed by its body). Errors: those of ResolveFunction.
absl::StatusOr<plan::Expr> TypedCall(std::string_view name,
                                           std::vector<plan::Expr> args);

}  // namespace granite::core
