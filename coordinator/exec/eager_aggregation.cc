#include "coordinator/exec/eager_aggregation.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"
#include "core/aggregation/aggregate_function_factory.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;
using sql::SelectStatement;

constexpr char kDerived[] = "__eg";

struct Relation {
  const sql::TableRef* ref;
  std::string name;  // alias, else the table's name
  std::set<std::string> columns;
};

// What one walk over expressions found: the relations named outside aggregate arguments and
// inside them, and the aggregate calls (the outermost of each).
struct Found {
  std::set<size_t> outside;
  std::set<size_t> inside;
  std::vector<const Expr*> aggregates;
  bool unsupported = false;
};

class Classifier {
 public:
  Classifier(const std::vector<Relation>& relations, const std::set<std::string>& aliases)
      : relations_(relations), aliases_(aliases) {}

  // The relation an identifier names: nullopt for a select-list alias; sets `unsupported` when
  // it names none or several.
  std::optional<size_t> Resolve(const Expr& id, Found* found) const {
    std::optional<size_t> match;
    for (size_t r = 0; r < relations_.size(); ++r) {
      const Relation& relation = relations_[r];
      if (!id.qualifier.empty() && id.qualifier != relation.name) continue;
      if (!relation.columns.count(id.name)) continue;
      if (match) {
        found->unsupported = true;  // ambiguous
        return std::nullopt;
      }
      match = r;
    }
    if (!match && !(id.qualifier.empty() && aliases_.count(id.name))) found->unsupported = true;
    return match;
  }

  void Walk(const Expr& e, bool in_aggregate, Found* found) const {
    switch (e.kind) {
      case ExprKind::kLiteral:
      case ExprKind::kSet:
        return;
      case ExprKind::kSubquery:
        found->unsupported = true;
        return;
      case ExprKind::kStar:
        if (!in_aggregate) found->unsupported = true;
        return;
      case ExprKind::kIdentifier: {
        std::optional<size_t> r = Resolve(e, found);
        if (r) (in_aggregate ? found->inside : found->outside).insert(*r);
        if (!r && in_aggregate) found->unsupported = true;  // an alias inside an aggregate
        return;
      }
      case ExprKind::kFunction:
        break;
    }
    if (e.over != nullptr) {
      found->unsupported = true;
      return;
    }
    const bool aggregate = e.distinct || core::IsAggregateFunction(e.name);
    if (aggregate) {
      const std::string name = absl::AsciiStrToLower(e.name);
      if (in_aggregate || e.distinct ||
          (name != "sum" && name != "count" && name != "min" && name != "max")) {
        found->unsupported = true;
        return;
      }
      found->aggregates.push_back(&e);
    }
    for (const ExprPtr& arg : e.args) {
      if (arg) Walk(*arg, in_aggregate || aggregate, found);
    }
  }

 private:
  const std::vector<Relation>& relations_;
  const std::set<std::string>& aliases_;
};

// The relations of an equality `a = b` of two columns, with the columns; nullopt otherwise.
struct ColumnEquality {
  size_t left_relation, right_relation;
  const Expr* left;
  const Expr* right;
};

std::optional<ColumnEquality> AsColumnEquality(const Expr& e, const Classifier& classifier) {
  if (e.kind != ExprKind::kFunction || e.name != "equals" || e.args.size() != 2) return {};
  const Expr& a = *e.args[0];
  const Expr& b = *e.args[1];
  if (a.kind != ExprKind::kIdentifier || b.kind != ExprKind::kIdentifier) return {};
  Found found;
  std::optional<size_t> ra = classifier.Resolve(a, &found);
  std::optional<size_t> rb = classifier.Resolve(b, &found);
  if (!ra || !rb || found.unsupported) return {};
  return ColumnEquality{*ra, *rb, &a, &b};
}

// Returns `e` with each aggregate call replaced by its outer form over the derived table.
ExprPtr ReplaceAggregates(const ExprPtr& e, const std::map<std::string, ExprPtr>& outer_of) {
  if (!e || e->kind != ExprKind::kFunction) return e;
  if (auto it = outer_of.find(sql::ColumnName(*e)); it != outer_of.end() && e->over == nullptr &&
                                                    core::IsAggregateFunction(e->name)) {
    auto copy = std::make_shared<Expr>(*it->second);
    copy->alias = e->alias;
    copy->position = e->position;
    return copy;
  }
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr& arg : copy->args) arg = ReplaceAggregates(arg, outer_of);
  return copy;
}

