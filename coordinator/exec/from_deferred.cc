// FromMaterializer's deferred subqueries (from_materializer.h): a subquery in FROM that groups by
// the column it is joined on, as the decorrelator writes a correlated EXISTS or scalar subquery,
//   SELECT ... FROM supplier s, lineitem l1, nation n
//   LEFT JOIN (SELECT l_orderkey AS k, count() AS c, ... FROM lineitem l2 GROUP BY l_orderkey) q
//     ON l1.l_orderkey = q.k
//   WHERE l1.l_suppkey = s.s_suppkey AND s.s_nationkey = n.n_nationkey AND n.n_name = 'X' ...
// would aggregate the whole fact table while only the keys of the few outer rows that pass the
// FROM's filters ask it. It is run after those filters are known instead, with the keys its
// partner's rows can hold as an IN set in its WHERE (`l2.l_orderkey IN (SELECT DISTINCT
// l1.l_orderkey FROM lineitem l1 WHERE <l1's filter> AND l1.l_suppkey IN (<the suppliers of
// X>))`): a filter on a group key keeps the other groups whole, and a group whose key no partner
// row holds joins nothing, so the answer is the same. A table joined to the partner on the same
// column (orders on l1.l_orderkey) takes that set as well.
//
// The partner is a table inner-joined with the subquery (comma or INNER), or for a LEFT (ALL,
// SEMI, ANTI) or INNER join after an inner prefix a table of that prefix named by the ON
// equalities (its rows are real, never defaults of an outer join). Worth it when the partner's
// rows that pass its filter and those sets are at most a quarter of it and kMaxPartnerRows.
//
// The same key sets of small filtered tables also filter the largest table where the workers read
// it (SetProbeSets, Relation::probe_sets): a scanned row whose key no partner holds is dropped by
// one set lookup before any join probes it. They are added after the plan is chosen (its row
// counts stay those of the table's own filter), and only where they pay for their reads.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/exec/from_materializer.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator::from_internal {
namespace {

// The most partner rows whose keys become a deferred subquery's set (one column of values,
// exec/subqueries.h).
constexpr uint64_t kMaxPartnerRows = 2'000'000;
// The most rows of a small filtered table whose keys narrow the partner's rows first.
constexpr uint64_t kMaxNarrowingRows = 100'000;
// A probe's set (SetProbeSets) pays when the scan rows it drops are this many times the rows
// read to build it.
constexpr double kSetPaysBack = 3.0;

bool HasWindow(const Expr& e) {
  if (e.over) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return HasWindow(*a); });
}

// The select item of `sub` whose output column is `name`.
const Expr* ItemNamed(const sql::SelectStatement& sub, const std::string& name) {
  for (const ExprPtr& item : sub.select) {
    if (item->alias == name ||
        (item->alias.empty() && item->kind == ExprKind::kIdentifier && item->name == name)) {
      return item.get();
    }
  }
  return nullptr;
}

}  // namespace

size_t FromMaterializer::Scope() const {
  if (!ordered_) return relations_.size();
  for (const sql::JoinClause& join : select_.joins) {
    if (join.kind == JoinKind::kRight || join.kind == JoinKind::kFull) return 0;
  }
  return prefix_;
}

bool FromMaterializer::Deferrable(const sql::TableRef& ref, std::vector<std::string>* names) const {
  const sql::SelectStatement& sub = *ref.subquery;
  if (ref.array_join || !sub.from || !sub.with.empty() || !sub.set_operands.empty() ||
      sub.group_by.empty() || sub.grouping_sets_written || !sub.grouping_sets.empty() ||
      sub.with_totals || sub.group_by_all || !sub.windows.empty() || sub.qualify ||
      !sub.order_by.empty() || sub.order_by_all || !sub.limit_by.empty() || sub.limit ||
      sub.offset || sub.interpolate || !sub.array_joins.empty()) {
    return false;
  }
  if (sub.having && HasWindow(*sub.having)) return false;
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const ExprPtr& item : sub.select) {
    if (HasWindow(*item)) return false;
    std::string name;
    if (!item->alias.empty()) {
      name = item->alias;
    } else if (item->kind == ExprKind::kIdentifier && item->qualifier.empty()) {
      name = item->name;
    } else {
      return false;  // a name the binder makes (or a star): known only once run
    }
    if (!seen.insert(name).second) return false;
    out.push_back(std::move(name));
  }
  *names = std::move(out);
  return true;
}

