#include "coordinator/planner/tuple_lowering.h"

#include <charconv>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "core/error.h"
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

bool IsTupleCall(const Expr& e) {
  if (IsMapCall(e)) return true;
  return e.kind == ExprKind::kFunction && !e.over && absl::EqualsIgnoreCase(e.name, "tuple");
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
  if (call.kind != ExprKind::kFunction || call.over || !IsMapCall(map)) return nullptr;
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

}  // namespace granite::coordinator
