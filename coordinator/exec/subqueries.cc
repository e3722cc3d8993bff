#include "coordinator/exec/subqueries.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/planner/tuple_in.h"
#include "coordinator/sql/ast_build.h"
#include "core/block_codec.h"
#include "core/error.h"
#include "core/functions/function_registry.h"
#include "core/hash.h"
#include "core/join/distinct_rows.h"
#include "core/plan/expr.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::coordinator {
namespace {

using core::ErrorCode;
using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;

// Runs `subquery`, reporting a reference to the outer query as a correlated subquery.
absl::StatusOr<LocalTable> RunSubquery(const Expr& node, const SubqueryRunner& run) {
  absl::StatusOr<LocalTable> result = run(*node.subquery);
  if (!result.ok() && core::CodeOf(result.status()) == ErrorCode::kUnknownIdentifier) {
    return core::Error(ErrorCode::kNotImplemented,
                       "Correlated subqueries are not supported yet (at position " +
                           std::to_string(node.position + 1) + "): " +
                           std::string(result.status().message()));
  }
  return result;
}

ExprPtr DefaultLiteral(core::TypeId type, size_t position) {
  core::Column column(type);
  if (core::IsString(type)) {
    column.AppendString("");
  } else {
    column.Resize(1);
  }
  return sql::LiteralOf(column, 0, position);
}

// The UInt8 constant 1 or 0 that replaces `e`, with its position and alias.
ExprPtr Flag(bool value, const Expr& e) {
  ExprPtr literal = sql::MakeFlag(value, e.position);
  literal->alias = e.alias;
  return literal;
}

// The set of `x IN (SELECT ...)` as one node holding the subquery's distinct values `rows` of
// `column` without NULLs (ClickHouse ignores NULLs in the set, transform_null_in = 0); null
// when the column's type does not travel so, or when only NULLs are left. Its name is
// "_subquery_" and a hash of the values: two different sets never share a column name.
ExprPtr SetNode(const core::Column& column, const std::vector<uint32_t>& rows, size_t position) {
  if (!core::IsSetColumnType(core::RemoveNullable(column.type()))) return nullptr;
  std::vector<uint32_t> kept;
  kept.reserve(rows.size());
  for (uint32_t row : rows) {
    if (!column.IsNullAt(row)) kept.push_back(row);
  }
  if (kept.empty()) return nullptr;
  auto values = std::make_shared<core::Column>(column.Take(kept.data(), kept.size()));
  values->DropNullMap();
  std::string bytes;
  core::EncodeColumnData(*values, &bytes);
  auto node = std::make_shared<Expr>();
  node->kind = ExprKind::kSet;
  node->position = position;
  node->name = absl::StrCat("_subquery_", absl::Hex(core::HashBytes(bytes), absl::kZeroPad16));
  node->set = std::move(values);
  return node;
}

class Rewriter {
 public:
  explicit Rewriter(const SubqueryRunner& run) : run_(run) {}

  // Returns `e` itself when nothing under it changes, else a rewritten copy.
  absl::StatusOr<ExprPtr> Rewrite(const ExprPtr& e) {
    if (e == nullptr || !sql::ContainsSubquery(*e)) return e;
    if (e->kind == ExprKind::kSubquery) return Scalar(*e);
    const std::string& name = e->name;
    if ((name == "in" || name == "notIn") && e->args.size() == 2 &&
        e->args[1]->kind == ExprKind::kSubquery) {
      ASSIGN_OR_RETURN(ExprPtr left, Rewrite(e->args[0]));
      const bool tuple = IsTupleOfSeveral(*left);
      ASSIGN_OR_RETURN(ExprPtr set, Set(*e->args[1], tuple ? left->args.size() : 1));
      if (set->kind != ExprKind::kSet && set->args.empty()) {
        return Flag(name != "in", *e);  // an empty set holds no value
      }
      auto copy = std::make_shared<Expr>(*e);
      copy->args = {std::move(left), std::move(set)};
      return ExprPtr(copy);
    }
    if (name == "exists" && e->args.size() == 1 && e->args[0]->kind == ExprKind::kSubquery) {
      const Expr& node = *e->args[0];
      sql::SelectStatement limited = *node.subquery;
      if (limited.set_operands.empty() && !limited.limit) limited.limit = 1;
      Expr bounded = node;
      bounded.subquery = std::make_shared<sql::SelectStatement>(std::move(limited));
      ASSIGN_OR_RETURN(LocalTable result, RunSubquery(bounded, run_));
      return Flag(result.block.rows() > 0, *e);
    }
    auto copy = std::make_shared<Expr>(*e);
    for (ExprPtr& arg : copy->args) {
      ASSIGN_OR_RETURN(arg, Rewrite(arg));
    }
    return ExprPtr(copy);
  }