std::optional<std::pair<ExprPtr, TypeId>> FromMaterializer::DeferredKey(
    size_t d, const std::string& name) const {
  const sql::SelectStatement& sub = *relations_[d].ref->subquery;
  const Expr* item = ItemNamed(sub, name);
  if (item == nullptr || item->kind != ExprKind::kIdentifier) return std::nullopt;
  // An alias of the subquery spelled as the column would capture it in the added WHERE.
  for (const ExprPtr& other : sub.select) {
    if (other.get() != item && other->alias == item->name) return std::nullopt;
  }
  // A group key: the column itself, or the item's alias.
  const bool grouped = std::any_of(sub.group_by.begin(), sub.group_by.end(), [&](const ExprPtr& g) {
    if (g->kind != ExprKind::kIdentifier) return false;
    if (g->name == item->name && (g->qualifier.empty() || g->qualifier == item->qualifier ||
                                  item->qualifier.empty())) {
      return true;
    }
    return g->qualifier.empty() && !item->alias.empty() && g->name == item->alias;
  });
  if (!grouped) return std::nullopt;
  // Its type: the one column of the subquery's tables the identifier names.
  std::vector<const sql::TableRef*> refs = {&*sub.from};
  for (const sql::JoinClause& join : sub.joins) refs.push_back(&join.table);
  std::optional<TypeId> type;
  for (const sql::TableRef* ref : refs) {
    const std::string qualifier = !ref->alias.empty() ? ref->alias : ref->name;
    if (!item->qualifier.empty() && item->qualifier != qualifier && item->qualifier != ref->name) {
      continue;
    }
    if (ref->subquery || ref->database == "system") return std::nullopt;
    absl::StatusOr<RelationColumns> columns = context_.columns_of(*ref);
    if (!columns.ok()) return std::nullopt;
    for (size_t i = 0; i < columns->names.size(); ++i) {
      if (columns->names[i] != item->name) continue;
      if (type) return std::nullopt;  // ambiguous
      type = columns->types[i];
    }
  }
  if (!type) return std::nullopt;
  return std::make_pair(sql::MakeColumn(item->qualifier, item->name), *type);
}

absl::StatusOr<std::vector<ExprPtr>> FromMaterializer::SourceFilter(
    size_t a, uint64_t scanned, std::vector<Relation::KeySetFrom>* sets) {
  std::vector<ExprPtr> filter = relations_[a].pushed;
  std::set<std::string> present;
  for (const ExprPtr& c : filter) present.insert(sql::ColumnName(*c));
  // Tables joined to a on one equality: each column of a composite key alone keeps most rows.
  std::map<size_t, int> equalities;
  for (const ExprPtr& c : remaining_) {
    std::optional<std::pair<size_t, size_t>> pair = EqualityRelations(*c);
    if (pair && (pair->first == a || pair->second == a)) {
      ++equalities[pair->first == a ? pair->second : pair->first];
    }
  }
  for (const ExprPtr& c : remaining_) {
    std::optional<std::pair<size_t, size_t>> pair = EqualityRelations(*c);
    if (!pair || (pair->first != a && pair->second != a)) continue;
    const int side = pair->first == a ? 0 : 1;  // the side of a
    const size_t s = side == 0 ? pair->second : pair->first;
    const Relation& other = relations_[s];
    if (s >= Scope() || !PlainTable(s) || other.pushed.empty() || equalities[s] > 1 ||
        (other.keyed_from.count(a) && other.own_filters == 0)) {
      continue;
    }
    const Expr& a_key = *c->args[side];
    const Expr& s_key = *c->args[1 - side];
    if (!Reducible(a, a_key, s, s_key)) continue;
    ASSIGN_OR_RETURN(uint64_t rows, TableRows(s));
    const uint64_t most = std::min(kMaxNarrowingRows, rows / 4);
    ASSIGN_OR_RETURN(uint64_t kept, TableRowsWithKeys(s, relations_[s].pushed, most + 1, s_key));
    if (kept > most) continue;
    // For a scan of `scanned` rows: the rows the set drops (as many as s's rows it filters
    // out, for a key of s) must outweigh reading s for it kSetPaysBack times.
    const double dropped = static_cast<double>(scanned) * (1.0 - static_cast<double>(kept) / rows);
    if (scanned > 0 && dropped < kSetPaysBack * static_cast<double>(rows + kept)) continue;
    ASSIGN_OR_RETURN(ExprPtr in_set, KeySet(a_key, s, s_key, relations_[s].pushed));
    if (!present.insert(sql::ColumnName(*in_set)).second) continue;
    filter.push_back(std::move(in_set));
    if (sets) sets->push_back(KeySetRecord(a_key, s, s_key, relations_[s].pushed));
  }
  return filter;
}

