#include "coordinator/exec/in_joins.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/exec/in_reduction.h"
#include "coordinator/planner/tuple_in.h"
#include "coordinator/sql/ast_build.h"
#include "core/join/distinct_rows.h"
#include "core/join/row_keys.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;
using Kind = core::plan::BroadcastJoin::Kind;

// True when values of `a` (the column) and `b` (the set) hash alike as join keys.
bool SameKeyEncoding(core::TypeId a, core::TypeId b) {
  if (!core::KeysComparable(a, b)) return false;
  if (core::WordKeysComparable(a, b)) return true;
  if (core::IsString(a) && core::IsString(b)) return true;
  return core::WithNullable(a, false) == core::WithNullable(b, false);
}

// The column `e` names in `columns` (a table's), or -1.
int ColumnOf(const Expr& e, const std::string& qualifier, const RelationColumns& columns) {
  if (e.kind != ExprKind::kIdentifier) return -1;
  if (!e.qualifier.empty() && e.qualifier != qualifier) return -1;
  for (size_t i = 0; i < columns.names.size(); ++i) {
    if (columns.names[i] == e.name) return static_cast<int>(i);
  }
  return -1;
}

// Returns `set` with each row (tuple of values) once, without rows holding a NULL (which match
// nothing): a subquery over a large table repeats its keys, and every worker would hash each
// repeat.
core::Block Distinct(const core::Block& set) {
  std::vector<const core::Column*> columns;
  for (const auto& column : set.columns) columns.push_back(column.get());
  const std::vector<uint32_t> first = core::FirstOfEachRow(columns, /*skip_nulls=*/true);
  if (!columns.empty() && first.size() == columns[0]->size()) return set;
  core::Block out;
  for (const core::Column* column : columns) {
    out.columns.push_back(std::make_shared<core::Column>(column->Take(first.data(), first.size())));
  }
  return out;
}

// The columns of `columns` (a table's) that the left side of an IN names: one plain column, or a
// tuple of plain columns; empty otherwise.
std::vector<int> KeyColumns(const Expr& left, const std::string& qualifier,
                            const RelationColumns& columns) {
  std::vector<const Expr*> items;
  if (IsTupleOfSeveral(left)) {
    for (const ExprPtr& item : left.args) items.push_back(item.get());
  } else {
    items.push_back(&left);
  }
  std::vector<int> keys;
  for (const Expr* item : items) {
    const int column = ColumnOf(*item, qualifier, columns);
    if (column < 0) return {};
    keys.push_back(column);
  }
  return keys;
}

// The column `sub` reads when it is a plain read of one catalog table: `SELECT c FROM t [WHERE
// f]` with no joins, grouping, ordering, limits, CTEs, set operators or subqueries (DISTINCT is
// moot for IN); else -1.
int PlainReadColumn(const sql::SelectStatement& sub, const RelationColumns& columns) {
  if (!sub.from || sub.from->subquery || sub.from->is_function || sub.from->database == "system" ||
      !sub.joins.empty() || !sub.with.empty() || !sub.group_by.empty() || sub.having ||
      !sub.grouping_sets.empty() || sub.with_totals || sub.group_by_all || sub.order_by_all ||
      !sub.windows.empty() || sub.qualify || !sub.order_by.empty() || !sub.limit_by.empty() ||
      sub.limit || sub.offset || !sub.set_operands.empty() || sub.select.size() != 1 ||
      (sub.where && sql::ContainsSubquery(*sub.where))) {
    return -1;
  }
  const std::string qualifier = sub.from->alias.empty() ? sub.from->name : sub.from->alias;
  return ColumnOf(*sub.select[0], qualifier, columns);
}

// Whether rows of `outer` whose `outer_column` equals `inner_column` of `inner` share a shard:
// on one shard always; otherwise both tables sharded for this shard count by that one column
// alone, of one type (the routing hash is of the value's bytes). Nullable columns are left to the
// sent set, which drops NULLs.
bool CoShardedIn(const RelationColumns& outer, int outer_column, const RelationColumns& inner,
                 int inner_column, size_t worker_count) {
  const core::TypeId a = outer.types[outer_column];
  const core::TypeId b = inner.types[inner_column];
  if (core::IsNullable(a) || core::IsNullable(b) || a != b) return false;
  if (worker_count == 1) return true;
  return outer.sharding_key == std::vector<std::string>{outer.names[outer_column]} &&
         inner.sharding_key == std::vector<std::string>{inner.names[inner_column]} &&
         outer.shard_count == worker_count && inner.shard_count == worker_count;
}

