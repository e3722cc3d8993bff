#include "coordinator/exec/column_defaults.h"

#include <functional>
#include <set>
#include <utility>

#include "coordinator/planner/column_expressions.h"
#include "coordinator/planner/select_binder.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"
#include "core/schema_error_codes.h"
#include "core/expression.h"
#include "core/functions/expr_builder.h"
#include "core/status_macros.h"

namespace granite::coordinator {

using core::DefaultKind;
using core::ErrorCode;

namespace {

// A column expression bound over the table's declared columns, cast to the column's type.
struct BoundColumnExpression {
  core::plan::Expr expr;
  std::vector<size_t> positions;  // the declared columns it reads, in input order
};

absl::StatusOr<BoundColumnExpression> BindColumnExpression(const core::TableSchema& schema,
                                                           size_t index) {
  std::vector<std::string> names;
  std::vector<core::TypeId> types;
  for (const core::ColumnSchema& column : schema.columns) {
    names.push_back(column.name);
    types.push_back(column.type);
  }
  SelectBinder binder(std::move(names), std::move(types));
  binder.SetComputedColumns(AliasExpressions(schema));
  const core::ColumnSchema& column = schema.columns[index];
  ASSIGN_OR_RETURN(sql::ExprPtr parsed, ParseColumnExpression(column.default_expression));
  absl::StatusOr<core::plan::Expr> bound = binder.BindInput(*parsed);
  if (!bound.ok()) {
    return core::Error(core::CodeOf(bound.status()),
                       std::string(bound.status().message()) + ": default expression of column " +
                           column.name);
  }
  BoundColumnExpression out;
  out.expr = *std::move(bound);
  if (out.expr.type != column.type) {
    out.expr = core::Call(
        "CAST", column.type,
        {std::move(out.expr), core::Lit(std::string(core::TypeName(column.type)),
                                        core::TypeId::kString)});
  }
  out.positions = binder.SourcePositions();
  return out;
}

// Fails with CYCLIC_ALIASES when DEFAULT / MATERIALIZED columns depend on each other in a cycle
// (ALIAS columns are expanded while binding, which finds their cycles). deps[i]: the declared
// columns column i's expression reads.
absl::Status CheckAcyclic(const core::TableSchema& schema,
                          const std::vector<std::vector<size_t>>& deps) {
  // 0: not visited, 1: on the path, 2: done.
  std::vector<int> state(schema.columns.size(), 0);
  std::vector<size_t> path;
  std::function<absl::Status(size_t)> visit = [&](size_t i) -> absl::Status {
    if (state[i] == 2) return absl::OkStatus();
    if (state[i] == 1) {
      std::string cycle;
      for (size_t p : path) cycle += schema.columns[p].name + " -> ";
      return core::Error(core::kCyclicAliases, "Cyclic alias detected in column DEFAULT expressions: " +
                                             cycle + schema.columns[i].name);
    }
    state[i] = 1;
    path.push_back(i);
    for (size_t d : deps[i]) RETURN_IF_ERROR(visit(d));
    path.pop_back();
    state[i] = 2;
    return absl::OkStatus();
  };
  for (size_t i = 0; i < schema.columns.size(); ++i) RETURN_IF_ERROR(visit(i));
  return absl::OkStatus();
}

}  // namespace

absl::Status ResolveColumnDefaults(const std::vector<sql::ColumnDef>& defs,
                                   core::TableSchema* schema) {
  bool any = false;
  for (size_t i = 0; i < defs.size(); ++i) {
    const sql::ColumnDef& def = defs[i];
    core::ColumnSchema& column = schema->columns[i];
    column.comment = def.comment;
    if (def.default_kind.empty()) continue;
    any = true;
    column.default_kind = def.default_kind == "DEFAULT"        ? DefaultKind::kDefault
                          : def.default_kind == "MATERIALIZED" ? DefaultKind::kMaterialized
                                                               : DefaultKind::kAlias;
    std::optional<std::string> formatted =
        def.default_expr ? FormatColumnExpression(*def.default_expr) : std::nullopt;
    column.default_expression = formatted ? *formatted : def.default_text;
  }
  if (!any) return absl::OkStatus();
  std::vector<bool> typeless;
  for (const sql::ColumnDef& def : defs) typeless.push_back(def.type.empty());
  return CheckColumnDefaults(typeless, schema);
}

absl::Status CheckColumnDefaults(const std::vector<bool>& typeless, core::TableSchema* schema) {
  // A column without a type takes its expression's (in declaration order).
  for (size_t i = 0; i < typeless.size(); ++i) {
    if (!typeless[i] || schema->columns[i].default_kind == DefaultKind::kNone) continue;
    core::ColumnSchema& column = schema->columns[i];
    ASSIGN_OR_RETURN(sql::ExprPtr parsed, ParseColumnExpression(column.default_expression));
    std::vector<std::string> names;
    std::vector<core::TypeId> types;
    for (const core::ColumnSchema& c : schema->columns) {
      names.push_back(c.name);
      types.push_back(c.type);
    }
    SelectBinder binder(std::move(names), std::move(types));
    binder.SetComputedColumns(AliasExpressions(*schema));
    absl::StatusOr<core::plan::Expr> bound = binder.BindInput(*parsed);
    if (!bound.ok()) {
      return core::Error(core::CodeOf(bound.status()),
                         std::string(bound.status().message()) +
                             ": default expression of column " + column.name);
    }
    column.type = bound->type;
  }
  std::vector<std::vector<size_t>> deps(schema->columns.size());
  for (size_t i = 0; i < schema->columns.size(); ++i) {
    const core::ColumnSchema& column = schema->columns[i];
    if (column.default_kind == DefaultKind::kNone) continue;
    ASSIGN_OR_RETURN(BoundColumnExpression bound, BindColumnExpression(*schema, i));
    // Compiling folds constants, so a constant that does not convert fails here, as in ClickHouse.
    absl::StatusOr<std::unique_ptr<core::Expression>> compiled =
        core::Expression::Compile(bound.expr);
    if (!compiled.ok()) {
      return core::Error(core::CodeOf(compiled.status()),
                         std::string(compiled.status().message()) +
                             ": default expression of column " + column.name);
    }
    for (size_t p : bound.positions) {
      if (schema->columns[p].default_kind != DefaultKind::kNone) deps[i].push_back(p);
    }
  }
  return CheckAcyclic(*schema, deps);
}

namespace {

// Positions in the block of stored columns of each declared column (-1 for ALIAS columns).
std::vector<int> StoredPositions(const core::TableSchema& schema) {
  std::vector<int> stored_of(schema.columns.size(), -1);
  int next = 0;
  for (size_t d = 0; d < schema.columns.size(); ++d) {
    if (schema.columns[d].stored()) stored_of[d] = next++;
  }
  return stored_of;
}

// Evaluates the DEFAULT / MATERIALIZED expression of declared column `d` over `block`'s rows
// (`bound` is BindColumnExpression(schema, d); its inputs are in the block).
absl::StatusOr<core::ColumnPtr> EvaluateDefault(const core::TableSchema& schema, size_t d,
                                                const BoundColumnExpression& bound,
                                                const std::vector<int>& stored_of,
                                                const core::Block& block) {
  core::Block input;
  input.rows_without_columns = block.rows();
  for (size_t p : bound.positions) input.columns.push_back(block.columns[stored_of[p]]);
  ASSIGN_OR_RETURN(std::unique_ptr<core::Expression> compiled,
                   core::Expression::Compile(bound.expr));
  absl::StatusOr<core::ColumnPtr> value = compiled->Evaluate(input);
  if (!value.ok()) {
    return core::Error(core::CodeOf(value.status()),
                       std::string(value.status().message()) +
                           ": default expression of column " + schema.columns[d].name);
  }
  return value;
}

}  // namespace

absl::Status FillDefaults(const core::TableSchema& schema, const std::vector<bool>& given,
                          core::Block* block) {
  const std::vector<int> stored_of = StoredPositions(schema);
  std::vector<size_t> pending;  // declared positions still to compute
  for (size_t d = 0; d < schema.columns.size(); ++d) {
    const core::ColumnSchema& column = schema.columns[d];
    const bool computed = column.default_kind == DefaultKind::kDefault ||
                          column.default_kind == DefaultKind::kMaterialized;
    if (stored_of[d] >= 0 && computed && !given[stored_of[d]]) pending.push_back(d);
  }
  if (pending.empty()) return absl::OkStatus();
  std::set<size_t> waiting(pending.begin(), pending.end());
  // Each pass computes the columns whose inputs are all known; CREATE refused cycles.
  for (size_t pass = 0; !waiting.empty() && pass <= schema.columns.size(); ++pass) {
    for (size_t d : pending) {
      if (!waiting.count(d)) continue;
      ASSIGN_OR_RETURN(BoundColumnExpression bound, BindColumnExpression(schema, d));
      bool ready = true;
      for (size_t p : bound.positions) ready = ready && !waiting.count(p) && stored_of[p] >= 0;
      if (!ready) continue;
      ASSIGN_OR_RETURN(block->columns[stored_of[d]],
                       EvaluateDefault(schema, d, bound, stored_of, *block));
      waiting.erase(d);
    }
  }
  if (!waiting.empty()) {
    return core::Error(core::kCyclicAliases, "Cannot compute the default of column " +
                                           schema.columns[*waiting.begin()].name +
                                           ": its expression depends on itself");
  }
  return absl::OkStatus();
}

absl::Status FillOmittedDefaults(const core::TableSchema& schema,
                                 const std::vector<std::vector<uint32_t>>& omitted,
                                 core::Block* block) {
  const std::vector<int> stored_of = StoredPositions(schema);
  // Declaration order: a DEFAULT over another omitted column sees that column's computed rows
  // when it is declared first.
  for (size_t d = 0; d < schema.columns.size(); ++d) {
    const int i = stored_of[d];
    if (i < 0 || static_cast<size_t>(i) >= omitted.size() || omitted[i].empty() ||
        schema.columns[d].default_kind != DefaultKind::kDefault) {
      continue;
    }
    ASSIGN_OR_RETURN(BoundColumnExpression bound, BindColumnExpression(schema, d));
    ASSIGN_OR_RETURN(core::ColumnPtr computed, EvaluateDefault(schema, d, bound, stored_of, *block));
    const core::Column& given = *block->columns[i];
    auto merged = std::make_shared<core::Column>(given.logical_type());
    size_t next = 0;  // into omitted[i], increasing
    for (size_t r = 0; r < given.size(); ++r) {
      const bool take = next < omitted[i].size() && omitted[i][next] == r;
      merged->AppendFrom(take ? *computed : given, r);
      if (take) ++next;
    }
    block->columns[i] = std::move(merged);
  }
  return absl::OkStatus();
}

}  // namespace granite::coordinator