 private:
  absl::StatusOr<ExprPtr> Scalar(const Expr& node) {
    ASSIGN_OR_RETURN(LocalTable result, RunSubquery(node, run_));
    if (result.names.size() != 1) {
      return core::Error(ErrorCode::kIncorrectResultOfScalarSubquery,
                         "Scalar subquery returned " + std::to_string(result.names.size()) +
                             " columns, expected one (at position " +
                             std::to_string(node.position + 1) + ")");
    }
    const size_t rows = result.block.rows();
    if (rows > 1) {
      return core::Error(ErrorCode::kIncorrectResultOfScalarSubquery,
                         "Scalar subquery returned more than one row (" + std::to_string(rows) +
                             " rows, at position " + std::to_string(node.position + 1) + ")");
    }
    ExprPtr literal = rows == 0 ? DefaultLiteral(result.types[0], node.position)
                                : sql::LiteralOf(*result.block.columns[0], 0, node.position);
    literal->alias = node.alias;
    return literal;
  }

  // The set of `x IN (SELECT ...)` as a constant list: each value once (a subquery over a large
  // table repeats its keys; fewer constants travel to the workers and compile into the IN). With
  // `arity` > 1 (a tuple on the left) the list holds tuples, which the binder expands into
  // comparisons (planner/tuple_in.h); large tuple sets in a WHERE became semi joins before this
  // (exec/in_joins.h).
  absl::StatusOr<ExprPtr> Set(const Expr& node, size_t arity) {
    ASSIGN_OR_RETURN(LocalTable result, RunSubquery(node, run_));
    if (result.names.size() != arity) {
      return core::Error(ErrorCode::kNumberOfColumnsDoesntMatch,
                         "Number of columns in section IN doesn't match: " +
                             std::to_string(arity) + " on the left, the subquery returns " +
                             std::to_string(result.names.size()) + " (at position " +
                             std::to_string(node.position + 1) + ")");
    }
    std::vector<const core::Column*> columns;
    for (const auto& column : result.block.columns) columns.push_back(column.get());
    const std::vector<uint32_t> rows = core::FirstOfEachRow(columns, /*skip_nulls=*/false);
    if (arity > 1 && rows.size() > kTupleInConstantRows) {
      return core::Error(ErrorCode::kNotImplemented,
                         "Tuple IN (SELECT ...) returned " + std::to_string(rows.size()) +
                             " distinct rows; more than " + std::to_string(kTupleInConstantRows) +
                             " are supported only as a WHERE condition of a SELECT over one "
                             "table (at position " + std::to_string(node.position + 1) + ")");
    }
    if (arity == 1 && rows.size() > core::plan::kMaxLiteralSetValues) {
      if (ExprPtr set = SetNode(*columns[0], rows, node.position)) return set;
    }
    std::vector<ExprPtr> values;
    for (uint32_t row : rows) {
      if (arity == 1) {
        values.push_back(sql::LiteralOf(*columns[0], row, node.position));
        continue;
      }
      std::vector<ExprPtr> tuple;
      for (const core::Column* column : columns) {
        tuple.push_back(sql::LiteralOf(*column, row, node.position));
      }
      values.push_back(sql::MakeCall("tuple", std::move(tuple)));
    }
    return sql::MakeCall("tuple", std::move(values));
  }

