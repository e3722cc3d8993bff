#include "coordinator/exec/subquery_merge.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/exec/array_join.h"

#include "absl/strings/match.h"
#include "coordinator/planner/select_binder.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"
#include "core/aggregation/aggregate_function_factory.h"

namespace granite::coordinator {
namespace {

using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;
using sql::SelectStatement;

// Nested subqueries merge one level per pass; deeper nests keep the rest as subqueries.
constexpr int kMaxPasses = 16;

// True when `visit` holds for `e` and every node under it.
bool Every(const Expr& e, const std::function<bool(const Expr&)>& visit) {
  if (!visit(e)) return false;
  for (const ExprPtr& arg : e.args) {
    if (arg && !Every(*arg, visit)) return false;
  }
  return true;
}

// A node a merge may move or repeat: no subquery, window, lambda or row-multiplying call, and no
// call whose value differs per evaluation (a column used twice would differ from itself).
bool Movable(const Expr& e) {
  return Every(e, [](const Expr& n) {
    if (n.kind == ExprKind::kSubquery || n.over) return false;
    if (n.kind != ExprKind::kFunction) return true;
    return n.name != "lambda" && n.name != "arrayJoin" && !absl::StartsWith(n.name, "rand") &&
           !absl::StartsWith(n.name, "generateUUID");
  });
}

bool HasAggregate(const Expr& e) {
  return !Every(e, [](const Expr& n) {
    return n.kind != ExprKind::kFunction || !core::IsAggregateFunction(n.name);
  });
}

// The unqualified identifiers under `e`.
void CollectNames(const Expr& e, std::set<std::string>* out) {
  Every(e, [out](const Expr& n) {
    if (n.kind == ExprKind::kIdentifier && n.qualifier.empty()) out->insert(n.name);
    return true;
  });
}

ExprPtr Copy(const Expr& e) {
  auto out = std::make_shared<Expr>(e);
  for (ExprPtr& arg : out->args) {
    if (arg) arg = Copy(*arg);
  }
  return out;
}

// The output name of select item `item`, as the binder gives it.
std::string OutputName(const Expr& item) {
  return item.alias.empty() ? sql::ColumnName(*CanonicalForName(item)) : item.alias;
}

// The subquery's columns: output name -> expression (alias removed). Empty `columns` with
// `pass_through` for `SELECT * FROM one_source [WHERE ...]`, whose names pass through unchanged.
struct InnerColumns {
  std::map<std::string, ExprPtr> columns;
  bool pass_through = false;
  std::set<std::string> names_used;  // unqualified identifiers of its items and WHERE
};

std::optional<InnerColumns> ReadInner(const SelectStatement& inner) {
  if (!inner.with.empty() || inner.distinct || !inner.group_by.empty() ||
      inner.grouping_sets_written || inner.with_totals || inner.group_by_all || inner.having ||
      !inner.windows.empty() || inner.qualify || inner.limit || inner.offset ||
      !inner.limit_by.empty() || inner.interpolate || !inner.format.empty() ||
      !inner.settings.empty() || !inner.set_operands.empty() || !inner.from) {
    return std::nullopt;
  }
  // ORDER BY too: ClickHouse returns a subquery's order through a plain outer SELECT, and users
  // rely on it.
  if (!inner.order_by.empty()) return std::nullopt;
  if (inner.where && (!Movable(*inner.where) || HasAggregate(*inner.where))) return std::nullopt;
  InnerColumns out;
  if (inner.where) CollectNames(*inner.where, &out.names_used);
  if (inner.select.size() == 1 && inner.select[0]->kind == ExprKind::kStar &&
      inner.select[0]->qualifier.empty() && inner.joins.empty()) {
    out.pass_through = true;
    return out;
  }
  std::set<std::string> aliases;  // names that are not the item's own column
  for (const ExprPtr& item : inner.select) {
    if (item->kind == ExprKind::kStar || !Movable(*item) || HasAggregate(*item)) {
      return std::nullopt;
    }
    const std::string name = OutputName(*item);
    ExprPtr column = Copy(*item);
    column->alias.clear();
    if (!out.columns.emplace(name, std::move(column)).second) return std::nullopt;
    if (!(item->kind == ExprKind::kIdentifier && item->name == name)) aliases.insert(name);
    CollectNames(*item, &out.names_used);
  }
  for (const std::string& name : aliases) {
    if (out.names_used.count(name)) return std::nullopt;  // items or WHERE use an alias
  }
  return out;
}

// Rewrites the outer SELECT's expressions over the subquery's columns; `failed` is set when an
// identifier names neither a subquery column nor one of `outer_aliases`.
class Substitution {
 public:
  Substitution(const InnerColumns& inner, std::string subquery_alias,
               std::set<std::string> outer_aliases)
      : inner_(inner),
        alias_(std::move(subquery_alias)),
        outer_aliases_(std::move(outer_aliases)) {}

