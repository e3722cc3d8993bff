#include "coordinator/planner/rules/value_range.h"

#include <algorithm>
#include <string>

namespace granite::coordinator {

using core::TypeId;

namespace {

using Int = __int128;

constexpr Int kInt64Min = -(Int{1} << 63);
constexpr Int kInt64Max = (Int{1} << 63) - 1;

std::optional<ValueRange> RangeOfImpl(const core::plan::Expr& expr,
                                      const std::vector<std::optional<ValueRange>>& columns);

TypeId TypeOf(const core::plan::Expr& e) { return e.type; }

// Returns the constant integer value of a literal, or nullopt.
std::optional<Int> IntegerLiteral(const core::plan::Expr& e) {
  if (!e.is_literal()) return std::nullopt;
  if (const auto* i = std::get_if<int64_t>(&e.literal)) return Int{*i};
  if (const auto* u = std::get_if<uint64_t>(&e.literal)) return Int{*u};
  return std::nullopt;
}

bool IsCast(const std::string& name) {
  static const char* const kNames[] = {"CAST",    "toUInt8", "toUInt16", "toUInt32", "toUInt64",
                                       "toInt8",  "toInt16", "toInt32",  "toInt64"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// Returns the range of a function call before clamping to its result type, or nullopt.
std::optional<ValueRange> CallRange(const core::plan::Expr& expr,
                                    const std::vector<std::optional<ValueRange>>& columns) {
  const core::plan::Expr& call = expr;
  const std::string& name = call.function;
  if (call.args.size() == 0 || !core::IsInteger(TypeOf(call.args[0]))) return std::nullopt;
  std::optional<ValueRange> a = RangeOfImpl(call.args[0], columns);
  if (!a) return std::nullopt;
  if (IsCast(name)) return a;
  if (call.args.size() != 2 || !core::IsInteger(TypeOf(call.args[1]))) return std::nullopt;
  std::optional<ValueRange> b = RangeOfImpl(call.args[1], columns);
  if (!b) return std::nullopt;
  if (name == "plus") return ValueRange{a->min + b->min, a->max + b->max};
  if (name == "minus") return ValueRange{a->min - b->max, a->max - b->min};
  if (name == "multiply") {
    constexpr Int kLimit = Int{1} << 63;
    for (Int bound : {a->min, a->max, b->min, b->max}) {
      if (bound <= -kLimit || bound >= kLimit) return std::nullopt;
    }
    Int products[] = {a->min * b->min, a->min * b->max, a->max * b->min, a->max * b->max};
    return ValueRange{*std::min_element(std::begin(products), std::end(products)),
                      *std::max_element(std::begin(products), std::end(products))};
  }
  if (name != "intDiv" && name != "modulo") return std::nullopt;
  std::optional<Int> divisor = IntegerLiteral(call.args[1]);
  if (!divisor || *divisor == 0) return std::nullopt;
  // A signed compute type (Int64) reinterprets dividends past Int64's range.
  bool signed_compute =
      core::IsSignedInteger(TypeOf(call.args[0])) || core::IsSignedInteger(TypeOf(call.args[1]));
  if (signed_compute && (a->min < kInt64Min || a->max > kInt64Max)) return std::nullopt;
  if (name == "intDiv") {
    // Truncating division is monotone: non-decreasing for c > 0, non-increasing for c < 0.
    Int lo = a->min / *divisor, hi = a->max / *divisor;
    return ValueRange{std::min(lo, hi), std::max(lo, hi)};
  }
  Int m = *divisor < 0 ? -*divisor : *divisor;
  if (a->min >= 0) return a->max < m ? *a : ValueRange{0, m - 1};
  if (a->max <= 0) return a->min > -m ? *a : ValueRange{-(m - 1), 0};
  return ValueRange{std::max(a->min, -(m - 1)), std::min(a->max, m - 1)};
}

std::optional<ValueRange> RangeOfImpl(const core::plan::Expr& expr,
                                      const std::vector<std::optional<ValueRange>>& columns) {
  std::optional<ValueRange> whole = TypeRange(TypeOf(expr));
  if (!whole) return std::nullopt;
  std::optional<ValueRange> range;
  switch (expr.kind) {
    case core::plan::Expr::Kind::kColumn:
      if (expr.column < columns.size()) range = columns[expr.column];
      break;
    case core::plan::Expr::Kind::kLiteral:
      if (std::optional<Int> value = IntegerLiteral(expr)) range = ValueRange{*value, *value};
      break;
    case core::plan::Expr::Kind::kCall:
      range = CallRange(expr, columns);
      break;
    case core::plan::Expr::Kind::kLambdaParameter:
    case core::plan::Expr::Kind::kSet:
      break;
  }
  // A range reaching outside the result type means some value may have wrapped: keep the type's.
  if (range && whole->Contains(*range)) return range;
  return whole;
}

}  // namespace

std::optional<ValueRange> TypeRange(TypeId type) {
  switch (core::RemoveTimeZone(type)) {
    case TypeId::kUInt8: return ValueRange{0, 0xFF};
    case TypeId::kUInt16:
    case TypeId::kDate: return ValueRange{0, 0xFFFF};
    case TypeId::kUInt32:
    case TypeId::kDateTime: return ValueRange{0, 0xFFFFFFFFLL};
    case TypeId::kUInt64: return ValueRange{0, (Int{1} << 64) - 1};
    case TypeId::kInt8: return ValueRange{-128, 127};
    case TypeId::kInt16: return ValueRange{-32768, 32767};
    case TypeId::kInt32: return ValueRange{-(Int{1} << 31), (Int{1} << 31) - 1};
    case TypeId::kInt64: return ValueRange{kInt64Min, kInt64Max};
    default: return std::nullopt;
  }
}

std::optional<ValueRange> RangeOf(const core::plan::Expr& expr,
                                  const std::vector<std::optional<ValueRange>>& columns) {
  return RangeOfImpl(expr, columns);
}

}  // namespace granite::coordinator
