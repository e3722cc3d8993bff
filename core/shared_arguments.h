// Shared arguments: arithmetic that several aggregate arguments of one fragment repeat, computed
// once per batch. The pricing-summary shape sums price * (1 - discount) and, inside another sum,
// price * (1 - discount) * (1 + tax): each argument is its own Expression (fragment_pipeline.h),
// so the common product and difference ran twice. ShareArithmetic rewrites the arguments to read
// such a call as an extra column of the input block, which FragmentPipeline::EvaluateArgs
// appends before evaluating them.
#pragma once

#include <cstdint>
#include <vector>

#include "core/plan/expr.h"

namespace granite::core {

struct SharedArguments {
  // The index of the first extra column: one past every column the arguments read.
  uint32_t base = 0;
  // Calls over the input block; call k is read by the rewritten arguments as column base + k.
  std::vector<plan::Expr> calls;
};

// Rewrites `args` (per aggregate, its arguments) so that every occurrence of an arithmetic call
// (plus, minus, multiply, divide, negate over columns, literals and such calls) that reads a
// column and occurs at least twice reads column base + k instead, largest calls first; returns
// the shared calls. Only deterministic row-wise arithmetic is shared, so values and errors are
// those of the arguments as written.
SharedArguments ShareArithmetic(std::vector<std::vector<plan::Expr>>* args);

// Returns true if `expr` is a column, a literal, or arithmetic (plus, minus, multiply, divide,
// negate) over such expressions: its value for a row depends on that row alone, so evaluating
// it over more rows than a filter kept gives the kept rows the values they would have alone.
bool IsRowWiseArithmetic(const plan::Expr& expr);

}  // namespace granite::core
