// Column builders and one-call evaluators for the function and expression tests (test-only).
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/expression.h"
#include "core/functions/expr_builder.h"
#include "core/status_macros.h"
#include "core/value_text.h"
#include "core/plan/expr.h"

namespace granite::core {

// Returns a column of `type` holding `values` (T is the physical type).
template <typename T>
ColumnPtr MakeColumn(TypeId type, std::initializer_list<T> values) {
  auto column = std::make_shared<Column>(type);
  for (T v : values) column->Append(v);
  return column;
}

inline ColumnPtr StringColumn(std::initializer_list<std::string> values) {
  auto column = std::make_shared<Column>(TypeId::kString);
  for (const std::string& v : values) column->AppendString(v);
  return column;
}

// Returns each row of `column` in its text form.
inline std::vector<std::string> Texts(const Column& column) {
  std::vector<std::string> out;
  for (size_t i = 0; i < column.size(); ++i) {
    std::string text;
    AppendValueText(column, i, &text);
    out.push_back(std::move(text));
  }
  return out;
}

// Compiles `expr` and evaluates it on `block`; returns the rows as text.
inline absl::StatusOr<std::vector<std::string>> EvalTexts(const plan::Expr& expr,
                                                          const Block& block) {
  ASSIGN_OR_RETURN(std::unique_ptr<Expression> compiled, Expression::Compile(expr));
  ASSIGN_OR_RETURN(ColumnPtr column, compiled->Evaluate(block));
  if (column->type() != compiled->type()) {
    return absl::InternalError("result column type differs from the expression type");
  }
  return Texts(*column);
}

// Returns the one-column block {column}.
inline Block BlockOf(std::vector<ColumnPtr> columns) {
  Block block;
  block.columns = std::move(columns);
  return block;
}

// Returns TypedCall(name, args), failing the test if it does not resolve.
inline plan::Expr Fn(std::string_view name, std::vector<plan::Expr> args) {
  auto expr = TypedCall(name, std::move(args));
  EXPECT_TRUE(expr.ok()) << name << ": " << expr.status();
  return expr.ok() ? *std::move(expr) : plan::Expr{};
}

// Evaluates `expr` on `block`, failing the test on error; returns the rows as text.
inline std::vector<std::string> Eval(const plan::Expr& expr, const Block& block) {
  auto rows = EvalTexts(expr, block);
  EXPECT_TRUE(rows.ok()) << rows.status();
  return rows.ok() ? *std::move(rows) : std::vector<std::string>{"<error>"};
}

// Evaluates `expr` on a block without columns of one row (constant expressions).
inline std::string EvalConstant(const plan::Expr& expr) {
  Block block;
  block.rows_without_columns = 1;
  std::vector<std::string> rows = Eval(expr, block);
  return rows.size() == 1 ? rows[0] : "<wrong row count>";
}

// Returns the error of compiling and evaluating `expr` on `block` (OK if it succeeded).
inline absl::Status EvalStatus(const plan::Expr& expr, const Block& block) {
  return EvalTexts(expr, block).status();
}

using Rows = std::vector<std::string>;

}  // namespace granite::core
