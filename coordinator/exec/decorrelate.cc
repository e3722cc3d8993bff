#include "coordinator/exec/decorrelate.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;
using sql::SelectStatement;

using ColumnsOf = std::function<absl::StatusOr<RelationColumns>(const sql::TableRef&)>;

ExprPtr Aliased(ExprPtr e, const std::string& alias) {
  auto copy = std::make_shared<Expr>(*e);
  copy->alias = alias;
  return copy;
}

ExprPtr Number(uint64_t value) {
  auto literal = std::make_shared<Expr>();
  literal->kind = ExprKind::kLiteral;
  literal->value = value;
  return literal;
}

// A subquery's correlation: its own conditions and those that name the outer query.
struct Correlation {
  std::vector<ExprPtr> kept;                          // inner conditions only
  std::vector<std::pair<ExprPtr, ExprPtr>> keys;      // outer = inner
  // One comparison of an inner and an outer expression other than equality (EXISTS only):
  // `inner <op> outer`, op one of notEquals, less, greater, lessOrEquals, greaterOrEquals.
  struct Residual {
    ExprPtr outer;
    ExprPtr inner;
    std::string op;
  };
  std::optional<Residual> differs;
};

// The comparison `b <op'> a` that holds exactly when `a <op> b` does.
std::string Flipped(const std::string& op) {
  if (op == "less") return "greater";
  if (op == "greater") return "less";
  if (op == "lessOrEquals") return "greaterOrEquals";
  if (op == "greaterOrEquals") return "lessOrEquals";
  return op;  // notEquals
}

struct InnerRelation {
  std::string alias;
  std::string table;
  std::vector<std::string> names;
};

class Decorrelator {
 public:
  explicit Decorrelator(const ColumnsOf& columns_of) : columns_of_(columns_of) {}

  absl::StatusOr<SelectStatement> Run(const SelectStatement& select) {
    SelectStatement out = select;
    std::vector<ExprPtr> conjuncts;
    sql::SplitAnd(select.where, &conjuncts);
    std::vector<ExprPtr> rewritten;
    bool changed = false;
    for (const ExprPtr& c : conjuncts) {
      ASSIGN_OR_RETURN(bool done, Rewrite(c, &out, &rewritten));
      changed = changed || done;
      if (!done) rewritten.push_back(c);
    }
    if (changed) out.where = sql::JoinAnd(std::move(rewritten));
    return out;
  }

 private:
  // Rewrites conjunct `c` when it is a handled correlated shape; returns whether it did.
  absl::StatusOr<bool> Rewrite(const ExprPtr& c, SelectStatement* out,
                               std::vector<ExprPtr>* conjuncts) {
    if (c->kind != ExprKind::kFunction) return false;
    static const char* kComparisons[] = {"equals", "notEquals", "less", "greater",
                                         "lessOrEquals", "greaterOrEquals"};
    bool comparison = false;
    for (const char* name : kComparisons) comparison = comparison || c->name == name;
    if (comparison && c->args.size() == 2) {
      const int side = c->args[0]->kind == ExprKind::kSubquery   ? 0
                       : c->args[1]->kind == ExprKind::kSubquery ? 1
                                                                 : -1;
      if (side < 0) return false;
      return RewriteScalar(*c, side, out, conjuncts);
    }
    bool negated = false;
    const Expr* exists = c.get();
    if (c->name == "not" && c->args.size() == 1 && c->args[0]->kind == ExprKind::kFunction) {
      negated = true;
      exists = c->args[0].get();
    }
    if (exists->name == "exists" && exists->args.size() == 1 &&
        exists->args[0]->kind == ExprKind::kSubquery) {
      return RewriteExists(*exists->args[0]->subquery, negated, out, conjuncts);
    }
    return false;
  }

