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

// The count of `table`'s rows passing `where` (all rows for null).
absl::StatusOr<uint64_t> CountRows(const sql::TableRef& table, ExprPtr where,
                                   const FromContext& context) {
  sql::SelectStatement count;
  count.select.push_back(sql::MakeCall("count", {}));
  count.from = table;
  count.where = std::move(where);
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

}  // namespace

absl::StatusOr<std::optional<sql::SelectStatement>> ReducedInSubquery(
    const sql::SelectStatement& sub, const sql::TableRef& table, const std::string& column,
    const std::vector<ExprPtr>& filters, const FromContext& context) {
  if (sub.in_reduced || filters.empty() || !Reducible(sub)) return std::nullopt;
  ASSIGN_OR_RETURN(uint64_t total, CountRows(table, nullptr, context));
  ASSIGN_OR_RETURN(uint64_t passing, CountRows(table, sql::JoinAnd(filters), context));
  if (passing > kMaxReducingRows || passing * 4 > total) return std::nullopt;
  sql::SelectStatement keys;
  const std::string qualifier = table.alias.empty() ? table.name : table.alias;
  keys.select.push_back(sql::MakeColumn(qualifier, column));
  keys.from = table;
  keys.where = sql::JoinAnd(filters);
  keys.in_reduced = true;
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
