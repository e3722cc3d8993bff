// plan::Expr: a typed scalar expression of a plan fragment — a reference to a column of the
// fragment's input block, a literal, or a call of a registered function — as the coordinator's
// binder builds it and the worker compiles it (core/expression.h). Plain data: rules copy and
// rewrite it freely; only core/wire/plan_codec.h turns it into wire messages.
//
// Lambdas (arrayMap(x -> x + c, arr)): the first argument of a higher-order call is a call of
// `lambda` whose arguments are its parameters (kLambdaParameter nodes), then its body:
//   arrayMap(lambda($0, plus($0, c)), arr)
// A parameter node's `column` is its slot, unique within the expression tree (a nested lambda
// takes other slots), never a column of the block, so column renumbering (expr_remap.h) leaves
// it alone; the body's column references are the enclosing block's columns.
//
// Sets: the right side of in / notIn is a tuple of literals, in(x, tuple(1, 2, 3)), or for a set
// of more than kMaxLiteralSetValues values (an IN subquery's, coordinator/exec/subqueries.h, or
// a long written list, converted by the binder) one kSet node holding a column of its distinct
// values, of the node's type, never Nullable: in(x, <set>). Plans, the wire and the
// compiled kernel then carry one column instead of a node per value. The column is shared and
// immutable; equality compares it by identity.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/column.h"
#include "core/types.h"
#include "core/value.h"

namespace granite::core::plan {

// The most values an IN list travels as literals; a longer list, or an IN subquery's set past
// it, is one kSet node.
inline constexpr size_t kMaxLiteralSetValues = 100;

// Holds one node and, for a call, its argument subtrees.
struct Expr {
  enum class Kind : uint8_t { kColumn, kLiteral, kCall, kLambdaParameter, kSet };

  Kind kind = Kind::kColumn;
  TypeId type = TypeId::kUInt8;  // the node's result type
  uint32_t column = 0;           // kColumn: index into the input block; kLambdaParameter: slot
  Value literal;                 // kLiteral: the value, in its widest physical form
  std::string function;          // kCall: the registered function name
  std::vector<Expr> args;        // kCall
  ColumnPtr set;                 // kSet: the distinct values

  bool is_column() const { return kind == Kind::kColumn; }
  bool is_literal() const { return kind == Kind::kLiteral; }
  bool is_call() const { return kind == Kind::kCall; }
  bool is_lambda_parameter() const { return kind == Kind::kLambdaParameter; }
  bool is_set() const { return kind == Kind::kSet; }
  // True for a call of `name`.
  bool IsCall(std::string_view name) const { return kind == Kind::kCall && function == name; }

  friend bool operator==(const Expr&, const Expr&) = default;
};

}  // namespace granite::core::plan