  absl::StatusOr<bool> RewriteScalar(const Expr& comparison, int side, SelectStatement* out,
                                     std::vector<ExprPtr>* conjuncts) {
    const SelectStatement& sub = *comparison.args[side]->subquery;
    std::optional<Correlation> found = Analyze(sub);
    if (!found || found->keys.empty() || found->differs || sub.select.size() != 1 ||
        sub.select[0]->kind == ExprKind::kStar) {
      return false;
    }
    const std::string alias = NextAlias();
    SelectStatement derived = Derived(sub, *found);
    derived.select.push_back(Aliased(sub.select[0], "__v"));
    AddDerived(out, std::move(derived), alias);
    for (size_t i = 0; i < found->keys.size(); ++i) {
      conjuncts->push_back(sql::MakeCall("equals", {found->keys[i].first, sql::MakeColumn(alias, Key(i))}));
    }
    std::vector<ExprPtr> args = comparison.args;
    args[side] = sql::MakeColumn(alias, "__v");
    conjuncts->push_back(sql::MakeCall(comparison.name, std::move(args)));
    return true;
  }

  absl::StatusOr<bool> RewriteExists(const SelectStatement& sub, bool negated,
                                     SelectStatement* out, std::vector<ExprPtr>* conjuncts) {
    std::optional<Correlation> found = Analyze(sub);
    if (!found || found->keys.empty()) return false;
    if (found->keys.size() == 1 && !found->differs) {
      // outer [NOT] IN (SELECT k FROM ... WHERE inner): an uncorrelated set.
      SelectStatement set = Derived(sub, *found);
      set.group_by.clear();
      set.select = {found->keys[0].second};
      auto node = std::make_shared<Expr>();
      node->kind = ExprKind::kSubquery;
      node->subquery = std::make_shared<SelectStatement>(std::move(set));
      conjuncts->push_back(sql::MakeCall(negated ? "notIn" : "in", {found->keys[0].first, node}));
      return true;
    }
    for (const auto& key : found->keys) {
      if (key.first->kind != ExprKind::kIdentifier) return false;  // a LEFT JOIN key
    }
    if (std::optional<std::pair<std::string, std::string>> merged =
            MergeExists(sub, *found, out)) {
      ExprPtr matched = Matched(merged->first, merged->second, *found);
      conjuncts->push_back(negated ? sql::MakeCall("not", {matched}) : matched);
      return true;
    }
    const std::string alias = NextAlias();
    SelectStatement derived = Derived(sub, *found);
    derived.select.push_back(Aliased(sql::MakeCall("count", {}), "__n"));
    if (found->differs) {
      derived.select.push_back(Aliased(sql::MakeCall("min", {found->differs->inner}), "__mn"));
      derived.select.push_back(Aliased(sql::MakeCall("max", {found->differs->inner}), "__mx"));
    }
    sql::JoinClause join;
    join.kind = sql::JoinKind::kLeft;
    join.table.subquery = std::make_shared<SelectStatement>(std::move(derived));
    join.table.alias = alias;
    std::vector<ExprPtr> on;
    for (size_t i = 0; i < found->keys.size(); ++i) {
      on.push_back(sql::MakeCall("equals", {found->keys[i].first, sql::MakeColumn(alias, Key(i))}));
    }
    join.on = sql::JoinAnd(std::move(on));
    if (sub.joins.empty() && sub.settings.empty() && found->differs) {
      exists_joins_.push_back(
          ExistsJoin{out->joins.size(), alias, *sub.from, *found, false, found->kept.empty(), 1});
    }
    out->joins.push_back(std::move(join));
    ExprPtr matched = Matched(alias, "", *found);
    conjuncts->push_back(negated ? sql::MakeCall("not", {matched}) : matched);
    return true;
  }

