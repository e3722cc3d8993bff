#include "coordinator/planner/tuple_lowering.h"

#include <charconv>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "core/compound_column.h"
#include "core/error.h"
#include "coordinator/planner/array_of_tuples_lowering.h"
#include "coordinator/sql/ast_build.h"

namespace granite::coordinator {
namespace {

using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;

ExprPtr Compare(const std::string& name, const ExprPtr& left, const ExprPtr& right) {
  return sql::MakeCall(name, {left, right});
}

bool IsNullLiteral(const Expr& e) { return e.kind == ExprKind::kLiteral && e.is_null; }

// The lexicographic comparison from element `i` on: `strict` is less / greater, `last` the
// comparison of the final elements (strict, or its OrEquals form).
ExprPtr Lexicographic(const std::vector<ExprPtr>& left, const std::vector<ExprPtr>& right,
                      size_t i, const std::string& strict, const std::string& last) {
  if (i + 1 == left.size()) return Compare(last, left[i], right[i]);
  return sql::MakeCall(
      "or", {Compare(strict, left[i], right[i]),
             sql::MakeCall("and", {Compare("equals", left[i], right[i]),
                                   Lexicographic(left, right, i + 1, strict, last)})});
}

}  // namespace

bool IsMapCall(const Expr& e) {
  return e.kind == ExprKind::kFunction && !e.over && e.args.size() == 2 &&
         absl::EqualsIgnoreCase(e.name, "mapFromArrays");
}

bool IsArrayZipCall(const Expr& e) {
  return e.kind == ExprKind::kFunction && !e.over && !e.args.empty() &&
         absl::EqualsIgnoreCase(e.name, "arrayZip");
}

bool IsTupleCall(const Expr& e) {
  if (IsMapCall(e) || IsArrayZipCall(e)) return true;
  return e.kind == ExprKind::kFunction && !e.over && absl::EqualsIgnoreCase(e.name, "tuple");
}

std::string CompoundCallName(const core::CompoundLayout& layout) {
  return layout.map ? "mapFromArrays" : layout.array ? "arrayZip" : "tuple";
}

bool IsComparisonName(const std::string& name) {
  return name == "equals" || name == "notEquals" || name == "less" || name == "lessOrEquals" ||
         name == "greater" || name == "greaterOrEquals";
}

absl::StatusOr<ExprPtr> LowerTupleComparison(const std::string& name, const Expr& left,
                                             const Expr& right, size_t position) {
  if (left.args.size() != right.args.size()) {
    return core::Error(core::ErrorCode::kIllegalTypeOfArgument,
                       "Illegal types of arguments (tuples of " +
                           std::to_string(left.args.size()) + " and " +
                           std::to_string(right.args.size()) + " elements) of function " + name +
                           " (at position " + std::to_string(position + 1) + ")");
  }
  const bool equality = name == "equals" || name == "notEquals";
  if (left.args.empty()) {
    const bool value = name == "equals" || name == "lessOrEquals" || name == "greaterOrEquals";
    return sql::MakeFlag(value, position);
  }
  for (size_t i = 0; i < left.args.size(); ++i) {
    if (IsNullLiteral(*left.args[i]) || IsNullLiteral(*right.args[i])) {
      auto null = std::make_shared<Expr>();
      null->kind = ExprKind::kLiteral;
      null->is_null = true;
      null->position = position;
      return sql::MakeCall("CAST", {null, sql::MakeLiteral(std::string("Nullable(UInt8)"))});
    }
  }
  if (equality) {
    std::vector<ExprPtr> parts;
    for (size_t i = 0; i < left.args.size(); ++i) {
      parts.push_back(Compare(name, left.args[i], right.args[i]));
    }
    if (parts.size() == 1) return parts[0];
    return sql::MakeCall(name == "equals" ? "and" : "or", std::move(parts));
  }
  const bool less = name == "less" || name == "lessOrEquals";
  return Lexicographic(left.args, right.args, 0, less ? "less" : "greater", name);
}

absl::StatusOr<ExprPtr> TupleElementOf(const Expr& tuple, const Expr& index,
                                       const ExprPtr& fallback, size_t position) {
  const std::string where = " (at position " + std::to_string(position + 1) + ")";
  constexpr int64_t kNotConstant = INT64_MIN;
  int64_t n = kNotConstant;
  if (index.kind == ExprKind::kLiteral && !index.is_null) {
    if (const auto* u = std::get_if<uint64_t>(&index.value)) {
      n = *u > static_cast<uint64_t>(tuple.args.size()) ? static_cast<int64_t>(tuple.args.size()) + 1
                                                        : static_cast<int64_t>(*u);
    } else if (const auto* s = std::get_if<int64_t>(&index.value)) {
      n = *s;
    } else if (const auto* text = std::get_if<std::string>(&index.value)) {
      for (size_t i = 0; i < tuple.element_names.size() && i < tuple.args.size(); ++i) {
        if (tuple.element_names[i] == *text) return tuple.args[i];
      }
      int64_t parsed = 0;
      auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), parsed);
      if (ec == std::errc() && end == text->data() + text->size()) {
        n = parsed;
      } else {
        if (fallback) return fallback;
        return core::Error(core::ErrorCode::kBadArguments,
                           "Tuple doesn't have element with name '" + *text + "'" + where);
      }
    }
  }
  if (n == kNotConstant) {
    return core::Error(core::ErrorCode::kIllegalTypeOfArgument,
                       "Second argument to tupleElement must be a constant UInt or String" +
                           where);
  }
  const int64_t size = static_cast<int64_t>(tuple.args.size());
  const int64_t from_start = n < 0 ? size + n + 1 : n;  // -1 is the last element
  if (from_start >= 1 && from_start <= size) return tuple.args[from_start - 1];
  if (fallback) return fallback;
  return core::Error(core::ErrorCode::kArgumentOutOfBound,
                     "Tuple doesn't have element with index '" + std::to_string(n) + "'" + where);
}