  ExprPtr Apply(const ExprPtr& e) {
    if (!e) return e;
    if (e->kind == ExprKind::kIdentifier) return Identifier(*e);
    auto out = std::make_shared<Expr>(*e);
    for (ExprPtr& arg : out->args) arg = Apply(arg);
    return out;
  }

  bool failed() const { return failed_; }

 private:
  ExprPtr Identifier(const Expr& e) {
    const bool ours = e.qualifier.empty() || e.qualifier == alias_;
    if (!ours) {
      failed_ = true;
      return std::make_shared<Expr>(e);
    }
    if (inner_.pass_through) {
      auto out = std::make_shared<Expr>(e);
      out->qualifier.clear();
      return out;
    }
    auto it = inner_.columns.find(e.name);
    if (it != inner_.columns.end()) {
      ExprPtr out = Copy(*it->second);
      out->alias = e.alias;
      return out;
    }
    if (!e.qualifier.empty() || !outer_aliases_.count(e.name)) failed_ = true;
    return std::make_shared<Expr>(e);
  }

  const InnerColumns& inner_;
  const std::string alias_;
  const std::set<std::string> outer_aliases_;
  bool failed_ = false;
};

std::optional<SelectStatement> MergeOnce(const SelectStatement& outer) {
  // WITH name AS (SELECT ...) items were resolved into subqueries already; WITH expr AS name
  // defines a name the substitution would have to know.
  const bool expression_with = std::any_of(outer.with.begin(), outer.with.end(),
                                           [](const sql::WithItem& w) { return !w.subquery; });
  // ARRAY JOIN multiplies the subquery's rows: not a projection to substitute.
  if (!outer.from || !outer.from->subquery || !outer.joins.empty() || expression_with ||
      outer.from->array_join || !outer.array_joins.empty() || HasArrayJoin(*outer.from->subquery) ||
      !outer.windows.empty() || outer.qualify || outer.interpolate ||
      !outer.set_operands.empty()) {
    return std::nullopt;
  }
  std::optional<InnerColumns> inner = ReadInner(*outer.from->subquery);
  if (!inner) return std::nullopt;
  std::vector<const Expr*> exprs;
  for (const ExprPtr& item : outer.select) exprs.push_back(item.get());
  if (outer.where) exprs.push_back(outer.where.get());
  if (outer.having) exprs.push_back(outer.having.get());
  for (const ExprPtr& key : outer.group_by) exprs.push_back(key.get());
  for (const sql::OrderItem& order : outer.order_by) exprs.push_back(order.expr.get());
  for (const ExprPtr& key : outer.limit_by) exprs.push_back(key.get());
  for (const Expr* e : exprs) {
    if (!Movable(*e)) return std::nullopt;
  }
  // Every select item keeps its output name as an alias. No alias may shadow a subquery column,
  // nor a name the subquery's items or WHERE use, unless it is that very column.
  std::set<std::string> outer_aliases, names;
  for (const ExprPtr& item : outer.select) {
    if (item->kind == ExprKind::kStar && !inner->pass_through) return std::nullopt;
    if (item->kind == ExprKind::kStar) continue;
    const std::string name = OutputName(*item);
    if (!names.insert(name).second) return std::nullopt;
    const bool own_column = item->kind == ExprKind::kIdentifier && item->name == name;
    if (!own_column && (inner->columns.count(name) || inner->names_used.count(name))) {
      return std::nullopt;
    }
    if (!item->alias.empty()) outer_aliases.insert(item->alias);
  }
  Substitution substitute(*inner, outer.from->alias, outer_aliases);
  SelectStatement merged = outer;
  const SelectStatement& sub = *outer.from->subquery;
  merged.select.clear();
  for (const ExprPtr& item : outer.select) {
    if (item->kind == ExprKind::kStar) {
      merged.select.push_back(item);
      continue;
    }
    ExprPtr rewritten = substitute.Apply(item);
    rewritten->alias = OutputName(*item);
    merged.select.push_back(std::move(rewritten));
  }
  std::vector<ExprPtr> where;
  if (sub.where) where.push_back(Copy(*sub.where));
  if (outer.where) where.push_back(substitute.Apply(outer.where));
  merged.where = sql::JoinAnd(std::move(where));
  merged.having = substitute.Apply(outer.having);
  for (ExprPtr& key : merged.group_by) key = substitute.Apply(key);
  for (std::vector<ExprPtr>& set : merged.grouping_sets) {
    for (ExprPtr& key : set) key = substitute.Apply(key);
  }
  for (sql::OrderItem& order : merged.order_by) order.expr = substitute.Apply(order.expr);
  for (ExprPtr& key : merged.limit_by) key = substitute.Apply(key);
  if (substitute.failed()) return std::nullopt;
  merged.from = sub.from;
  merged.joins = sub.joins;
  return merged;
}

}  // namespace

std::optional<SelectStatement> MergeFromSubquery(const SelectStatement& outer) {
  std::optional<SelectStatement> merged;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    std::optional<SelectStatement> next = MergeOnce(merged ? *merged : outer);
    if (!next) break;
    merged = std::move(next);
  }
  return merged;
}

}  // namespace granite::coordinator