  // The condition that some inner row of the group matches: `alias.__n<suffix> > 0`, and with a
  // residual correlation, its min or its max compared with the outer column (suffix: the columns
  // of an EXISTS merged into an earlier one's subquery, MergeExists).
  static ExprPtr Matched(const std::string& alias, const std::string& suffix,
                         const Correlation& found) {
    ExprPtr matched =
        sql::MakeCall("greater", {sql::MakeColumn(alias, "__n" + suffix), Number(0)});
    if (found.differs) {
      // Some inner row c of the group has `c <op> outer_c`: decided by the group's min and max
      // (min and max skip NULLs, as the comparison fails for a NULL c; a NULL outer_c compares
      // to NULL, which matches nothing).
      const ExprPtr& outer_c = found.differs->outer;
      const std::string& op = found.differs->op;
      const ExprPtr mn = sql::MakeColumn(alias, "__mn" + suffix);
      const ExprPtr mx = sql::MakeColumn(alias, "__mx" + suffix);
      ExprPtr some;
      if (op == "notEquals") {
        some = sql::MakeCall("or", {sql::MakeCall("notEquals", {mn, outer_c}),
                                    sql::MakeCall("notEquals", {mx, outer_c})});
      } else if (op == "less" || op == "lessOrEquals") {
        some = sql::MakeCall(op, {mn, outer_c});
      } else {
        some = sql::MakeCall(op, {mx, outer_c});
      }
      // NULL (a NULL outer_c, or a group of NULL c only) is no match: NOT EXISTS holds then.
      matched = sql::MakeCall("and", {matched, sql::MakeCall("ifNull", {some, Number(0)})});
    }
    return matched;
  }

  // An EXISTS with a residual correlation rewritten to a LEFT JOIN on its grouped table (one table,
  // no SETTINGS): a later EXISTS over the same table with the same keys and `<>` column may share
  // its read (MergeExists).
  struct ExistsJoin {
    size_t join = 0;          // in out->joins
    std::string alias;        // __sqN
    sql::TableRef table;      // the inner table as written
    Correlation found;        // the first EXISTS' correlation
    bool if_form = false;     // its aggregates rewritten as countIf / minIf / maxIf
    bool where_all = false;   // its WHERE reads every row (an EXISTS without inner conditions)
    int merged = 1;           // EXISTS sharing it
  };

  // Returns `e` with identifiers qualified by the inner table `from` (its alias or its name, as
  // Analyze takes them) qualified `to` instead.
  static ExprPtr Requalified(const ExprPtr& e, const sql::TableRef& from, const std::string& to) {
    auto copy = std::make_shared<Expr>(*e);
    if (copy->kind == ExprKind::kIdentifier && !copy->qualifier.empty() &&
        (copy->qualifier == from.alias || copy->qualifier == from.name)) {
      copy->qualifier = to;
    }
    for (ExprPtr& arg : copy->args) arg = Requalified(arg, from, to);
    return copy;
  }

  static std::string Qualifier(const sql::TableRef& ref) {
    return ref.alias.empty() ? ref.name : ref.alias;
  }

