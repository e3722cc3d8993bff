// FromMaterializer::ReduceByJoinKeys (from_materializer.h): a table joined (inner) on `r.a = s.b`
// with a table s whose own filter keeps few rows can keep only the rows whose `a` is one of
// those rows' `b` values. `SELECT ... FROM part p, partsupp ps, lineitem l WHERE p.name LIKE
// '%green%' AND ps.partkey = p.partkey AND l.partkey = p.partkey ...`: partsupp is read with
// `ps.partkey IN (<the green parts' keys>)` (800k -> ~43k rows at TPC-H SF 1), so its build
// is that much smaller wherever the join runs. The largest table is left as it is: it stays on
// the workers, where its join with s does the same filtering. Its rows that can pass those
// joins, when few, reduce in turn the other tables joined to it (ReduceByJoinKeys' second
// round).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "coordinator/exec/from_materializer.h"
#include "coordinator/exec/subqueries.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"
#include "core/block_sort.h"
#include "core/join/distinct_rows.h"
#include "core/status_macros.h"

namespace granite::coordinator::from_internal {
namespace {

// The most rows s's filter may keep whatever r's size: its keys become an IN set of r's read.
constexpr uint64_t kMaxReducingRows = 100'000;
// The most rows of the largest table a reduction through it may keep whatever r's size (each
// such key set is one column of values, exec/subqueries.h).
constexpr uint64_t kMaxLargestReducingRows = 2'000'000;
// A reduction through the largest table reads it twice (a count, then the keys); it pays when
// the table it trims, sent to every worker, has at least 1 / this of the largest table's rows.
constexpr uint64_t kLargestPerReducedRows = 8;
// No key set over this many values: it travels inside the plan to every worker.
constexpr uint64_t kMaxKeySetRows = 8'000'000;
// The most rows whose keys TableRowsWithKeys reads in place of a count: when the count goes
// past its limit they were sent for nothing (16 MB of 8-byte keys at most, against a scan that
// found 2M rows); when it does not, the key set's second read of the table is saved.
constexpr uint64_t kMaxPrefetchedKeys = 2'000'000;

// The most keys that may reduce a table of `r_rows` rows. A set far smaller than the rows it
// spares reading, joining and sending pays at any scale (a filtered dimension's 100k+ keys
// against a table of millions): up to an eighth of r's rows for a set of another table's keys,
// a quarter for a set of the largest table's keys.
uint64_t MaxReducingRows(uint64_t r_rows) {
  return std::max(kMaxReducingRows,
                  std::min(kMaxLargestReducingRows, r_rows / kLargestPerReducedRows));
}
uint64_t MaxLargestReducingRows(uint64_t r_rows) {
  return std::min(kMaxKeySetRows, std::max(kMaxLargestReducingRows, r_rows / 4));
}

// KeySet's memory key: the table, its key column, the filter.
std::string KeySetName(size_t s, const Expr& s_key, const ExprPtr& where) {
  return std::to_string(s) + "\n" + s_key.name + "\n" +
         (where ? sql::ColumnName(*where) : std::string());
}

// `SELECT DISTINCT k ... ORDER BY k` of a read of k: what KeySet's subquery would return.
LocalTable DistinctSorted(const LocalTable& keys) {
  LocalTable out = keys;
  const std::vector<uint32_t> order = core::SortPermutation(keys.block, {core::SortColumn{0}});
  out.block = core::TakeRows(keys.block, order);
  if (out.block.columns.empty()) return out;
  const std::vector<uint32_t> first = core::FirstOfEachValue(*out.block.columns[0], false);
  out.block = core::TakeRows(out.block, first);
  return out;
}

// Integers proper (not Bool, Date or DateTime, which core::IsInteger counts too).
bool PlainInteger(TypeId type) {
  switch (type) {
    case TypeId::kUInt8: case TypeId::kUInt16: case TypeId::kUInt32: case TypeId::kUInt64:
    case TypeId::kInt8: case TypeId::kInt16: case TypeId::kInt32: case TypeId::kInt64:
      return true;
    default:
      return false;
  }
}

// The name a select item's column gets in the result.
std::string OutputName(const Expr& item) {
  return item.alias.empty() ? sql::ColumnName(item) : item.alias;
}

bool Selects(const std::vector<ExprPtr>& select, const std::string& name) {
  return std::any_of(select.begin(), select.end(),
                     [&](const ExprPtr& item) { return OutputName(*item) == name; });
}

// `table`'s columns named `names`, in that order; nullopt when one is missing.
std::optional<LocalTable> ProjectColumns(const LocalTable& table,
                                         const std::vector<std::string>& names) {
  LocalTable out;
  out.block.rows_without_columns = table.block.rows();
  for (const std::string& name : names) {
    auto it = std::find(table.names.begin(), table.names.end(), name);
    if (it == table.names.end()) return std::nullopt;
    const size_t i = it - table.names.begin();
    out.names.push_back(name);
    out.types.push_back(table.types[i]);
    out.block.columns.push_back(table.block.columns[i]);
  }
  return out;
}

}  // namespace

absl::Status FromMaterializer::ReduceByJoinKeys() {
  // Written-order joins: the inner joins at their front only (Scope).
  const size_t scope = Scope();
  for (Relation& relation : relations_) relation.own_filters = relation.pushed.size();
  if (scope < 2) return absl::OkStatus();
  // Row counts from the parts' statistics; the largest table is the one left alone.
  std::vector<uint64_t> rows(relations_.size(), 0);
  std::optional<size_t> largest;
  for (size_t r = 0; r < scope; ++r) {
    if (!PlainTable(r)) continue;
    ASSIGN_OR_RETURN(rows[r], TableRows(r));
    if (!largest || rows[r] > rows[*largest]) largest = r;
  }
  if (!largest) return absl::OkStatus();
  // Each table's filter: its own, then the key sets reductions add. A reduced table reduces
  // others in turn (`region r, nation n, supplier s, customer c WHERE r.name = 'ASIA' AND
  // n.regionkey = r.regionkey AND s.nationkey = n.nationkey AND c.nationkey = s.nationkey`: the
  // region's nations cut suppliers, whose nations cut customers), until nothing changes; each
  // (table, reducer, key) once.
  std::vector<std::vector<ExprPtr>> written(relations_.size());
  for (size_t r = 0; r < relations_.size(); ++r) written[r] = relations_[r].pushed;
  std::vector<bool> reduced(relations_.size(), false);
  std::set<std::tuple<size_t, size_t, std::string>> applied;
  // The reductions the largest table would take: its rows join the reduced tables only there.
  std::vector<KeyLink> implied;
  // Every reduction an equality allows, r by s's keys, the smallest reducer first: a small
  // table's filter is cheap to count and its set small, and a chain (region -> nation ->
  // customer -> orders) reduces each table before it reduces the next, so a larger table's
  // count runs once, over its reduced filter, instead of first over its own filter alone, which
  // may keep more rows than any set takes (a read of keys up to its limit, for nothing).
  struct Attempt {
    size_t r, s;
    const Expr* r_key;
    const Expr* s_key;
  };
  std::vector<Attempt> attempts;
  for (const ExprPtr& c : remaining_) {
    std::optional<std::pair<size_t, size_t>> pair = EqualityRelations(*c);
    if (!pair || pair->first >= scope || pair->second >= scope) continue;
    attempts.push_back({pair->first, pair->second, c->args[0].get(), c->args[1].get()});
    attempts.push_back({pair->second, pair->first, c->args[1].get(), c->args[0].get()});
  }
  // For one reducer, the largest table it may reduce first: that count's limit is the highest,
  // and its answer (table_rows_) settles the smaller limits of the others without a read.
  std::stable_sort(attempts.begin(), attempts.end(), [&](const Attempt& a, const Attempt& b) {
    return rows[a.s] != rows[b.s] ? rows[a.s] < rows[b.s] : rows[a.r] > rows[b.r];
  });
  // Rounds of reductions until nothing changes; `by_largest`: the largest table's own filter
  // may reduce others too.
  auto reduce = [&](bool by_largest) -> absl::Status {
    bool changed = true;
    for (size_t round = 0; changed && round < relations_.size(); ++round) {
      changed = false;
      for (const Attempt& attempt : attempts) {
        const size_t r = attempt.r;
        const size_t s = attempt.s;
        const Expr& r_key = *attempt.r_key;
        const Expr& s_key = *attempt.s_key;
        if (s == *largest && !by_largest) continue;
        // Once a set reduces the largest table, a table whose rows are many against it
        // (ReduceThroughLargest's measure) is reduced through the largest's keys in that set
        // instead: counting its own filter toward the largest may only find the limit.
        if (r == *largest && !implied.empty() &&
            rows[s] * kLargestPerReducedRows >= rows[*largest]) {
          continue;
        }
        // r's keys reduced s: s's rows hold only r's keys, so s reduces the smaller r only by
        // its other conditions, and its count toward r's small limit is often past it.
        if (relations_[s].keyed_from.count(r) && rows[r] <= rows[s]) continue;
        if (written[s].empty() || !Reducible(r, r_key, s, s_key)) continue;
        if (applied.count({r, s, r_key.name})) continue;
        // s's passing rows may reduce r up to this many (r's half, s's quarter at most).
        const uint64_t most = std::min({MaxReducingRows(rows[r]), rows[s] / 4, rows[r] / 2});
        ASSIGN_OR_RETURN(uint64_t kept, TableRowsWithKeys(s, written[s], most + 1, s_key));
        if (kept > most) continue;
        applied.insert({r, s, r_key.name});
        if (r == *largest) {
          implied.push_back({s, &s_key, &r_key});
          continue;
        }
        ASSIGN_OR_RETURN(ExprPtr in_set, KeySet(r_key, s, s_key, written[s]));
        relations_[r].key_sets_from.push_back(KeySetRecord(r_key, s, s_key, written[s]));
        relations_[r].pushed.push_back(in_set);
        relations_[r].keyed_from.insert(s);
        written[r].push_back(std::move(in_set));
        reduced[r] = true;
        changed = true;
      }
    }
    return absl::OkStatus();
  };
  // The smaller tables first: when one of them reduces the largest, the largest reduces others
  // through that set too (ReduceThroughLargest), and its own filter alone is never counted. That
  // count is a scan of the largest table up to the limit, wasted when its filter keeps more (a
  // part-lineitem join whose lineitem conditions keep a few percent of its rows: the filtered
  // parts' keys reduce lineitem, and lineitem's scan for part's sake found the limit).
  RETURN_IF_ERROR(reduce(/*by_largest=*/false));
  if (implied.empty()) RETURN_IF_ERROR(reduce(/*by_largest=*/true));
  if (implied.empty()) return absl::OkStatus();
  return ReduceThroughLargest(*largest, rows, written, implied, &reduced);
}

// The largest table as a reducer: `SELECT ... FROM part p, lineitem l, orders o, partsupp ps
// WHERE p.name LIKE '%green%' AND l.partkey = p.partkey AND o.orderkey = l.orderkey AND
// ps.partkey = l.partkey`: partsupp takes the green parts' keys (l.partkey holds only those),
// and orders is read for the order keys of the green parts' lines only (a few percent of
// lineitem) instead of whole. The largest table itself still stays on the workers.
absl::Status FromMaterializer::ReduceThroughLargest(size_t big, const std::vector<uint64_t>& rows,
                                                    const std::vector<std::vector<ExprPtr>>& written,
                                                    const std::vector<KeyLink>& implied,
                                                    std::vector<bool>* reduced) {
  // The equalities r.a = big.b, r another plain table not reduced yet.
  std::vector<KeyLink> links;
  for (const ExprPtr& c : remaining_) {
    std::optional<std::pair<size_t, size_t>> pair = EqualityRelations(*c);
    if (!pair || (pair->first != big && pair->second != big)) continue;
    if (pair->first >= Scope() || pair->second >= Scope()) continue;
    const int side = pair->first == big ? 1 : 0;  // the side of r
    const size_t r = side == 0 ? pair->first : pair->second;
    if (r == big || (*reduced)[r] || !Reducible(r, *c->args[side], big, *c->args[1 - side])) {
      continue;
    }
    links.push_back({r, c->args[side].get(), c->args[1 - side].get()});
  }
  // The implied sets, run once; a set's own table holds its keys already.
  std::vector<ExprPtr> filter = written[big];
  std::map<std::string, std::pair<ExprPtr, size_t>> set_of_column;
  bool ran = false;
  auto run_implied = [&]() -> absl::Status {
    if (ran) return absl::OkStatus();
    ran = true;
    for (const KeyLink& link : implied) {
      ASSIGN_OR_RETURN(ExprPtr in_set, KeySet(*link.other_key, link.r, *link.r_key,
                                              written[link.r]));
      if (in_set->kind == ExprKind::kFunction && in_set->name == "in" && in_set->args.size() == 2) {
        set_of_column.emplace(link.other_key->name, std::make_pair(in_set->args[1], link.r));
      }
      filter.push_back(std::move(in_set));
    }
    return absl::OkStatus();
  };
  // r.a = big.b and big.b IN set: r.a IN set, with no pass over the largest table.
  for (const KeyLink& link : links) {
    auto source = std::find_if(implied.begin(), implied.end(), [&](const KeyLink& i) {
      return i.other_key->name == link.other_key->name;
    });
    if ((*reduced)[link.r] || source == implied.end()) continue;
    (*reduced)[link.r] = true;
    if (source->r == link.r) continue;
    RETURN_IF_ERROR(run_implied());
    auto it = set_of_column.find(link.other_key->name);
    if (it == set_of_column.end()) continue;
    relations_[link.r].pushed.push_back(sql::MakeCall(
        "in", {sql::MakeColumn(link.r_key->qualifier, link.r_key->name), it->second.first}));
    relations_[link.r].keyed_from.insert(big);
  }
  // Otherwise r.a IN (the b of the largest table's rows inside every implied set): a count and
  // a read of the largest table's keys, which pay when r's own rows are many against it.
  for (const KeyLink& link : links) {
    if ((*reduced)[link.r]) continue;
    uint64_t r_rows = rows[link.r];
    if (!written[link.r].empty()) {
      ASSIGN_OR_RETURN(r_rows, TableRows(link.r, sql::JoinAnd(written[link.r])));
    }
    if (r_rows * kLargestPerReducedRows < rows[big]) continue;
    RETURN_IF_ERROR(run_implied());
    const uint64_t most =
        std::min({MaxLargestReducingRows(r_rows), rows[big] / 4, r_rows / 2});
    ASSIGN_OR_RETURN(uint64_t big_kept, TableRowsWithKeys(big, filter, most + 1, *link.other_key));
    if (big_kept > most) continue;
    ASSIGN_OR_RETURN(ExprPtr in_set, KeySet(*link.r_key, big, *link.other_key, filter));
    relations_[link.r].pushed.push_back(std::move(in_set));
    relations_[link.r].keyed_from.insert(big);
    (*reduced)[link.r] = true;
  }
  return absl::OkStatus();
}

bool FromMaterializer::Reducible(size_t r, const Expr& r_key, size_t s, const Expr& s_key) const {
  if (!PlainTable(r) || !PlainTable(s)) return false;
  const TypeId a = core::RemoveNullable(ColumnType(r, r_key.name));
  const TypeId b = core::RemoveNullable(ColumnType(s, s_key.name));
  return KeyTypesMatch(a, b);
}

bool KeyTypesMatch(TypeId a, TypeId b) {
  if (a == TypeId::kNothing || core::IsArray(a)) return false;
  return a == b || (PlainInteger(a) && PlainInteger(b));
}

absl::StatusOr<ExprPtr> FromMaterializer::KeySet(const Expr& r_key, size_t s, const Expr& s_key,
                                                 const std::vector<ExprPtr>& filter) {
  // The same set for another column (a deferred subquery's and a table's): run once.
  const ExprPtr where = sql::JoinAnd(filter);
  const bool cacheable = !where || !sql::ContainsSubquery(*where);
  const std::string cache_key = KeySetName(s, s_key, where);
  if (auto it = key_sets_.find(cache_key); cacheable && it != key_sets_.end()) {
    return sql::MakeCall("in", {sql::MakeColumn(r_key.qualifier, r_key.name), it->second});
  }
  // r.a IN (SELECT s.b FROM s WHERE <filter>), run now into a constant set.
  // Distinct and sorted: the set's text in EXPLAIN is the same on every run.
  auto subquery = std::make_shared<sql::SelectStatement>();
  subquery->distinct = true;
  subquery->select.push_back(sql::MakeColumn(s_key.qualifier, s_key.name));
  subquery->order_by.push_back(sql::OrderItem{sql::MakeColumn(s_key.qualifier, s_key.name)});
  subquery->from = *relations_[s].ref;
  subquery->where = sql::JoinAnd(filter);
  auto set = std::make_shared<Expr>();
  set->kind = ExprKind::kSubquery;
  set->subquery = std::move(subquery);
  sql::SelectStatement holder;
  holder.where = sql::MakeCall("in", {sql::MakeColumn(r_key.qualifier, r_key.name), set});
  SubqueryRunner run = context_.run;
  if (auto it = prefetched_keys_.find(cache_key); cacheable && it != prefetched_keys_.end()) {
    LocalTable keys = DistinctSorted(it->second);
    key_set_unique_[cache_key] = keys.block.rows() == it->second.block.rows();
    run = [keys = std::move(keys)](const sql::SelectStatement&) { return keys; };
    prefetched_keys_.erase(it);  // key_sets_ keeps the set from here on
  } else if (std::optional<uint64_t> rows = KnownRowsAtMost(s, where);
             rows && *rows <= kMaxPrefetchedKeys) {
    // Few enough rows to ship their keys whole: read them plainly and make them distinct and
    // sorted here. The workers' DISTINCT, merged by bucket and sorted on the coordinator, cost
    // about three times the plain read for a key set of unique ids (the set of a filtered
    // dimension or orders table), and the plain read meets the table's sort order.
    sql::SelectStatement read;
    read.select.push_back(sql::MakeColumn(s_key.qualifier, s_key.name));
    read.from = *relations_[s].ref;
    read.where = where;
    ASSIGN_OR_RETURN(LocalTable all, context_.run(read));
    LocalTable keys = DistinctSorted(all);
    key_set_unique_[cache_key] = cacheable && keys.block.rows() == all.block.rows();
    run = [keys = std::move(keys)](const sql::SelectStatement&) { return keys; };
  }
  ASSIGN_OR_RETURN(sql::SelectStatement constant, ReplaceSubqueries(holder, run));
  if (cacheable && constant.where->kind == ExprKind::kFunction && constant.where->args.size() == 2) {
    key_sets_[cache_key] = constant.where->args[1];
  }
  return constant.where;
}

Relation::KeySetFrom FromMaterializer::KeySetRecord(const Expr& r_key, size_t s,
                                                    const Expr& s_key,
                                                    const std::vector<ExprPtr>& filter) const {
  const ExprPtr where = sql::JoinAnd(filter);
  auto unique = key_set_unique_.find(KeySetName(s, s_key, where));
  return {s, r_key.name, s_key.name, where ? sql::ColumnName(*where) : std::string(),
          unique != key_set_unique_.end() && unique->second};
}

std::optional<uint64_t> FromMaterializer::KnownRowsAtMost(size_t r, const ExprPtr& where) const {
  if (where && !sql::ContainsSubquery(*where)) {
    auto it = table_rows_.find({r, sql::ColumnName(*where)});
    if (it != table_rows_.end() && it->second.exact) return it->second.rows;
  }
  auto whole = table_rows_.find({r, std::string()});
  if (whole != table_rows_.end() && whole->second.exact) return whole->second.rows;
  return std::nullopt;
}

absl::StatusOr<uint64_t> FromMaterializer::TableRowsWithKeys(size_t r,
                                                             const std::vector<ExprPtr>& filter,
                                                             uint64_t limit, const Expr& key) {
  ExprPtr where = sql::JoinAnd(filter);
  if (!where || sql::ContainsSubquery(*where) || limit > kMaxPrefetchedKeys) {
    return TableRows(r, std::move(where), limit);  // not worth the keys
  }
  const std::pair<size_t, std::string> counted(r, sql::ColumnName(*where));
  if (table_rows_.count(counted)) return TableRows(r, std::move(where), limit);  // known
  // Under r's whole filter the rows read are the ones ReadRelation would read: all of its
  // columns come with the keys (a filtered dimension or fact table read once, not once for its
  // keys and again for its join).
  const std::vector<ExprPtr>& pushed = relations_[r].pushed;
  const bool whole = !pushed.empty() && sql::ColumnName(*sql::JoinAnd(pushed)) == counted.second;
  sql::SelectStatement read;
  if (whole) read = ReadStatement(r);
  if (!Selects(read.select, key.name)) read.select.push_back(sql::MakeColumn("", key.name, 0));
  read.from = *relations_[r].ref;
  read.where = where;
  read.limit = limit;
  ASSIGN_OR_RETURN(LocalTable rows, context_.run(read));
  const uint64_t n = rows.block.rows();
  table_rows_[counted] = CountedRows{n, n < limit};
  if (n < limit) {
    std::optional<LocalTable> keys = ProjectColumns(rows, {key.name});
    if (keys) prefetched_keys_.emplace(KeySetName(r, key, where), *std::move(keys));
    if (whole) prefetched_rows_.emplace(counted, std::move(rows));
  }
  return std::min(n, limit);
}

std::optional<LocalTable> FromMaterializer::PrefetchedRows(size_t r) const {
  if (relations_[r].pushed.empty()) return std::nullopt;
  auto it = prefetched_rows_.find({r, sql::ColumnName(*sql::JoinAnd(relations_[r].pushed))});
  if (it == prefetched_rows_.end()) return std::nullopt;
  std::vector<std::string> names;
  for (const ExprPtr& item : ReadStatement(r).select) names.push_back(OutputName(*item));
  return ProjectColumns(it->second, names);
}

}  // namespace granite::coordinator::from_internal
