// Expression: a scalar expression tree compiled from a plan's typed Expr (core/plan/expr.h) and evaluated over
// Blocks by the coordinator and the workers (filters, projections, group keys, aggregate
// arguments).
//
// Compile compiles once per fragment: every call is resolved in the function registry
// (core/functions/function_registry.h) and its kernel prepared (IN sets, LIKE matchers, regexes,
// CAST target types, constants converted to the operand types); calls whose arguments are all
// constant are evaluated right away (constant folding), so toDate('2013-07-01') or 1 + 2 never
// runs per batch. Literals and folded results stay one-row constants that kernels read directly
// instead of broadcast columns. in(x, tuple(c1, ..., cn)) is flattened to in(x, c1, ..., cn).
//
// Evaluate walks the tree once per block: a column reference returns the input column itself
// (no copy), a call runs its kernel on its evaluated arguments. A higher-order call
// (arrayMap(lambda($0, body), arr), core/plan/expr.h) evaluates its arrays, then the body once
// over all their elements in the block (the parameters read the arrays' nested columns without
// a copy; the outer columns the body reads are replicated once per element), and hands the
// kernel the body's values as an array with the first array's offsets.
#pragma once

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/plan/expr.h"
#include "core/types.h"
#include "core/value.h"


namespace granite::core {

struct ExpressionNode;   // defined in expression.cc
struct DictionaryCodes;  // core/dictionary_codes.h

// Evaluates one compiled expression.
// Thread-safety: immutable after Compile; Evaluate may run on many threads at once.
class Expression {
 public:
  // Compiles `expr`. Errors: those of ResolveFunction / CompileFunction (unknown function, illegal
  // argument types, ...), of constant folding (division by zero, unparsable CAST), an out-of-range
  // literal (kValueIsOutOfRangeOfDataType), and kLogicalError when the plan's declared type of a
  // call differs from the type the registry resolves or a node is malformed.
  static absl::StatusOr<std::unique_ptr<Expression>> Compile(const plan::Expr& expr);

  ~Expression();
  Expression(const Expression&) = delete;
  Expression& operator=(const Expression&) = delete;

  TypeId type() const;

  // Returns the value of a constant expression (a literal or a folded call), nullopt otherwise.
  std::optional<Value> constant() const;

  // Returns a column of input.rows() rows. Errors: per-batch kernel errors (kIllegalDivision,
  // kCannotParseText, ...); kLogicalError when a referenced column is missing or has another type
  // than the plan says.
  absl::StatusOr<ColumnPtr> Evaluate(const Block& input) const;

 private:
  explicit Expression(std::unique_ptr<ExpressionNode> root);
  // Evaluate over a block whose column dictionary_column_ carries `codes`; `width` columns.
  absl::StatusOr<ColumnPtr> EvaluateByDictionary(const DictionaryCodes& codes, size_t width) const;

  std::unique_ptr<ExpressionNode> root_;
  // The input column of an expression that reads exactly one column, calls only functions
  // whose value depends on that row's value alone, and is not the bare column; else -1. Over a
  // column that carries dictionary codes (core/dictionary_codes.h) it is evaluated once per
  // distinct value.
  int dictionary_column_ = -1;
};

}  // namespace granite::core