  // Two EXISTS / NOT EXISTS over one table correlated by the same keys and residual column
  // (each its own comparison), as
  //   EXISTS (SELECT * FROM t l2 WHERE l2.k = o.k AND l2.c <> o.c)
  //   AND NOT EXISTS (SELECT * FROM t l3 WHERE l3.k = o.k AND l3.c <> o.c AND <cond>)
  // read t once: the first's grouped subquery takes the second's count, min and max as
  // countIf / minIf / maxIf of its conditions, its WHERE the OR of both (none when either has
  // none), each aggregate of the first restricted to its own conditions. A group no row of an
  // EXISTS' conditions reaches counts 0 for it, as the absent group of its own LEFT JOIN did.
  // Returns the subquery's alias and the suffix of the columns to test, or nullopt when no
  // earlier EXISTS fits.
  std::optional<std::pair<std::string, std::string>> MergeExists(const SelectStatement& sub,
                                                                 const Correlation& found,
                                                                 SelectStatement* out) {
    if (!sub.joins.empty() || !sub.settings.empty() || !found.differs || !sub.from ||
        sub.from->subquery || sub.from->is_function) {
      return std::nullopt;
    }
    for (ExistsJoin& e : exists_joins_) {
      if (e.table.name != sub.from->name || e.table.database != sub.from->database ||
          e.found.keys.size() != found.keys.size()) {
        continue;
      }
      const sql::TableRef& from = *sub.from;
      const std::string to = Qualifier(e.table);
      auto same = [&](const ExprPtr& a, const ExprPtr& b) {
        return sql::ColumnName(*a) == sql::ColumnName(*Requalified(b, from, to));
      };
      const std::string outer_c = sql::ColumnName(*found.differs->outer);
      bool fits = same(e.found.differs->inner, found.differs->inner) &&
                  sql::ColumnName(*e.found.differs->outer) == outer_c;
      for (size_t i = 0; fits && i < found.keys.size(); ++i) {
        fits = sql::ColumnName(*e.found.keys[i].first) == sql::ColumnName(*found.keys[i].first) &&
               same(e.found.keys[i].second, found.keys[i].second);
      }
      if (!fits) continue;
      auto derived = std::make_shared<SelectStatement>(*out->joins[e.join].table.subquery);
      const ExprPtr inner_c = e.found.differs->inner;
      if (!e.if_form && !e.where_all) {
        // The first EXISTS' aggregates keep to its own conditions once the WHERE widens.
        const ExprPtr cond = sql::JoinAnd(e.found.kept);
        for (ExprPtr& item : derived->select) {
          if (item->alias == "__n") item = Aliased(sql::MakeCall("countIf", {cond}), "__n");
          if (item->alias == "__mn") {
            item = Aliased(sql::MakeCall("minIf", {inner_c, cond}), "__mn");
          }
          if (item->alias == "__mx") {
            item = Aliased(sql::MakeCall("maxIf", {inner_c, cond}), "__mx");
          }
        }
      }
      e.if_form = true;
      std::vector<ExprPtr> kept;
      for (const ExprPtr& c : found.kept) kept.push_back(Requalified(c, from, to));
      const ExprPtr cond = sql::JoinAnd(kept);
      const std::string suffix = "_" + std::to_string(++e.merged);
      if (cond) {
        derived->select.push_back(Aliased(sql::MakeCall("countIf", {cond}), "__n" + suffix));
        derived->select.push_back(
            Aliased(sql::MakeCall("minIf", {inner_c, cond}), "__mn" + suffix));
        derived->select.push_back(
            Aliased(sql::MakeCall("maxIf", {inner_c, cond}), "__mx" + suffix));
      } else {
        derived->select.push_back(Aliased(sql::MakeCall("count", {}), "__n" + suffix));
        derived->select.push_back(Aliased(sql::MakeCall("min", {inner_c}), "__mn" + suffix));
        derived->select.push_back(Aliased(sql::MakeCall("max", {inner_c}), "__mx" + suffix));
      }
      if (e.where_all || !cond) {
        e.where_all = true;
        derived->where = nullptr;
      } else {
        derived->where = sql::MakeCall("or", {derived->where, cond});
      }
      out->joins[e.join].table.subquery = std::move(derived);
      return std::make_pair(e.alias, suffix);
    }
    return std::nullopt;
  }

  static std::string Key(size_t i) { return "__k" + std::to_string(i); }

  std::string NextAlias() { return "__sq" + std::to_string(++derived_count_); }

  // SELECT k0 AS __k0, ... FROM <sub's FROM> WHERE <kept> GROUP BY k0, ...
  static SelectStatement Derived(const SelectStatement& sub, const Correlation& found) {
    SelectStatement derived;
    derived.from = sub.from;
    derived.joins = sub.joins;
    derived.where = sql::JoinAnd(found.kept);
    derived.settings = sub.settings;
    for (size_t i = 0; i < found.keys.size(); ++i) {
      derived.select.push_back(Aliased(found.keys[i].second, Key(i)));
      derived.group_by.push_back(found.keys[i].second);
    }
    return derived;
  }

  static void AddDerived(SelectStatement* out, SelectStatement derived, const std::string& alias) {
    sql::JoinClause join;
    join.comma = true;
    join.kind = sql::JoinKind::kCross;
    join.table.subquery = std::make_shared<SelectStatement>(std::move(derived));
    join.table.alias = alias;
    out->joins.push_back(std::move(join));
  }

