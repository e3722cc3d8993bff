#include "core/shared_arguments.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/functions/expr_builder.h"

namespace granite::core {
namespace {

// At most this many shared calls per fragment (a bound on the quadratic search below).
constexpr size_t kMaxShared = 16;

bool ReadsColumn(const plan::Expr& expr) {
  if (expr.is_column()) return true;
  return std::any_of(expr.args.begin(), expr.args.end(), ReadsColumn);
}

size_t NodeCount(const plan::Expr& expr) {
  size_t n = 1;
  for (const plan::Expr& arg : expr.args) n += NodeCount(arg);
  return n;
}

uint32_t MaxColumn(const plan::Expr& expr) {
  uint32_t max = expr.is_column() ? expr.column : 0;
  for (const plan::Expr& arg : expr.args) max = std::max(max, MaxColumn(arg));
  return max;
}

bool AnyColumn(const std::vector<std::vector<plan::Expr>>& args) {
  for (const auto& call : args) {
    for (const plan::Expr& arg : call) {
      if (ReadsColumn(arg)) return true;
    }
  }
  return false;
}

// Counts every arithmetic call reading a column, at any depth (not inside a lambda, whose body
// runs over array elements), into `counts`.
void CountCalls(const plan::Expr& expr, std::vector<std::pair<plan::Expr, size_t>>* counts) {
  if (expr.IsCall("lambda")) return;
  if (expr.is_call() && IsRowWiseArithmetic(expr) && ReadsColumn(expr)) {
    auto it = std::find_if(counts->begin(), counts->end(),
                           [&](const auto& entry) { return entry.first == expr; });
    if (it != counts->end()) {
      ++it->second;
    } else {
      counts->emplace_back(expr, 1);
    }
  }
  for (const plan::Expr& arg : expr.args) CountCalls(arg, counts);
}

// Replaces every occurrence of `call` in `expr` by `column`.
void Replace(const plan::Expr& call, const plan::Expr& column, plan::Expr* expr) {
  if (expr->IsCall("lambda")) return;
  if (*expr == call) {
    *expr = column;
    return;
  }
  for (plan::Expr& arg : expr->args) Replace(call, column, &arg);
}

}  // namespace

bool IsRowWiseArithmetic(const plan::Expr& expr) {
  if (expr.is_column() || expr.is_literal()) return true;
  if (!expr.is_call()) return false;
  const std::string& f = expr.function;
  if (f != "plus" && f != "minus" && f != "multiply" && f != "divide" && f != "negate") {
    return false;
  }
  return std::all_of(expr.args.begin(), expr.args.end(), IsRowWiseArithmetic);
}

SharedArguments ShareArithmetic(std::vector<std::vector<plan::Expr>>* args) {
  SharedArguments shared;
  if (!AnyColumn(*args)) return shared;
  uint32_t max = 0;
  for (const auto& call : *args) {
    for (const plan::Expr& arg : call) max = std::max(max, MaxColumn(arg));
  }
  shared.base = max + 1;
  while (shared.calls.size() < kMaxShared) {
    std::vector<std::pair<plan::Expr, size_t>> counts;
    for (const auto& call : *args) {
      for (const plan::Expr& arg : call) CountCalls(arg, &counts);
    }
    const plan::Expr* best = nullptr;
    size_t best_size = 0;
    for (const auto& [expr, count] : counts) {
      if (count >= 2 && NodeCount(expr) > best_size) {
        best = &expr;
        best_size = NodeCount(expr);
      }
    }
    if (best == nullptr) break;
    const plan::Expr call = *best;
    const plan::Expr column =
        Col(shared.base + static_cast<uint32_t>(shared.calls.size()), call.type);
    for (auto& aggregate : *args) {
      for (plan::Expr& arg : aggregate) Replace(call, column, &arg);
    }
    shared.calls.push_back(call);
  }
  return shared;
}

}  // namespace granite::core