// `column [NOT] IN (sub)` with both tables sharded by the compared columns: a co-located build
// (each worker reads `sub` from its own shard), or nullopt when the set is small enough to stay
// constants (which pruning reads) or the shapes do not allow it. Runs `sub` with a LIMIT to tell.
absl::StatusOr<std::optional<BroadcastSource::Build>> CoLocatedSet(
    const sql::SelectStatement& sub, const RelationColumns& outer, int outer_column,
    const FromContext& context) {
  if (context.join_mode != "auto") return std::nullopt;
  ASSIGN_OR_RETURN(RelationColumns inner, context.columns_of(*sub.from));
  const int inner_column = PlainReadColumn(sub, inner);
  if (inner_column < 0 ||
      !CoShardedIn(outer, outer_column, inner, inner_column, context.worker_count)) {
    return std::nullopt;
  }
  sql::SelectStatement probe = sub;
  probe.limit = kInSetJoinThreshold + 1;
  ASSIGN_OR_RETURN(LocalTable some, context.run(probe));
  if (some.block.rows() <= kInSetJoinThreshold) return std::nullopt;
  BroadcastSource::Build build;
  build.table.names = {inner.names[inner_column]};
  build.table.types = {inner.types[inner_column]};
  build.local_read = sub;
  if (context.expand_compounds) {  // bound by the planner, not run through context.run
    ASSIGN_OR_RETURN(build.local_read, context.expand_compounds(sub));
  }
  build.local_read->distinct = false;  // the join matches each key once anyway
  return build;
}

}  // namespace

