// FromMaterializer's planning of joins that run on the workers (from_clause.h, "Broadcast
// joins"): which table stays on the workers, how the other relations group into builds, and
// whether sending the builds is worth it.
#include <algorithm>
#include <map>

#include "coordinator/exec/from_materializer.h"
#include "coordinator/sql/ast_build.h"
#include "core/error.h"
#include "core/join/row_keys.h"
#include "core/status_macros.h"

namespace granite::coordinator::from_internal {

// If `e` is `a = b` between plain columns of two different relations, returns them as
// (relation of a, relation of b).
std::optional<std::pair<size_t, size_t>> FromMaterializer::EqualityRelations(const Expr& e) const {
  if (e.kind != ExprKind::kFunction || e.name != "equals" || e.args.size() != 2) {
    return std::nullopt;
  }
  const Expr& a = *e.args[0];
  const Expr& b = *e.args[1];
  if (a.kind != ExprKind::kIdentifier || b.kind != ExprKind::kIdentifier) return std::nullopt;
  std::vector<size_t> ra = Candidates(a, relations_);
  std::vector<size_t> rb = Candidates(b, relations_);
  if (ra.size() != 1 || rb.size() != 1 || ra[0] == rb[0]) return std::nullopt;
  return std::make_pair(ra[0], rb[0]);
}

// The relations of `members` outside `probe_side` in groups, each sent to the workers as one
// build: every relation linked to `probe_side` by an equality starts a group, and each other
// relation joins the group of a relation it is linked to (breadth first, in FROM order).
// Equalities between groups stay conditions on the joined rows, so no group is the product of two
// others. Nullopt when some member has no path to `probe_side` (a cross join).
std::optional<std::vector<std::set<size_t>>> FromMaterializer::Components(
    const std::set<size_t>& members, const std::set<size_t>& probe_side) const {
  const size_t n = relations_.size();
  std::vector<std::vector<size_t>> links(n);
  for (const ExprPtr& c : remaining_) {
    std::optional<std::pair<size_t, size_t>> pair = EqualityRelations(*c);
    if (!pair || !members.count(pair->first) || !members.count(pair->second)) continue;
    links[pair->first].push_back(pair->second);
    links[pair->second].push_back(pair->first);
  }
  std::vector<int> group(n, -1);
  std::vector<std::set<size_t>> out;
  std::vector<size_t> queue;
  for (size_t r : members) {
    if (probe_side.count(r) || group[r] >= 0) continue;
    const bool linked = std::any_of(links[r].begin(), links[r].end(),
                                    [&](size_t other) { return probe_side.count(other) > 0; });
    if (!linked) continue;
    group[r] = static_cast<int>(out.size());
    out.push_back({r});
    queue.push_back(r);
  }
  for (size_t at = 0; at < queue.size(); ++at) {
    const size_t r = queue[at];
    for (size_t other : links[r]) {
      if (probe_side.count(other) || group[other] >= 0) continue;
      group[other] = group[r];
      out[group[r]].insert(other);
      queue.push_back(other);
    }
  }
  if (queue.size() + probe_side.size() < members.size()) return std::nullopt;
  return out;
}

// Whether conjunct `c` is an equality between a relation of `probe_side` and one of `members`;
// then returns (probe side, member side), both qualified.
std::optional<std::pair<ExprPtr, ExprPtr>> FromMaterializer::ProbeKey(
    const Expr& c, const std::set<size_t>& probe_side, const std::set<size_t>& members) const {
  std::optional<std::pair<size_t, size_t>> pair = EqualityRelations(c);
  if (!pair) return std::nullopt;
  const Expr* probe_column = c.args[0].get();
  const Expr* member_column = c.args[1].get();
  auto [probe, member] = *pair;
  if (probe_side.count(member)) {
    std::swap(probe_column, member_column);
    std::swap(probe, member);
  }
  if (!probe_side.count(probe) || !members.count(member)) return std::nullopt;
  return std::make_pair(
      sql::MakeColumn(relations_[probe].qualifier, probe_column->name, probe_column->position),
      sql::MakeColumn(relations_[member].qualifier, member_column->name, member_column->position));
}

// Whether rows of plain table relations `a` and `b` that are equal on the columns of equalities
// in `conjuncts` were all routed to one shard: on a single shard always; otherwise both tables
// were sharded for this shard count by keys of one length, and for each key position some
// equality joins the two tables' key columns there, of one type (the routing hash is of the
// value's bytes).
bool FromMaterializer::CoSharded(size_t a, size_t b, const std::vector<ExprPtr>& conjuncts) const {
  const Relation& left = relations_[a];
  const Relation& right = relations_[b];
  if (context_.worker_count == 1) return true;
  if (left.sharding_key.empty() || left.sharding_key.size() != right.sharding_key.size() ||
      left.shard_count != context_.worker_count || right.shard_count != context_.worker_count) {
    return false;
  }
  for (size_t i = 0; i < left.sharding_key.size(); ++i) {
    if (core::RemoveNullable(ColumnType(a, left.sharding_key[i])) !=
        core::RemoveNullable(ColumnType(b, right.sharding_key[i]))) {
      return false;
    }
    const bool joined = std::any_of(conjuncts.begin(), conjuncts.end(), [&](const ExprPtr& c) {
      std::optional<std::pair<ExprPtr, ExprPtr>> key = ProbeKey(*c, {a}, {b});
      return key && key->first->name == left.sharding_key[i] &&
             key->second->name == right.sharding_key[i];
    });
    if (!joined) return false;
  }
  return true;
}

// Whether the first LEFT join's right table `right` is better exchanged by key than sent whole:
// as TryShuffle decides for inner joins (SendingCostsMore against the first relation), or always
// under 'shuffle'.
absl::StatusOr<bool> FromMaterializer::ShufflesLeftJoin(size_t right) {
  const std::string& mode = context_.join_mode;
  if (context_.worker_count < 2 || !LocalCandidate(right) || !PlainTable(0)) return false;
  if (mode == "shuffle") return true;
  return SendingCostsMore(right, 0);
}

// Whether sending relation `sent`'s rows that pass its filter to every other worker would move
// more rows than relation `probe`'s own passing rows: a shuffle of both by key then moves less.
absl::StatusOr<bool> FromMaterializer::SendingCostsMore(size_t sent, size_t probe) {
  const uint64_t copies = context_.worker_count > 2 ? context_.worker_count - 1 : 1;
  // sent_rows * copies > probe_rows, both filtered: the table with fewer rows is counted whole,
  // the other only as far as that answer needs.
  const ExprPtr sent_where = sql::JoinAnd(relations_[sent].pushed);
  const ExprPtr probe_where = sql::JoinAnd(relations_[probe].pushed);
  ASSIGN_OR_RETURN(uint64_t sent_total, TableRows(sent));
  ASSIGN_OR_RETURN(uint64_t probe_total, TableRows(probe));
  if (sent_total <= probe_total) {
    ASSIGN_OR_RETURN(uint64_t sent_rows, TableRows(sent, sent_where));
    ASSIGN_OR_RETURN(uint64_t probe_rows, TableRows(probe, probe_where, sent_rows * copies));
    return sent_rows * copies > probe_rows;
  }
  ASSIGN_OR_RETURN(uint64_t probe_rows, TableRows(probe, probe_where));
  ASSIGN_OR_RETURN(uint64_t sent_rows, TableRows(sent, sent_where, probe_rows / copies + 1));
  return sent_rows * copies > probe_rows;
}

// Whether relation `r` is a table that a co-located build may read: a table of the catalog,
// planned under distributed_join_mode 'auto' or 'shuffle' (rows already on their partners'
// shard need no exchange).
bool FromMaterializer::LocalCandidate(size_t r) const {
  return (context_.join_mode == "auto" || context_.join_mode == "shuffle") && PlainTable(r);
}

bool FromMaterializer::PlainTable(size_t r) const {
  const Relation& relation = relations_[r];
  const sql::TableRef& ref = *relation.ref;
  return !relation.prematerialized && !ref.is_function && !ref.subquery;
}

// The relations of `members` joined on the workers as co-located builds with `probe`, in join
// order: each is co-sharded (CoSharded) with the probe or an earlier one of them.
std::vector<size_t> FromMaterializer::CoLocatedRelations(const std::set<size_t>& members,
                                                         size_t probe) const {
  std::vector<size_t> local;
  std::vector<bool> taken(relations_.size(), false);
  taken[probe] = true;
  std::vector<size_t> side = {probe};
  for (size_t at = 0; at < side.size(); ++at) {
    for (size_t r : members) {
      if (taken[r] || !LocalCandidate(r) || !CoSharded(side[at], r, remaining_)) continue;
      const bool linked = std::any_of(remaining_.begin(), remaining_.end(), [&](const ExprPtr& c) {
        return ProbeKey(*c, {side[at]}, {r}).has_value();
      });
      if (!linked) continue;
      taken[r] = true;
      side.push_back(r);
      local.push_back(r);
    }
  }
  return local;
}

// The co-located build of relation `r`: its needed columns without rows, and the SELECT each
// worker runs on its own shard.
BroadcastSource::Build FromMaterializer::LocalBuild(size_t r) const {
  const Relation& relation = relations_[r];
  BroadcastSource::Build build;
  for (size_t i = 0; i < relation.names.size(); ++i) {
    if (!relation.needed.count(relation.names[i])) continue;
    build.table.names.push_back(relation.names[i]);
    build.table.types.push_back(relation.types[i]);
    build.table.qualifiers.push_back(relation.qualifier);
    build.table.hidden.push_back(relation.hidden.count(relation.names[i]) > 0);
    build.relations.push_back(r);
  }
  build.local_read = ReadStatement(r);
  return build;
}

// Takes from remaining_ the equalities between `probe_side` and `members` as `build`'s keys.
// Errors: NO_COMMON_TYPE for key types that cannot be compared.
absl::Status FromMaterializer::TakeProbeKeys(const std::set<size_t>& probe_side,
                                             const std::set<size_t>& members,
                                             BroadcastSource::Build* build) {
  for (auto it = remaining_.begin(); it != remaining_.end();) {
    std::optional<std::pair<ExprPtr, ExprPtr>> key = ProbeKey(**it, probe_side, members);
    if (!key) {
      ++it;
      continue;
    }
    const TypeId a = ColumnType(Candidates(*key->first, relations_)[0], key->first->name);
    const TypeId b = ColumnType(Candidates(*key->second, relations_)[0], key->second->name);
    if (!core::KeysComparable(a, b)) {
      return core::Error(ErrorCode::kNoCommonType,
                         "JOIN key types " + std::string(core::TypeName(a)) + " and " +
                             std::string(core::TypeName(b)) + " cannot be compared (column " +
                             key->first->name + " and " + key->second->name + ")");
    }
    build->keys.push_back(*std::move(key));
    it = remaining_.erase(it);
  }
  return absl::OkStatus();
}

// The type of column `name` of relation `r`.
TypeId FromMaterializer::ColumnType(size_t r, const std::string& name) const {
  const Relation& relation = relations_[r];
  for (size_t i = 0; i < relation.names.size(); ++i) {
    if (relation.names[i] == name) return relation.types[i];
  }
  return TypeId::kNothing;
}

// True when `auto` may send builds of `build_rows` rows to every worker rather than gather the
// rows of `probe` that pass its own filter. Either way the builds are read once; broadcasting
// sends them W - 1 more times (and on one worker, a build larger than the gathered probe rows
// still costs more than it saves).
absl::StatusOr<bool> FromMaterializer::WorthBroadcasting(size_t probe, uint64_t probe_rows,
                                                         uint64_t build_rows) {
  if (context_.join_mode != "auto") return true;
  const uint64_t copies = context_.worker_count > 2 ? context_.worker_count - 1 : 1;
  const uint64_t sent = build_rows * copies;
  if (sent > probe_rows) return false;
  if (relations_[probe].pushed.empty()) return true;
  ASSIGN_OR_RETURN(uint64_t passing,
                   TableRows(probe, sql::JoinAnd(relations_[probe].pushed), sent));
  return sent <= passing;
}

// Written-order joins (outer, semi, anti) on the workers (from_materializer.h): the inner prefix
// planned as TryBroadcast plans a FROM of inner joins, then one build per later join, keyed on
// the relations before it. A later table co-sharded with the workers' side joins from each
// worker's own shard.
absl::StatusOr<std::optional<MaterializedFrom>> FromMaterializer::TryBroadcastInOrder() {
  if (context_.join_mode == "coordinator") return std::nullopt;
  BroadcastSource broadcast;
  std::set<size_t> workers_side;  // relations whose rows the workers' joined block holds locally
  size_t probe = 0;
  uint64_t build_rows = 0;
  uint64_t probe_rows = 0;
  std::vector<ExprPtr> conjuncts = remaining_;
  if (prefix_ > 1) {
    std::set<size_t> members;
    for (size_t r = 0; r < prefix_; ++r) members.insert(r);
    ASSIGN_OR_RETURN(std::optional<InnerPlan> plan, PlanInner(members));
    if (!plan) return std::nullopt;
    probe = plan->probe;
    probe_rows = plan->probe_rows;
    build_rows = plan->build_rows;
    conjuncts = plan->conjuncts;
    ASSIGN_OR_RETURN(workers_side, AddInnerBuilds(*std::move(plan), &broadcast));
  } else {
    const Relation& first = relations_[0];
    if (first.prematerialized || first.ref->is_function || first.ref->subquery) {
      return std::nullopt;
    }
    workers_side = {0};
  }
  auto give_up = [&]() -> std::optional<MaterializedFrom> {
    remaining_ = conjuncts;
    return std::nullopt;
  };
  const size_t first_ordered = broadcast.builds.size();
  for (size_t j = prefix_ - 1; j < select_.joins.size(); ++j) {
    const sql::JoinClause& join = select_.joins[j];
    if (join.comma) return give_up();
    BroadcastSource::Build build;
    using Kind = core::plan::BroadcastJoin::Kind;
    if (join.kind == JoinKind::kInner && join.strictness == JoinStrictness::kAll) {
      build.kind = Kind::kInner;
    } else if (join.kind == JoinKind::kLeft && join.strictness == JoinStrictness::kAll) {
      build.kind = Kind::kLeft;
    } else if (join.kind == JoinKind::kLeft && join.strictness == JoinStrictness::kSemi) {
      build.kind = Kind::kSemi;
    } else if (join.kind == JoinKind::kLeft && join.strictness == JoinStrictness::kAnti) {
      build.kind = Kind::kAnti;
    } else if ((join.kind == JoinKind::kRight || join.kind == JoinKind::kFull) &&
               !context_.join_use_nulls &&
               join.strictness == JoinStrictness::kAll && j == 0 && using_pairs_[j].empty() &&
               context_.join_mode != "broadcast") {
      // The build's unmatched rows come out once only where each lives on one worker: the
      // only join after the first table, co-located or shuffled (plan::BroadcastJoin::kRight).
      // Not with USING: its column takes the right side's value in unmatched right rows.
      build.kind = join.kind == JoinKind::kRight ? Kind::kRight : Kind::kFull;
    } else {
      return give_up();
    }
    // join_use_nulls = 1: a LEFT (ALL, SEMI or ANTI) join's build columns are Nullable, NULL for
    // a probe row without a partner (RIGHT and FULL stay on the coordinator, which handles them).
    build.use_nulls = context_.join_use_nulls && build.kind != Kind::kInner;
    const size_t right = j + 1;
    std::set<size_t> before;
    for (size_t r = 0; r < right; ++r) before.insert(r);
    for (const auto& [r, column] : using_pairs_[j]) {
      build.keys.emplace_back(sql::MakeColumn(relations_[r].qualifier, column, join.position),
                              sql::MakeColumn(relations_[right].qualifier, column, join.position));
    }
    for (const ExprPtr& c : on_[j]) {
      std::optional<std::pair<ExprPtr, ExprPtr>> key = ProbeKey(*c, before, {right});
      if (!key) return give_up();  // a condition other than an equality with earlier relations
      build.keys.push_back(*std::move(key));
    }
    if (build.keys.empty()) return give_up();
    std::vector<ExprPtr> equalities;
    bool local_keys = true;  // every key column's relation joins from the workers' own rows
    for (const auto& [probe_key, build_key] : build.keys) {
      const size_t key_relation = Candidates(*probe_key, relations_)[0];
      const TypeId a = ColumnType(key_relation, probe_key->name);
      const TypeId b = ColumnType(right, build_key->name);
      if (!core::KeysComparable(a, b)) return give_up();  // the coordinator reports it
      equalities.push_back(sql::MakeCall("equals", {probe_key, build_key}));
      local_keys = local_keys && workers_side.count(key_relation) > 0;
    }
    const bool co_located =
        local_keys && LocalCandidate(right) &&
        std::any_of(workers_side.begin(), workers_side.end(),
                    [&](size_t r) { return CoSharded(r, right, equalities); });
    bool shuffled_left = false;
    if (!co_located && build.kind == Kind::kLeft && j == 0 && prefix_ == 1) {
      ASSIGN_OR_RETURN(shuffled_left, ShufflesLeftJoin(right));
    }
    if (shuffled_left) {
      // The first LEFT join with a right table too big to send: both sides are exchanged by
      // key, so each probe row meets all its partners on one worker and an unmatched one comes
      // out once (as for RIGHT / FULL below).
      BroadcastSource::Build local = LocalBuild(right);
      local.kind = build.kind;
      local.use_nulls = build.use_nulls;
      local.keys = std::move(build.keys);
      local.shuffle = true;
      build = std::move(local);
      workers_side.clear();
    } else if (build.kind == Kind::kRight || build.kind == Kind::kFull) {
      if (!PlainTable(right)) return give_up();
      BroadcastSource::Build local = LocalBuild(right);
      local.kind = build.kind;
      local.keys = std::move(build.keys);
      local.shuffle = !co_located && context_.worker_count > 1;
      build = std::move(local);
      // The probe rows no longer stay on their shards (shuffled), and unmatched rows carry
      // default keys: no later join is co-located.
      workers_side.clear();
    } else if (co_located) {
      BroadcastSource::Build local = LocalBuild(right);
      local.kind = build.kind;
      local.use_nulls = build.use_nulls;
      local.keys = std::move(build.keys);
      build = std::move(local);
      // Only an inner join's rows carry real key values; an outer join's unmatched rows carry
      // defaults, whose partners may live on any shard.
      if (build.kind == Kind::kInner) workers_side.insert(right);
    } else {
      RETURN_IF_ERROR(ReadRelation(right));
      build_rows += relations_[right].data.block.rows();
    }
    broadcast.builds.push_back(std::move(build));
  }
  if (build_rows > 0) {
    if (prefix_ == 1) {
      ASSIGN_OR_RETURN(probe_rows, TableRows(probe));
    }
    ASSIGN_OR_RETURN(bool worth, WorthBroadcasting(probe, probe_rows, build_rows));
    if (!worth) return give_up();
  }
  for (size_t b = first_ordered; b < broadcast.builds.size(); ++b) {
    BroadcastSource::Build& build = broadcast.builds[b];
    if (build.local_read) continue;
    const size_t right = prefix_ + (b - first_ordered);
    build.table = Output(FromRelation(right, relations_[right]), &build.relations);
  }
  return std::optional<MaterializedFrom>(Broadcasting(std::move(broadcast), probe));
}

// The broadcast plan with relation `probe` read on the workers, and the SELECT left over.
MaterializedFrom FromMaterializer::Broadcasting(BroadcastSource broadcast, size_t probe) const {
  const Relation& relation = relations_[probe];
  broadcast.probe = *relation.ref;
  broadcast.probe_qualifier = relation.qualifier;
  broadcast.probe_relation = probe;
  broadcast.probe_hidden.assign(relation.hidden.begin(), relation.hidden.end());
  std::vector<ExprPtr> filter = relation.pushed;
  filter.insert(filter.end(), relation.probe_sets.begin(), relation.probe_sets.end());
  broadcast.probe_filter = sql::JoinAnd(std::move(filter));
  MaterializedFrom out;
  out.broadcast = std::move(broadcast);
  out.rest = select_;
  out.rest.from.reset();
  out.rest.joins.clear();
  out.rest.where = sql::JoinAnd(remaining_);
  return out;
}

// Which co-located table would rather be sent: a group linked to co-located table r travels to
// every worker whole, while sent joined with r it would have at most about r's rows that pass
// r's own filter (the usual many-to-one link), at the price of gathering those rows once. So r
// is sent when its groups' rows times the copies exceed its passing rows times (1 + copies), as
// for a small, filtered table with a large dimension hanging off it. Returns r's position in
// `local`, or nullopt.
absl::StatusOr<std::optional<size_t>> FromMaterializer::FirstToSend(
    const std::vector<size_t>& local, const std::vector<std::set<size_t>>& components,
    const std::vector<Joined>& builds, const std::vector<ExprPtr>& conjuncts) {
  const uint64_t copies = context_.worker_count > 2 ? context_.worker_count - 1 : 1;
  for (size_t i = 0; i < local.size(); ++i) {
    const size_t r = local[i];
    uint64_t attached = 0;
    for (size_t g = 0; g < components.size(); ++g) {
      const bool linked = std::any_of(conjuncts.begin(), conjuncts.end(), [&](const ExprPtr& c) {
        return ProbeKey(*c, {r}, components[g]).has_value();
      });
      if (linked) attached += builds[g].block.rows();
    }
    if (attached == 0) continue;
    const Relation& relation = relations_[r];
    // Past attached * copies / (1 + copies) passing rows the answer is no.
    ASSIGN_OR_RETURN(uint64_t passing, TableRows(r, sql::JoinAnd(relation.pushed),
                                                 attached * copies / (1 + copies) + 1));
    if (attached * copies > passing * (1 + copies)) return i;
  }
  return std::nullopt;
}

// Plans the inner joins of `members` on the workers (InnerPlan, from_materializer.h). The groups'
// own equalities are taken from remaining_; a caller that gives the plan up restores
// plan.conjuncts.
absl::StatusOr<std::optional<FromMaterializer::InnerPlan>> FromMaterializer::PlanInner(
    const std::set<size_t>& members, std::optional<ShufflePair> shuffle) {
  InnerPlan plan;
  std::optional<size_t> probe;
  if (shuffle) {
    probe = shuffle->probe;
    plan.probe_rows = shuffle->probe_rows;
  } else {
    ASSIGN_OR_RETURN(probe, LargestTable(members));
    if (probe) {
      ASSIGN_OR_RETURN(plan.probe_rows, TableRows(*probe));
    }
  }
  if (!probe) return std::nullopt;
  plan.probe = *probe;
  plan.local = shuffle ? std::vector<size_t>{shuffle->partner} : CoLocatedRelations(members, *probe);
  plan.shuffle = shuffle.has_value();
  // Joining the groups takes their keys out of remaining_: put them back if the joins end up
  // on the coordinator after all, or the groups are formed again.
  plan.conjuncts = remaining_;
  while (true) {
    remaining_ = plan.conjuncts;
    std::set<size_t> probe_side(plan.local.begin(), plan.local.end());
    probe_side.insert(*probe);
    std::optional<std::vector<std::set<size_t>>> components = Components(members, probe_side);
    if (!components) return std::nullopt;  // a cross join: on the coordinator
    plan.components = *std::move(components);
    plan.builds.clear();
    plan.build_rows = 0;
    for (const std::set<size_t>& group : plan.components) {
      for (size_t r : group) RETURN_IF_ERROR(ReadRelation(r));
      ASSIGN_OR_RETURN(Joined joined, JoinGreedy(group));
      plan.build_rows += joined.block.rows();
      plan.builds.push_back(std::move(joined));
    }
    if (shuffle) break;  // the partner is too big to send: that is why it is shuffled
    ASSIGN_OR_RETURN(std::optional<size_t> demoted,
                     FirstToSend(plan.local, plan.components, plan.builds, plan.conjuncts));
    if (!demoted) break;
    plan.local.resize(*demoted);  // it, and those found through it, join the sent groups
  }
  return plan;
}

// Appends `plan`'s builds: co-located builds first, each keyed on the probe and the co-located
// builds before it; the sent groups may then key on any of them.
absl::StatusOr<std::set<size_t>> FromMaterializer::AddInnerBuilds(InnerPlan plan,
                                                                  BroadcastSource* broadcast) {
  std::set<size_t> joined = {plan.probe};
  for (size_t r : plan.local) {
    BroadcastSource::Build build = LocalBuild(r);
    build.shuffle = plan.shuffle;  // then the only local build, keyed on the probe alone
    RETURN_IF_ERROR(TakeProbeKeys(joined, {r}, &build));
    joined.insert(r);
    broadcast->builds.push_back(std::move(build));
  }
  for (size_t g = 0; g < plan.components.size(); ++g) {
    BroadcastSource::Build build;
    build.table = Output(std::move(plan.builds[g]), &build.relations);
    RETURN_IF_ERROR(TakeProbeKeys(joined, plan.components[g], &build));
    broadcast->builds.push_back(std::move(build));
  }
  return joined;
}

// Plans the joins on the workers (file comment, "Broadcast joins"), or returns nullopt to join
// on the coordinator.
absl::StatusOr<std::optional<MaterializedFrom>> FromMaterializer::TryBroadcast() {
  if (context_.join_mode == "coordinator") return std::nullopt;
  std::set<size_t> all;
  for (size_t r = 0; r < relations_.size(); ++r) {
    if (!eliminated_.count(r)) all.insert(r);
  }
  if (context_.join_mode == "auto") {
    // The largest table's passing rows were read whole already (TableRowsWithKeys, under its
    // filter, few of them): joining them on the coordinator saves the workers' second scan.
    ASSIGN_OR_RETURN(std::optional<size_t> largest, LargestTable(all));
    if (largest && PrefetchedRows(*largest)) return std::nullopt;
  }
  ASSIGN_OR_RETURN(std::optional<MaterializedFrom> shuffled, TryShuffle(all));
  if (shuffled) return shuffled;
  ASSIGN_OR_RETURN(std::optional<InnerPlan> plan, PlanInner(all));
  return OnWorkers(std::move(plan));
}

absl::StatusOr<std::optional<size_t>> FromMaterializer::LargestTable(
    const std::set<size_t>& members) {
  std::optional<size_t> largest;
  uint64_t most = 0;
  for (size_t r : members) {
    if (!PlainTable(r)) continue;
    ASSIGN_OR_RETURN(uint64_t rows, TableRows(r));
    if (!largest || rows > most) {
      largest = r;
      most = rows;
    }
  }
  return largest;
}

absl::StatusOr<std::optional<MaterializedFrom>> FromMaterializer::OnWorkers(
    std::optional<InnerPlan> plan) {
  if (!plan) return std::nullopt;
  // auto: sending the builds to every worker must cost less than gathering the probe's rows
  // that pass its own filter (counted, as the filter may keep few of them).
  if (!plan->components.empty()) {
    ASSIGN_OR_RETURN(bool worth, WorthBroadcasting(plan->probe, plan->probe_rows,
                                                   plan->build_rows));
    if (!worth) {
      remaining_ = plan->conjuncts;
      return std::nullopt;
    }
  }
  const size_t probe = plan->probe;
  BroadcastSource broadcast;
  RETURN_IF_ERROR(AddInnerBuilds(*std::move(plan), &broadcast).status());
  return std::optional<MaterializedFrom>(Broadcasting(std::move(broadcast), probe));
}

absl::StatusOr<std::optional<MaterializedFrom>> FromMaterializer::TryShuffle(
    const std::set<size_t>& members) {
  const std::string& mode = context_.join_mode;
  if (context_.worker_count < 2 || (mode != "auto" && mode != "shuffle")) return std::nullopt;
  std::map<size_t, uint64_t> rows;
  std::optional<size_t> probe;
  for (size_t r : members) {
    if (!PlainTable(r)) continue;
    ASSIGN_OR_RETURN(rows[r], TableRows(r));
    if (!probe || rows[r] > rows[*probe]) probe = r;
  }
  if (!probe) return std::nullopt;
  std::optional<size_t> partner;
  for (const auto& [relation, count] : rows) {
    const size_t r = relation;  // a lambda may not capture a structured binding (clang 14)
    if (r == *probe || (partner && count <= rows[*partner])) continue;
    const bool linked = std::any_of(remaining_.begin(), remaining_.end(), [&](const ExprPtr& c) {
      return ProbeKey(*c, {*probe}, {r}).has_value();
    });
    if (linked) partner = r;
  }
  if (!partner || CoSharded(*probe, *partner, remaining_)) return std::nullopt;
  if (mode == "auto") {
    ASSIGN_OR_RETURN(bool costs_more, SendingCostsMore(*partner, *probe));
    if (!costs_more) return std::nullopt;
  }
  ASSIGN_OR_RETURN(std::optional<InnerPlan> plan,
                   PlanInner(members, ShufflePair{*probe, rows[*probe], *partner}));
  return OnWorkers(std::move(plan));
}

}  // namespace granite::coordinator::from_internal