  // The subquery's correlation, or nullopt when it is uncorrelated or of a shape not handled.
  std::optional<Correlation> Analyze(const SelectStatement& sub) {
    if (!sub.set_operands.empty() || !sub.with.empty() || !sub.group_by.empty() || sub.having ||
        !sub.from || sub.limit) {
      return std::nullopt;
    }
    std::vector<InnerRelation> relations;
    std::vector<const sql::TableRef*> refs = {&*sub.from};
    for (const sql::JoinClause& join : sub.joins) refs.push_back(&join.table);
    for (const sql::TableRef* ref : refs) {
      if (ref->subquery || ref->database == "system") return std::nullopt;
      absl::StatusOr<RelationColumns> columns = columns_of_(*ref);
      if (!columns.ok()) return std::nullopt;
      relations.push_back({ref->alias.empty() ? ref->name : ref->alias, ref->name,
                           std::move(columns->names)});
    }
    auto inner = [&](const Expr& id) {
      for (const InnerRelation& relation : relations) {
        if (!id.qualifier.empty() && id.qualifier != relation.alias && id.qualifier != relation.table) {
          continue;
        }
        for (const std::string& name : relation.names) {
          if (name == id.name) return true;
        }
      }
      return false;
    };
    struct Sides {
      bool inner = false;
      bool outer = false;
    };
    std::function<void(const Expr&, Sides*)> walk = [&](const Expr& e, Sides* sides) {
      if (e.kind == ExprKind::kIdentifier) {
        (inner(e) ? sides->inner : sides->outer) = true;
      }
      for (const ExprPtr& arg : e.args) walk(*arg, sides);
    };
    auto sides_of = [&](const Expr& e) {
      Sides sides;
      walk(e, &sides);
      return sides;
    };
    for (const ExprPtr& item : sub.select) {
      if (item->kind != ExprKind::kStar && (sides_of(*item).outer || sql::ContainsSubquery(*item))) {
        return std::nullopt;
      }
    }
    for (const sql::JoinClause& join : sub.joins) {
      if (join.on && sides_of(*join.on).outer) return std::nullopt;
    }
    std::vector<ExprPtr> conjuncts;
    sql::SplitAnd(sub.where, &conjuncts);
    Correlation found;
    for (const ExprPtr& c : conjuncts) {
      if (sql::ContainsSubquery(*c)) return std::nullopt;
      if (!sides_of(*c).outer) {
        found.kept.push_back(c);
        continue;
      }
      const bool eq = c->name == "equals";
      const bool residual = c->name == "notEquals" || c->name == "less" ||
                            c->name == "greater" || c->name == "lessOrEquals" ||
                            c->name == "greaterOrEquals";
      if (c->kind != ExprKind::kFunction || (!eq && !residual) || c->args.size() != 2) {
        return std::nullopt;
      }
      Sides a = sides_of(*c->args[0]);
      Sides b = sides_of(*c->args[1]);
      std::pair<ExprPtr, ExprPtr> pair;  // outer, inner
      std::string op = c->name;          // as `inner <op> outer`
      if (a.outer && !a.inner && b.inner && !b.outer) {
        pair = {c->args[0], c->args[1]};
        op = Flipped(op);
      } else if (b.outer && !b.inner && a.inner && !a.outer) {
        pair = {c->args[1], c->args[0]};
      } else {
        return std::nullopt;
      }
      if (eq) {
        found.keys.push_back(std::move(pair));
      } else if (!found.differs) {
        found.differs = Correlation::Residual{pair.first, pair.second, op};
      } else {
        return std::nullopt;  // two residuals must hold on one inner row: not by min / max
      }
    }
    if (found.keys.empty() && !found.differs) return std::nullopt;
    return found;
  }

  const ColumnsOf& columns_of_;
  int derived_count_ = 0;
  std::vector<ExistsJoin> exists_joins_;
};

}  // namespace

absl::StatusOr<SelectStatement> Decorrelate(const SelectStatement& select,
                                            const ColumnsOf& columns_of) {
  return Decorrelator(columns_of).Run(select);
}

}  // namespace granite::coordinator