absl::StatusOr<std::optional<MaterializedFrom>> InSubqueriesAsJoins(
    const sql::SelectStatement& select, const FromContext& context) {
  if (context.join_mode == "coordinator" || !select.from || !select.joins.empty() ||
      select.from->subquery || select.from->is_function || select.from->database == "system" ||
      !select.where || !sql::ContainsSubquery(*select.where)) {
    return std::nullopt;
  }
  const sql::TableRef& table = *select.from;
  const std::string qualifier = table.alias.empty() ? table.name : table.alias;
  ASSIGN_OR_RETURN(RelationColumns columns, context.columns_of(table));
  std::vector<ExprPtr> conjuncts;
  sql::SplitAnd(select.where, &conjuncts);
  // The table's columns a conjunct `column [NOT] IN (SELECT ...)` compares; empty for others.
  const auto in_keys = [&](const Expr& c) {
    const bool in = c.kind == ExprKind::kFunction && (c.name == "in" || c.name == "notIn") &&
                    c.args.size() == 2 && c.args[1]->kind == ExprKind::kSubquery;
    return in ? KeyColumns(*c.args[0], qualifier, columns) : std::vector<int>{};
  };
  if (std::all_of(conjuncts.begin(), conjuncts.end(),
                  [&](const ExprPtr& c) { return in_keys(*c).empty(); })) {
    return std::nullopt;
  }
  // A comparison with a scalar subquery (`balance > (SELECT avg(balance) ...)`) is a plain
  // filter of the table once the subquery is a value: it then narrows IN reductions and joins
  // the probe filter. A subquery that fails here is left for ReplaceSubqueries to report.
  for (ExprPtr& c : conjuncts) {
    if (!in_keys(*c).empty()) continue;
    absl::StatusOr<ExprPtr> replaced = ReplaceScalarSubqueries(c, context.run);
    if (replaced.ok()) c = *std::move(replaced);
  }
  std::vector<ExprPtr> plain;  // the conjuncts without subqueries, for ReducedInSubquery
  for (const ExprPtr& c : conjuncts) {
    if (!sql::ContainsSubquery(*c)) plain.push_back(c);
  }
  BroadcastSource broadcast;
  std::vector<ExprPtr> kept;
  bool rewritten = false;  // a subquery was reduced (in_reduction.h)
  for (ExprPtr& c : conjuncts) {
    const std::vector<int> keys = in_keys(*c);
    if (keys.empty()) {
      kept.push_back(std::move(c));
      continue;
    }
    const bool anti = c->name == "notIn";
    const sql::SelectStatement& sub = *c->args[1]->subquery;
    std::optional<BroadcastSource::Build> co_located;
    if (keys.size() == 1) {
      ASSIGN_OR_RETURN(co_located, CoLocatedSet(sub, columns, keys[0], context));
    }
    BroadcastSource::Build build;
    if (co_located) {
      build = *std::move(co_located);
    } else {
      std::optional<sql::SelectStatement> reduced;
      if (keys.size() == 1) {
        ASSIGN_OR_RETURN(reduced, ReducedInSubquery(sub, table, columns.names[keys[0]], plain,
                                                    context, anti));
      }
      if (reduced) {  // the conjunct keeps the reduced subquery (ReplaceSubqueries may run it)
        rewritten = true;
        auto set_expr = std::make_shared<Expr>(*c->args[1]);
        set_expr->subquery = std::make_shared<sql::SelectStatement>(*reduced);
        auto conjunct = std::make_shared<Expr>(*c);
        conjunct->args[1] = std::move(set_expr);
        c = std::move(conjunct);
      }
      ASSIGN_OR_RETURN(LocalTable set, context.run(reduced ? *reduced : sub));
      bool joinable = set.names.size() == keys.size() && set.block.rows() > kInSetJoinThreshold;
      for (size_t i = 0; joinable && i < keys.size(); ++i) {
        joinable = SameKeyEncoding(columns.types[keys[i]], set.types[i]);
      }
      if (!joinable) {
        kept.push_back(std::move(c));  // ReplaceSubqueries runs it again: small, or refused there
        continue;
      }
      set.block = Distinct(set.block);
      build.table = std::move(set);
    }
    const size_t position = c->position;
    const std::string build_qualifier = "_in_subquery" + std::to_string(broadcast.builds.size() + 1);
    build.table.names.clear();
    for (size_t i = 0; i < keys.size(); ++i) {
      build.table.names.push_back(keys.size() == 1 ? "_in" : "_in" + std::to_string(i + 1));
    }
    build.table.qualifiers.assign(keys.size(), build_qualifier);
    build.table.hidden.assign(keys.size(), true);
    build.relations.assign(keys.size(), broadcast.builds.size() + 1);
    build.kind = anti ? Kind::kAnti : Kind::kSemi;
    for (size_t i = 0; i < keys.size(); ++i) {
      const std::string& name = columns.names[keys[i]];
      build.keys.emplace_back(sql::MakeColumn(qualifier, name, position),
                              sql::MakeColumn(build_qualifier, build.table.names[i], position));
      // NULL NOT IN (...) is NULL, which WHERE drops; the anti join would keep the row. A
      // tuple holding a NULL is unequal to every tuple (NOT IN is 1), as the join has it.
      if (anti && keys.size() == 1 && core::IsNullable(columns.types[keys[i]])) {
        kept.push_back(sql::MakeCall("isNotNull", {sql::MakeColumn(qualifier, name, position)}));
      }
    }
    broadcast.builds.push_back(std::move(build));
  }
  if (broadcast.builds.empty()) {
    if (!rewritten) return std::nullopt;
    // Reduced sets small enough to stay constants: the SELECT keeps its FROM.
    MaterializedFrom out;
    out.rest = select;
    out.rest.where = sql::JoinAnd(std::move(kept));
    return std::optional<MaterializedFrom>(std::move(out));
  }
  broadcast.probe = table;
  broadcast.probe_qualifier = qualifier;
  broadcast.probe_relation = 0;
  // The other conjuncts concern the table alone.
  std::vector<ExprPtr> rest = MoveToProbeFilter(std::move(kept), &broadcast);
  MaterializedFrom out;
  out.broadcast = std::move(broadcast);
  out.rest = select;
  out.rest.from.reset();
  out.rest.where = sql::JoinAnd(std::move(rest));
  return std::optional<MaterializedFrom>(std::move(out));
}

std::vector<ExprPtr> MoveToProbeFilter(std::vector<ExprPtr> conjuncts,
                                       BroadcastSource* broadcast) {
  std::vector<ExprPtr> probe, rest;
  if (broadcast->probe_filter) probe.push_back(broadcast->probe_filter);
  for (ExprPtr& c : conjuncts) {
    (sql::ContainsSubquery(*c) ? rest : probe).push_back(std::move(c));
  }
  broadcast->probe_filter = sql::JoinAnd(std::move(probe));
  return rest;
}

}  // namespace granite::coordinator