absl::StatusOr<std::optional<FromMaterializer::KeyTable>> FromMaterializer::SmallKeyTable(
    size_t a, const Expr& a_key, TypeId inner_type) {
  std::optional<KeyTable> best;
  for (const ExprPtr& c : remaining_) {
    std::optional<std::pair<size_t, size_t>> pair = EqualityRelations(*c);
    if (!pair || (pair->first != a && pair->second != a) || pair->first == pair->second) continue;
    const int side = pair->first == a ? 1 : 0;  // the side of t
    const size_t t = side == 0 ? pair->first : pair->second;
    const ExprPtr& t_key = c->args[side];
    if (t >= Scope() || !PlainTable(t) || relations_[t].pushed.empty() ||
        c->args[1 - side]->name != a_key.name || !Reducible(a, *c->args[1 - side], t, *t_key) ||
        !KeyTypesMatch(core::RemoveNullable(ColumnType(t, t_key->name)),
                       core::RemoveNullable(inner_type))) {
      continue;
    }
    ASSIGN_OR_RETURN(uint64_t rows, TableRows(t));
    const uint64_t most = std::min(kMaxNarrowingRows, rows / 4);
    ASSIGN_OR_RETURN(uint64_t kept, TableRowsWithKeys(t, relations_[t].pushed, most + 1, *t_key));
    if (kept > most) continue;
    if (!best || kept < best->rows) best = KeyTable{t, t_key, kept};
  }
  return best;
}

