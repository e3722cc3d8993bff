#include "coordinator/exec/in_reduction.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "coordinator/sql/ast_build.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;

// The count of `table`'s rows (from its parts' statistics).
absl::StatusOr<uint64_t> CountRows(const sql::TableRef& table, const FromContext& context) {
  const sql::SelectStatement count = sql::CountStatement(table, nullptr);
  ASSIGN_OR_RETURN(LocalTable result, context.run(count));
  if (result.block.rows() != 1 || result.block.columns.empty()) return uint64_t{0};
  return result.block.columns[0]->Get<uint64_t>(0);
}

// Whether `sub` may take a filter on its one select column (file comment).
bool Reducible(const sql::SelectStatement& sub) {
  if (sub.select.size() != 1 || sub.select[0]->kind != ExprKind::kIdentifier || !sub.from ||
      sub.limit || sub.offset || !sub.limit_by.empty() || !sub.set_operands.empty() ||
      !sub.with.empty() || !sub.windows.empty() || sub.qualify || sub.with_totals ||
      sub.grouping_sets_written) {
    return false;
  }
  if (sub.group_by.empty()) return true;
  const Expr& item = *sub.select[0];
  return std::any_of(sub.group_by.begin(), sub.group_by.end(), [&](const ExprPtr& key) {
    return key->kind == ExprKind::kIdentifier && key->name == item.name &&
           key->qualifier == item.qualifier;
  });
}

// Whether the one select column of `sub` (Reducible) is a column of a table that cannot hold
// NULL: then NOT IN's answer for a value depends only on whether the value is in the set.
bool NeverNull(const sql::SelectStatement& sub, const FromContext& context) {
  const sql::TableRef& from = *sub.from;
  if (from.subquery || from.is_function || !sub.joins.empty()) return false;
  absl::StatusOr<RelationColumns> columns = context.columns_of(from);
  if (!columns.ok()) return false;
  const Expr& item = *sub.select[0];
  for (size_t i = 0; i < columns->names.size(); ++i) {
    if (columns->names[i] == item.name) return !core::IsNullable(columns->types[i]);
  }
  return false;
}

}  // namespace

absl::StatusOr<std::optional<sql::SelectStatement>> ReducedInSubquery(
    const sql::SelectStatement& sub, const sql::TableRef& table, const std::string& column,
    const std::vector<ExprPtr>& filters, const FromContext& context, bool negated) {
  if (sub.in_reduced || filters.empty() || !Reducible(sub)) return std::nullopt;
  if (negated && !NeverNull(sub, context)) return std::nullopt;
  ASSIGN_OR_RETURN(uint64_t total, CountRows(table, context));
  const uint64_t most = std::min(kMaxReducingRows, total / 4);
  sql::SelectStatement keys;
  const std::string qualifier = table.alias.empty() ? table.name : table.alias;
  keys.select.push_back(sql::MakeColumn(qualifier, column));
  keys.from = table;
  keys.where = sql::JoinAnd(filters);
  keys.in_reduced = true;
  // The passing rows' keys, up to one past the limit, in place of a count: when they are few
  // enough, the same read (uncut) is the reduced set's subquery below, which the statement's
  // SubqueryMemo answers without reading the table again.
  sql::SelectStatement capped = keys;
  capped.limit = most + 1;
  ASSIGN_OR_RETURN(LocalTable passing, context.run(capped));
  if (passing.block.rows() > most) return std::nullopt;
  auto set = std::make_shared<Expr>();
  set->kind = ExprKind::kSubquery;
  set->subquery = std::make_shared<sql::SelectStatement>(std::move(keys));
  ExprPtr item = std::make_shared<Expr>(*sub.select[0]);
  item->alias.clear();
  sql::SelectStatement reduced = sub;
  std::vector<ExprPtr> where;
  if (sub.where) where.push_back(sub.where);
  where.push_back(sql::MakeCall("in", {std::move(item), std::move(set)}));
  reduced.where = sql::JoinAnd(std::move(where));
  reduced.in_reduced = true;
  return std::optional<sql::SelectStatement>(std::move(reduced));
}

}  // namespace granite::coordinator