sql::JoinClause CommaJoin(const sql::TableRef& table) {
  sql::JoinClause join;
  join.comma = true;
  join.kind = sql::JoinKind::kCross;
  join.table = table;
  return join;
}

// Whether `join` is a plain `LEFT [OUTER] JOIN ... ON`.
bool IsLeftJoin(const sql::JoinClause& join) {
  return join.kind == sql::JoinKind::kLeft && join.strictness == sql::JoinStrictness::kAll &&
         !join.comma && join.on != nullptr && join.using_columns.empty();
}

bool SelectShapeFits(const SelectStatement& s, bool join_use_nulls) {
  if (!s.from || s.joins.empty() || s.group_by.empty() || s.grouping_sets_written ||
      s.with_totals || s.group_by_all || s.order_by_all || s.distinct || !s.windows.empty() ||
      s.qualify || !s.limit_by.empty() || !s.array_joins.empty() || !s.set_operands.empty() ||
      s.interpolate) {
    return false;
  }
  auto plain = [](const sql::TableRef& ref) {
    return !ref.name.empty() && !ref.is_function && !ref.subquery && !ref.array_join &&
           ref.database != "system";
  };
  if (!plain(*s.from)) return false;
  for (size_t j = 0; j < s.joins.size(); ++j) {
    const sql::JoinClause& join = s.joins[j];
    // The last join may be LEFT when its unmatched rows read as NULLs (the child-count shape).
    const bool left = j + 1 == s.joins.size() && join_use_nulls && IsLeftJoin(join);
    if ((!left && !IsInnerJoin(join)) || !join.using_columns.empty() || !plain(join.table)) {
      return false;
    }
  }
  for (const sql::OrderItem& item : s.order_by) {
    if (item.fill) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::optional<SelectStatement>> AggregateBelowJoins(
    const SelectStatement& select,
    const std::function<absl::StatusOr<RelationColumns>(const sql::TableRef&)>& columns_of,
    bool join_use_nulls) {
  if (!SelectShapeFits(select, join_use_nulls)) return std::nullopt;
  const bool left_join = IsLeftJoin(select.joins.back()) && !IsInnerJoin(select.joins.back());
  // The relations and their columns.
  std::vector<Relation> relations;
  std::vector<const sql::TableRef*> refs = {&*select.from};
  for (const sql::JoinClause& join : select.joins) refs.push_back(&join.table);
  std::set<std::string> names;
  for (const sql::TableRef* ref : refs) {
    absl::StatusOr<RelationColumns> columns = columns_of(*ref);
    if (!columns.ok()) return std::nullopt;  // the normal path reports it
    Relation relation{ref, ref->alias.empty() ? ref->name : ref->alias, {}};
    relation.columns.insert(columns->names.begin(), columns->names.end());
    if (!names.insert(relation.name).second) return std::nullopt;
    relations.push_back(std::move(relation));
  }
  // Select-list aliases, none of them also a column name.
  std::set<std::string> aliases;
  for (const ExprPtr& item : select.select) {
    if (item->alias.empty()) continue;
    for (const Relation& relation : relations) {
      if (relation.columns.count(item->alias)) return std::nullopt;
    }
    aliases.insert(item->alias);
  }
  const Classifier classifier(relations, aliases);
  // Where each table is named: outside aggregates (the dimension side) or inside (the facts).
  Found uses;
  for (const ExprPtr& item : select.select) classifier.Walk(*item, false, &uses);
  for (const ExprPtr& key : select.group_by) classifier.Walk(*key, false, &uses);
  if (select.having) classifier.Walk(*select.having, false, &uses);
  for (const sql::OrderItem& item : select.order_by) classifier.Walk(*item.expr, false, &uses);
  if (uses.unsupported || uses.aggregates.empty() || uses.inside.empty()) return std::nullopt;
  for (size_t r : uses.inside) {
    if (uses.outside.count(r)) return std::nullopt;
  }
  // The conditions: WHERE and the inner joins' ON, as conjuncts.
  std::vector<ExprPtr> conjuncts;
  sql::SplitAnd(select.where, &conjuncts);
  const size_t where_conjuncts = conjuncts.size();
  size_t left_on_begin = SIZE_MAX;  // a LEFT join's own ON conditions: from this index on
  for (size_t j = 0; j < select.joins.size(); ++j) {
    if (left_join && j + 1 == select.joins.size()) left_on_begin = conjuncts.size();
    sql::SplitAnd(select.joins[j].on, &conjuncts);
  }
  std::vector<std::set<size_t>> named(conjuncts.size());
  std::vector<std::optional<ColumnEquality>> equalities(conjuncts.size());
  for (size_t c = 0; c < conjuncts.size(); ++c) {
    Found found;
    classifier.Walk(*conjuncts[c], false, &found);
    if (found.unsupported || !found.aggregates.empty()) return std::nullopt;
    named[c] = found.outside;
    equalities[c] = AsColumnEquality(*conjuncts[c], classifier);
  }
  // The fact side: the aggregated tables and the tables joined to them by equalities, not
  // through the dimension side.
  std::vector<bool> fact(relations.size(), false);
  for (size_t r : uses.inside) fact[r] = true;
  if (left_join) {
    // The facts are the LEFT-joined table alone, every other one its preserved side.
    const size_t last = relations.size() - 1;
    for (size_t r = 0; r < last; ++r) {
      if (fact[r]) return std::nullopt;
    }
    if (!fact[last]) return std::nullopt;
    // An unmatched row's partial is NULL: exact only for arguments that are NULL there too, the
    // facts' own columns (count(1), sum(ifNull(o.x, 0)) would count the unmatched rows).
    for (const Expr* call : uses.aggregates) {
      const bool rows = absl::AsciiStrToLower(call->name) == "count" &&
                        (call->args.empty() || call->args[0]->kind == ExprKind::kStar);
      if (rows) continue;
      for (const ExprPtr& arg : call->args) {
        Found ignored;
        if (arg->kind != ExprKind::kIdentifier || classifier.Resolve(*arg, &ignored) != last) {
          return std::nullopt;
        }
      }
    }
  }
  for (bool grew = !left_join; grew;) {
    grew = false;
    for (const std::optional<ColumnEquality>& eq : equalities) {
      if (!eq) continue;
      for (auto [from, to] : {std::pair{eq->left_relation, eq->right_relation},
                              std::pair{eq->right_relation, eq->left_relation}}) {
        if (fact[from] && !fact[to] && !uses.outside.count(to)) {
          fact[to] = true;
          grew = true;
        }
      }
    }
  }
  // Conditions of one side stay with it; one naming both is `dimension column = fact column`,
  // whose fact column becomes a key of the pre-aggregation.
  std::vector<ExprPtr> inner_where, outer_where;
  std::vector<std::pair<const Expr*, const Expr*>> links;  // (dimension column, fact column)
  for (size_t c = 0; c < conjuncts.size(); ++c) {
    bool any_fact = false, any_dimension = false;
    for (size_t r : named[c]) (fact[r] ? any_fact : any_dimension) = true;
    // Under a LEFT join, WHERE may not read the facts (it would drop unmatched rows) and the
    // ON may not test the preserved side alone (it decides matching, not keeping).
    if (left_join && c < where_conjuncts && any_fact) return std::nullopt;
    if (left_join && c >= left_on_begin && !any_fact) return std::nullopt;
    if (!any_dimension && any_fact) {
      inner_where.push_back(conjuncts[c]);
    } else if (!any_fact) {
      outer_where.push_back(conjuncts[c]);
    } else {
      const std::optional<ColumnEquality>& eq = equalities[c];
      if (!eq || fact[eq->left_relation] == fact[eq->right_relation]) return std::nullopt;
      links.emplace_back(fact[eq->left_relation] ? eq->right : eq->left,
                         fact[eq->left_relation] ? eq->left : eq->right);
    }
  }
  if (links.empty()) return std::nullopt;
  // The pre-aggregation's keys: the distinct fact columns of the links.
  std::vector<const Expr*> keys;
  std::map<std::string, size_t> key_of;  // "relation.column" -> index in keys
  auto column_id = [&](const Expr& id) {
    Found ignored;
    return relations[*classifier.Resolve(id, &ignored)].name + "." + id.name;
  };
  for (const auto& [dimension, fact_column] : links) {
    if (key_of.emplace(column_id(*fact_column), keys.size()).second) keys.push_back(fact_column);
  }
  // It pays when a link's dimension column is a GROUP BY key and the GROUP BY carries more
  // columns than the join does.
  std::set<std::string> group_columns;
  for (const ExprPtr& key : select.group_by) {
    if (key->kind == ExprKind::kIdentifier) {
      Found ignored;
      if (classifier.Resolve(*key, &ignored)) group_columns.insert(column_id(*key));
    }
  }
  const bool keyed = std::any_of(links.begin(), links.end(), [&](const auto& link) {
    return group_columns.count(column_id(*link.first)) > 0;
  });
  // Under a LEFT join it pays by itself: the join builds one row per key, not every fact.
  if (!keyed || (!left_join && select.group_by.size() <= keys.size())) return std::nullopt;

  // The pre-aggregation: the fact tables grouped by the keys, one column per aggregate.
  auto inner = std::make_shared<SelectStatement>();
  std::map<std::string, ExprPtr> outer_of;
  for (size_t k = 0; k < keys.size(); ++k) {
    auto key = std::make_shared<Expr>(*keys[k]);
    key->alias = "__eg_k" + std::to_string(k);
    inner->select.push_back(key);
    inner->group_by.push_back(sql::MakeColumn(keys[k]->qualifier, keys[k]->name));
  }
  for (const Expr* call : uses.aggregates) {
    const std::string text = sql::ColumnName(*call);
    if (outer_of.count(text)) continue;
    const std::string column = "__eg_a" + std::to_string(outer_of.size());
    auto partial = std::make_shared<Expr>(*call);
    partial->alias = column;
    inner->select.push_back(partial);
    const std::string name = absl::AsciiStrToLower(call->name);
    ExprPtr partial_column = sql::MakeColumn(kDerived, column, call->position);
    if (left_join && name == "count") {
      // An unmatched row's partial is NULL: it counts 1 row for count() and 0 values for
      // count(x), as the original counts the one joined row of NULLs.
      const bool rows = call->args.empty() || call->args[0]->kind == ExprKind::kStar;
      partial_column = sql::MakeCall("ifNull", {partial_column, sql::MakeLiteral(uint64_t{rows})});
    }
    outer_of[text] = sql::MakeCall(name == "count" ? "sum" : name, {partial_column});
  }
  // One side's tables as a comma-joined FROM of `out`.
  auto place = [&](bool fact_side, SelectStatement* out) {
    out->joins.clear();
    bool first = true;
    for (size_t r = 0; r < relations.size(); ++r) {
      if (fact[r] != fact_side) continue;
      if (first) {
        out->from = *relations[r].ref;
      } else {
        out->joins.push_back(CommaJoin(*relations[r].ref));
      }
      first = false;
    }
  };
  place(true, inner.get());
  inner->where = sql::JoinAnd(inner_where);
  *inner = sql::WithOuterSettings(*inner, select);

  // The outer query: the dimension tables and the pre-aggregation.
  SelectStatement outer = select;
  place(false, &outer);
  sql::TableRef derived;
  derived.subquery = inner;
  derived.alias = kDerived;
  std::vector<ExprPtr> on;
  for (const auto& [dimension, fact_column] : links) {
    const size_t k = key_of.at(column_id(*fact_column));
    on.push_back(sql::MakeCall("equals", {std::make_shared<Expr>(*dimension),
                                          sql::MakeColumn(kDerived, "__eg_k" + std::to_string(k))}));
  }
  if (left_join) {
    sql::JoinClause join = select.joins.back();
    join.table = derived;
    join.on = sql::JoinAnd(on);
    outer.joins.push_back(std::move(join));
  } else {
    outer.joins.push_back(CommaJoin(derived));
    outer_where.insert(outer_where.end(), on.begin(), on.end());
  }
  outer.where = sql::JoinAnd(outer_where);
  // The result keeps the names of the original select items.
  for (ExprPtr& item : outer.select) {
    const std::string name = item->alias.empty() ? sql::ColumnName(*item) : item->alias;
    ExprPtr replaced = ReplaceAggregates(item, outer_of);
    if (replaced != item) {
      replaced->alias = name;  // a copy: ReplaceAggregates copies what it changes
      item = replaced;
    }
  }
  outer.having = ReplaceAggregates(select.having, outer_of);
  for (sql::OrderItem& item : outer.order_by) item.expr = ReplaceAggregates(item.expr, outer_of);
  return outer;
}

}  // namespace granite::coordinator