ExprPtr LowerMapOperation(const Expr& call, const Expr& map) {
  if (call.kind != ExprKind::kFunction || call.over) return nullptr;
  if (IsArrayZipCall(map)) return LowerArrayOfTuplesOperation(call, map);
  if (!IsMapCall(map)) return nullptr;
  const ExprPtr& keys = map.args[0];
  const ExprPtr& values = map.args[1];
  auto is = [&](const char* name) { return absl::EqualsIgnoreCase(call.name, name); };
  ExprPtr lowered;
  if (is("arrayElement") && call.args.size() == 2) {
    lowered = sql::MakeCall("arrayElement",
                            {values, sql::MakeCall("indexOf", {keys, call.args[1]})});
  } else if (is("mapKeys") && call.args.size() == 1) {
    lowered = std::make_shared<Expr>(*keys);
  } else if (is("mapValues") && call.args.size() == 1) {
    lowered = std::make_shared<Expr>(*values);
  } else if ((is("mapContains") || is("mapContainsKey")) && call.args.size() == 2) {
    lowered = sql::MakeCall("has", {keys, call.args[1]});
  } else if ((is("length") || is("empty") || is("notEmpty")) && call.args.size() == 1) {
    lowered = sql::MakeCall(call.name, {keys});
  } else {
    return nullptr;
  }
  lowered->position = call.position;
  lowered->alias = call.alias;
  return lowered;
}

namespace {

bool IsCall(const Expr& e, const char* name) {
  return e.kind == ExprKind::kFunction && !e.over && absl::EqualsIgnoreCase(e.name, name);
}

// mapFilter((k, v) -> cond, m): both arrays filtered by the condition over the pairs;
// mapApply((k, v) -> (k2, v2), m): each array mapped by its half of the result. Null when the
// function is not such a two-parameter lambda (the binder names the error).
ExprPtr LowerMapLambda(const Expr& node) {
  const Expr& lambda = *node.args[0];
  if (!IsCall(lambda, "lambda") || lambda.args.size() != 2 || !IsTupleCall(*lambda.args[0]) ||
      lambda.args[0]->args.size() != 2) {
    return nullptr;
  }
  const ExprPtr& keys = node.args[1]->args[0];
  const ExprPtr& values = node.args[1]->args[1];
  const ExprPtr& body = lambda.args[1];
  auto make_lambda = [&](const ExprPtr& first, const ExprPtr& second, const ExprPtr& result) {
    return sql::MakeCall("lambda", {sql::MakeCall("tuple", {first, second}), result});
  };
  const ExprPtr& k = lambda.args[0]->args[0];
  const ExprPtr& v = lambda.args[0]->args[1];
  ExprPtr map;
  if (IsCall(node, "mapFilter")) {
    map = sql::MakeCall(
        "mapFromArrays",
        {sql::MakeCall("arrayFilter", {make_lambda(k, v, body), keys, values}),
         sql::MakeCall("arrayFilter", {make_lambda(v, k, body), values, keys})});
  } else {
    if (!IsTupleCall(*body) || IsMapCall(*body) || body->args.size() != 2) return nullptr;
    map = sql::MakeCall(
        "mapFromArrays",
        {sql::MakeCall("arrayMap", {make_lambda(k, v, body->args[0]), keys, values}),
         sql::MakeCall("arrayMap", {make_lambda(k, v, body->args[1]), keys, values})});
  }
  map->position = node.position;
  map->alias = node.alias;
  return map;
}

}  // namespace

// The arguments of `node` that take a tuple element by element (if, multiIf, argMin, argMax,
// any, anyLast); empty for other calls.
std::vector<size_t> ElementwiseArgumentsOf(const Expr& node) {
  if (node.kind != ExprKind::kFunction || node.over || node.distinct) return {};
  const size_t n = node.args.size();
  if (IsCall(node, "if") && n == 3) return {1, 2};
  if (IsCall(node, "multiIf") && n >= 3 && n % 2 == 1) {
    std::vector<size_t> out;
    for (size_t i = 1; i < n; i += 2) out.push_back(i);
    out.push_back(n - 1);
    return out;
  }
  if ((IsCall(node, "argMin") || IsCall(node, "argMax")) && n == 2) return {0};
  if ((IsCall(node, "any") || IsCall(node, "anyLast")) && n == 1) return {0};
  return {};
}