  const SubqueryRunner& run_;
};

// Whether every subquery under `e` is a scalar one: none is the set of an IN or an EXISTS.
bool OnlyScalarSubqueries(const Expr& e) {
  if (e.kind == ExprKind::kSubquery) return true;
  const bool set_holder = e.name == "in" || e.name == "notIn" || e.name == "exists";
  for (const ExprPtr& arg : e.args) {
    if (set_holder && arg->kind == ExprKind::kSubquery) return false;
    if (!OnlyScalarSubqueries(*arg)) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<ExprPtr> ReplaceScalarSubqueries(const ExprPtr& e, const SubqueryRunner& run) {
  if (e == nullptr || !sql::ContainsSubquery(*e) || !OnlyScalarSubqueries(*e)) return e;
  Rewriter rewriter(run);
  return rewriter.Rewrite(e);
}

bool HasScalarSubqueryConjunct(const ExprPtr& where) {
  if (where == nullptr) return false;
  std::vector<ExprPtr> conjuncts;
  sql::SplitAnd(where, &conjuncts);
  return std::any_of(conjuncts.begin(), conjuncts.end(), [](const ExprPtr& c) {
    return sql::ContainsSubquery(*c) && OnlyScalarSubqueries(*c);
  });
}

bool HasExpressionSubqueries(const sql::SelectStatement& select) {
  for (const ExprPtr& item : select.select) {
    if (sql::ContainsSubquery(*item)) return true;
  }
  for (const ExprPtr& key : select.group_by) {
    if (sql::ContainsSubquery(*key)) return true;
  }
  for (const sql::OrderItem& order : select.order_by) {
    if (sql::ContainsSubquery(*order.expr)) return true;
  }
  for (const sql::JoinClause& join : select.joins) {
    if (join.on != nullptr && sql::ContainsSubquery(*join.on)) return true;
  }
  for (const sql::WithItem& with : select.with) {
    if (with.expr != nullptr && sql::ContainsSubquery(*with.expr)) return true;
  }
  return (select.where && sql::ContainsSubquery(*select.where)) ||
         (select.having && sql::ContainsSubquery(*select.having));
}

absl::StatusOr<sql::SelectStatement> ReplaceSubqueries(const sql::SelectStatement& select,
                                                       const SubqueryRunner& run) {
  sql::SelectStatement out = select;
  Rewriter rewriter(run);
  size_t scalar_items = 0;
  for (ExprPtr& item : out.select) {
    // A scalar subquery item without an alias is named as ClickHouse names it.
    const bool unnamed = item->kind == ExprKind::kSubquery && item->alias.empty();
    ASSIGN_OR_RETURN(item, rewriter.Rewrite(item));
    if (unnamed) item->alias = "_subquery_" + std::to_string(++scalar_items);
  }
  for (sql::WithItem& with : out.with) {
    if (with.expr) {
      ASSIGN_OR_RETURN(with.expr, rewriter.Rewrite(with.expr));
    }
  }
  for (sql::JoinClause& join : out.joins) {
    if (join.on) {
      ASSIGN_OR_RETURN(join.on, rewriter.Rewrite(join.on));
    }
  }
  if (out.where) {
      ASSIGN_OR_RETURN(out.where, rewriter.Rewrite(out.where));
    }
  for (ExprPtr& key : out.group_by) {
    ASSIGN_OR_RETURN(key, rewriter.Rewrite(key));
  }
  if (out.having) {
      ASSIGN_OR_RETURN(out.having, rewriter.Rewrite(out.having));
    }
  for (sql::OrderItem& order : out.order_by) {
    ASSIGN_OR_RETURN(order.expr, rewriter.Rewrite(order.expr));
  }
  return out;
}

}  // namespace granite::coordinator