absl::Status FromMaterializer::ReduceDeferred() {
  const size_t scope = Scope();
  // Each narrowed subquery: its relation, the partner's key column and the subquery's key, the
  // keys of its set and its EXPLAIN note (a later, smaller key table may replace the set).
  struct Narrowed {
    size_t d = 0;
    size_t a = 0;
    ExprPtr a_key;
    ExprPtr inner_key;
    TypeId inner_type = TypeId::kNothing;
    size_t keys = 0;
    size_t note = 0;   // in notes_
    size_t where = 0;  // in the relation's deferred_where
  };
  std::vector<Narrowed> narrowed;
  // Narrows d by the key set of table t (SmallKeyTable), in place of its set at `slot` (or as a
  // new one); returns the keys of the set.
  auto narrow_by_table = [&](size_t d, const KeyTable& table, const Expr& inner_key,
                             std::optional<size_t> slot) -> absl::StatusOr<size_t> {
    ASSIGN_OR_RETURN(ExprPtr in_set,
                     KeySet(inner_key, table.t, *table.t_key, relations_[table.t].pushed));
    size_t keys = 0;
    if (in_set->kind == ExprKind::kFunction && in_set->name == "in" && in_set->args.size() == 2) {
      const Expr& set = *in_set->args[1];
      keys = set.kind == ExprKind::kSet && set.set ? set.set->size()
             : set.kind == ExprKind::kFunction     ? set.args.size()
                                                   : 1;
    }
    std::string note = "Subquery " + relations_[d].qualifier +
                       ": runs after the filters of FROM, " + sql::ColumnName(inner_key) +
                       " narrowed to the " + std::to_string(keys) + " keys of " +
                       relations_[table.t].qualifier + "." + table.t_key->name + " that pass them";
    std::vector<ExprPtr>& where = relations_[d].deferred_where;
    if (slot) {
      where[narrowed[*slot].where] = std::move(in_set);
      notes_[narrowed[*slot].note] = std::move(note);
    } else {
      where.push_back(std::move(in_set));
      notes_.push_back(std::move(note));
    }
    return keys;
  };
  for (size_t d = 0; d < relations_.size(); ++d) {
    Relation& deferred = relations_[d];
    if (!deferred.deferred || deferred.read) continue;
    // The equalities that tie d to a partner table whose rows are real: (partner column, d's).
    std::vector<std::pair<ExprPtr, ExprPtr>> links;
    if (d < scope) {
      for (const ExprPtr& c : remaining_) {
        std::optional<std::pair<size_t, size_t>> pair = EqualityRelations(*c);
        if (!pair || (pair->first != d && pair->second != d)) continue;
        const int side = pair->first == d ? 1 : 0;  // the side of the partner
        links.emplace_back(c->args[side], c->args[1 - side]);
      }
    } else if (ordered_ && scope > 0 && d >= prefix_) {
      const sql::JoinClause& join = select_.joins[d - 1];
      const bool probe_driven =
          (join.kind == JoinKind::kInner && join.strictness == JoinStrictness::kAll) ||
          (join.kind == JoinKind::kLeft && (join.strictness == JoinStrictness::kAll ||
                                            join.strictness == JoinStrictness::kSemi ||
                                            join.strictness == JoinStrictness::kAnti));
      if (!probe_driven || !join.using_columns.empty()) continue;
      std::set<size_t> prefix;
      for (size_t r = 0; r < prefix_; ++r) prefix.insert(r);
      for (const ExprPtr& c : on_[d - 1]) {
        if (auto key = ProbeKey(*c, prefix, {d})) links.push_back(*std::move(key));
      }
    }
    // The partner whose passing rows are fewest.
    struct Choice {
      size_t a = 0;
      ExprPtr a_key;
      ExprPtr inner_key;
      std::vector<ExprPtr> filter;
      uint64_t passing = 0;
      TypeId inner_type = TypeId::kNothing;
    };
    // First a table joined to the partner on the link column whose own filter keeps few keys
    // (orders of one status, already cut to the keys of an earlier subquery's set): its set is
    // read without reading the partner, a fact table.
    {
      std::optional<KeyTable> table;
      std::optional<std::pair<ExprPtr, TypeId>> table_inner;
      for (const auto& [partner_key, d_key] : links) {
        std::vector<size_t> found = Candidates(*partner_key, relations_);
        if (found.size() != 1 || found[0] >= scope || !PlainTable(found[0])) continue;
        std::optional<std::pair<ExprPtr, TypeId>> inner = DeferredKey(d, d_key->name);
        if (!inner) continue;
        ASSIGN_OR_RETURN(std::optional<KeyTable> candidate,
                         SmallKeyTable(found[0], *partner_key, inner->second));
        if (candidate && (!table || candidate->rows < table->rows)) {
          table = std::move(candidate);
          table_inner = std::move(inner);
        }
      }
      if (table) {
        RETURN_IF_ERROR(narrow_by_table(d, *table, *table_inner->first, std::nullopt).status());
        continue;
      }
    }
    std::optional<Choice> best;
    for (const auto& [partner_key, d_key] : links) {
      std::vector<size_t> found = Candidates(*partner_key, relations_);
      if (found.size() != 1) continue;
      const size_t a = found[0];
      if (a >= scope || !PlainTable(a)) continue;
      std::optional<std::pair<ExprPtr, TypeId>> inner = DeferredKey(d, d_key->name);
      if (!inner) continue;
      const TypeId a_type = core::RemoveNullable(ColumnType(a, partner_key->name));
      if (!KeyTypesMatch(a_type, core::RemoveNullable(inner->second))) continue;
      ASSIGN_OR_RETURN(std::vector<ExprPtr> filter, SourceFilter(a));
      if (filter.empty()) continue;
      ASSIGN_OR_RETURN(uint64_t rows, TableRows(a));
      const uint64_t most = std::min(kMaxPartnerRows, rows / 4);
      ASSIGN_OR_RETURN(uint64_t passing, TableRowsWithKeys(a, filter, most + 1, *partner_key));
      if (passing > most) continue;
      if (best && best->passing <= passing) continue;
      best = Choice{a, partner_key, inner->first, std::move(filter), passing, inner->second};
    }
    if (!best) continue;
    ASSIGN_OR_RETURN(ExprPtr in_set, KeySet(*best->inner_key, best->a, *best->a_key, best->filter));
    deferred.deferred_where.push_back(in_set);
    const bool any = in_set->kind == ExprKind::kFunction && in_set->name == "in" &&
                     in_set->args.size() == 2;
    size_t keys = 0;
    if (any) {
      const Expr& set = *in_set->args[1];
      keys = set.kind == ExprKind::kSet && set.set ? set.set->size()
             : set.kind == ExprKind::kFunction     ? set.args.size()
                                                   : 1;
    }
    notes_.push_back("Subquery " + deferred.qualifier + ": runs after the filters of FROM, " +
                     sql::ColumnName(*best->inner_key) + " narrowed to the " +
                     std::to_string(keys) + " keys of " + relations_[best->a].qualifier + "." +
                     best->a_key->name + " that pass them");
    if (!any) continue;  // no key at all: the subquery reads nothing
    narrowed.push_back(Narrowed{d, best->a, best->a_key, best->inner_key, best->inner_type, keys,
                                notes_.size() - 1, deferred.deferred_where.size() - 1});
    // Tables inner-joined to the partner on the same column hold only those keys too.
    for (const ExprPtr& c : remaining_) {
      std::optional<std::pair<size_t, size_t>> pair = EqualityRelations(*c);
      if (!pair || (pair->first != best->a && pair->second != best->a)) continue;
      const int side = pair->first == best->a ? 1 : 0;  // the side of t
      const size_t t = side == 0 ? pair->first : pair->second;
      const Expr& t_key = *c->args[side];
      const Expr& a_key = *c->args[1 - side];
      if (t >= scope || a_key.name != best->a_key->name ||
          !Reducible(t, t_key, best->a, a_key)) {
        continue;
      }
      ExprPtr t_set = sql::MakeCall("in", {sql::MakeColumn(t_key.qualifier, t_key.name),
                                           in_set->args[1]});
      const std::string name = sql::ColumnName(*t_set);
      std::vector<ExprPtr>& pushed = relations_[t].pushed;
      if (std::any_of(pushed.begin(), pushed.end(),
                      [&](const ExprPtr& p) { return sql::ColumnName(*p) == name; })) {
        continue;
      }
      ASSIGN_OR_RETURN(uint64_t t_rows, TableRows(t, sql::JoinAnd(pushed), 2 * best->passing));
      if (t_rows < 2 * best->passing) continue;
      pushed.push_back(std::move(t_set));
      relations_[t].keyed_from.insert(best->a);
    }
  }
  // A subquery narrowed through its partner before a table joined on the same column was cut to
  // that set takes the table's set when it is smaller (two EXISTS over one fact table: the
  // second one's key table serves the first).
  for (size_t i = 0; i < narrowed.size(); ++i) {
    const Narrowed& n = narrowed[i];
    ASSIGN_OR_RETURN(std::optional<KeyTable> table, SmallKeyTable(n.a, *n.a_key, n.inner_type));
    if (!table || table->rows >= n.keys) continue;
    ASSIGN_OR_RETURN(size_t keys, narrow_by_table(n.d, *table, *n.inner_key, i));
    narrowed[i].keys = keys;
  }
  return absl::OkStatus();
}