// A call over a map written as its arrays, or map(...) as mapFromArrays; null for others.
ExprPtr LowerMapCall(const Expr& node) {
  if (node.kind != ExprKind::kFunction || node.over) return nullptr;
  if (IsCall(node, "map")) {
    if (node.args.size() % 2 != 0) return nullptr;  // the binder names the error
    std::vector<ExprPtr> keys, values;
    for (size_t i = 0; i < node.args.size(); i += 2) {
      keys.push_back(node.args[i]);
      values.push_back(node.args[i + 1]);
    }
    ExprPtr map = sql::MakeCall("mapFromArrays", {sql::MakeCall("array", std::move(keys)),
                                                  sql::MakeCall("array", std::move(values))});
    map->position = node.position;
    map->alias = node.alias;
    return map;
  }
  if ((IsCall(node, "mapFilter") || IsCall(node, "mapApply")) && node.args.size() == 2 &&
      IsMapCall(*node.args[1])) {
    return LowerMapLambda(node);
  }
  if (ExprPtr lowered = LowerArrayOfTuplesCall(node)) return lowered;
  if (node.args.empty() ||
      (!IsMapCall(*node.args[0]) && !IsArrayZipCall(*node.args[0]))) {
    return nullptr;
  }
  return LowerMapOperation(node, *node.args[0]);
}

// CAST of a tuple to Tuple(...) is the tuple of its elements' casts (with the type's element
// names); CAST of a map to Map(K, V) casts its arrays. Null for other casts.
ExprPtr LowerCompoundCast(const Expr& node) {
  if (!IsCall(node, "CAST") || node.args.size() != 2 || !IsTupleCall(*node.args[0]) ||
      node.args[1]->kind != ExprKind::kLiteral) {
    return nullptr;
  }
  const auto* text = std::get_if<std::string>(&node.args[1]->value);
  if (text == nullptr) return nullptr;
  absl::StatusOr<std::optional<core::CompoundLayout>> layout = core::ParseCompoundType(*text);
  if (!layout.ok() || !*layout) return nullptr;
  const Expr& value = *node.args[0];
  if ((*layout)->map != IsMapCall(value) || (*layout)->array != IsArrayZipCall(value) ||
      value.args.size() != (*layout)->types.size()) {
    return nullptr;
  }
  std::vector<ExprPtr> elements;
  for (size_t i = 0; i < value.args.size(); ++i) {
    elements.push_back(sql::MakeCall(
        "CAST", {value.args[i],
                 sql::MakeLiteral(core::Value(std::string(core::TypeName((*layout)->types[i]))))}));
  }
  ExprPtr cast = sql::MakeCall(CompoundCallName(**layout), std::move(elements));
  cast->element_names = (*layout)->element_names;
  cast->position = node.position;
  cast->alias = node.alias;
  return cast;
}

// if, multiIf, argMin, argMax, any and anyLast over tuples, as the tuple of the call per
// element: if(c, (a, b), (x, y)) is (if(c, a, x), if(c, b, y)); argMax((a, b), t) is
// (argMax(a, t), argMax(b, t)), which pick the same row (the same values of t, compared the
// same way in every state and merge). Null when `node` is none such, or its tuples differ in
// size (the binder then names the error).
ExprPtr LowerElementwise(const Expr& node) {
  std::vector<size_t> positions = ElementwiseArgumentsOf(node);
  if (positions.empty()) return nullptr;
  size_t size = 0;
  const bool zip = IsArrayZipCall(*node.args[positions[0]]);
  for (size_t i = 0; i < positions.size(); ++i) {
    const Expr& arg = *node.args[positions[i]];
    if (!IsTupleCall(arg) || IsMapCall(arg) || IsArrayZipCall(arg) != zip) return nullptr;
    if (i > 0 && arg.args.size() != size) return nullptr;
    size = arg.args.size();
  }
  const ExprPtr& first = node.args[positions[0]];
  std::vector<ExprPtr> elements;
  for (size_t k = 0; k < size; ++k) {
    auto call = std::make_shared<Expr>(node);
    call->alias.clear();
    for (size_t position : positions) call->args[position] = node.args[position]->args[k];
    // A nested tuple element is lowered again (if(c, ((1, 2), 3), ...)).
    ExprPtr lowered = LowerElementwise(*call);
    elements.push_back(lowered != nullptr ? lowered : call);
  }
  ExprPtr tuple = sql::MakeCall(zip ? "arrayZip" : "tuple", std::move(elements));
  tuple->element_names = first->element_names;
  tuple->position = node.position;
  tuple->alias = node.alias;
  return tuple;
}

}  // namespace granite::coordinator