absl::Status FromMaterializer::SetProbeSets() {
  if (Scope() < 2) return absl::OkStatus();  // no table to take sets from
  std::optional<size_t> largest;
  uint64_t most = 0;
  for (size_t r = 0; r < Scope(); ++r) {
    if (!PlainTable(r)) continue;
    ASSIGN_OR_RETURN(uint64_t rows, TableRows(r));
    if (!largest || rows > most) {
      largest = r;
      most = rows;
    }
  }
  if (!largest) return absl::OkStatus();
  Relation& relation = relations_[*largest];
  ASSIGN_OR_RETURN(std::vector<ExprPtr> filter,
                   SourceFilter(*largest, most, &relation.probe_sets_from));
  relation.probe_sets.assign(filter.begin() + relation.pushed.size(), filter.end());
  return absl::OkStatus();
}

absl::Status FromMaterializer::RunDeferred() {
  for (Relation& relation : relations_) {
    if (!relation.deferred || relation.read) continue;
    sql::SelectStatement sub = *relation.ref->subquery;
    if (!relation.deferred_where.empty()) {
      std::vector<ExprPtr> where;
      sql::SplitAnd(sub.where, &where);
      where.insert(where.end(), relation.deferred_where.begin(), relation.deferred_where.end());
      sub.where = sql::JoinAnd(std::move(where));
    }
    ASSIGN_OR_RETURN(relation.data, context_.run(sub));
    if (relation.data.names != relation.names) {
      return core::Error(ErrorCode::kLogicalError,
                         "A subquery in FROM gave other column names than its select list");
    }
    relation.types = relation.data.types;
    relation.read = true;
  }
  return absl::OkStatus();
}

}  // namespace granite::coordinator::from_internal
