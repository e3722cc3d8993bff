#include "coordinator/exec/from_clause.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/ascii.h"
#include "coordinator/exec/array_join.h"
#include "coordinator/exec/from_materializer.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"
#include "core/functions/cast_column.h"
#include "core/functions/type_rules.h"
#include "core/join/gather_rows.h"
#include "core/join/row_keys.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace from_internal {

bool QualifierMatches(const std::string& qualifier, const Relation& relation) {
  if (qualifier == relation.qualifier) return true;
  const sql::TableRef& ref = *relation.ref;
  if (ref.subquery || ref.is_function) return false;
  return qualifier == ref.name ||
         (!ref.database.empty() && qualifier == ref.database + "." + ref.name);
}

bool HasColumn(const Relation& relation, const std::string& name) {
  return std::find(relation.names.begin(), relation.names.end(), name) != relation.names.end();
}

// The relations identifier `e` may name: a bare name is the first relation's that has it (as
// the binder resolves it), a qualified one each relation the qualifier matches.
std::vector<size_t> Candidates(const Expr& e, const std::vector<Relation>& relations) {
  std::vector<size_t> out;
  for (size_t r = 0; r < relations.size(); ++r) {
    if (!e.qualifier.empty() && !QualifierMatches(e.qualifier, relations[r])) continue;
    if (e.qualifier.empty() && relations[r].hidden.count(e.name)) continue;
    if (!HasColumn(relations[r], e.name)) continue;
    out.push_back(r);
    if (e.qualifier.empty()) break;
  }
  return out;
}

void CollectUses(const Expr& e, const std::vector<Relation>& relations, Uses* uses) {
  if (e.kind == ExprKind::kIdentifier) {
    std::vector<size_t> found = Candidates(e, relations);
    if (found.empty()) uses->unknown = true;
    if (found.size() > 1) uses->ambiguous = true;
    uses->relations.insert(found.begin(), found.end());
    return;
  }
  for (const ExprPtr& arg : e.args) CollectUses(*arg, relations, uses);
}

Uses UsesOf(const Expr& e, const std::vector<Relation>& relations) {
  Uses uses;
  CollectUses(e, relations, &uses);
  return uses;
}

void MarkNeeded(const Expr& e, std::vector<Relation>* relations) {
  // count(*) counts rows: its star reads no column (any other f(*) takes every column).
  if (e.kind == ExprKind::kFunction && absl::AsciiStrToLower(e.name) == "count" &&
      e.args.size() == 1 && e.args[0]->kind == ExprKind::kStar) {
    return;
  }
  if (e.kind == ExprKind::kStar) {
    for (Relation& relation : *relations) {
      relation.needed.insert(relation.names.begin(), relation.names.end());
    }
    return;
  }
  if (e.kind == ExprKind::kIdentifier) {
    for (size_t r : Candidates(e, *relations)) (*relations)[r].needed.insert(e.name);
    return;
  }
  for (const ExprPtr& arg : e.args) MarkNeeded(*arg, relations);
}

// A text of `e` that, unlike ColumnName, keeps qualifiers: equal texts, equal expressions.
std::string Signature(const Expr& e) {
  if (e.kind == ExprKind::kIdentifier) return e.qualifier + "." + e.name;
  if (e.kind != ExprKind::kFunction) return sql::ColumnName(e);
  std::string out = e.name + (e.distinct ? "Distinct(" : "(");
  for (const ExprPtr& arg : e.args) out += Signature(*arg) + ",";
  return out + ")";
}

// For `(a AND b) OR (a AND c)`, returns the conjuncts every branch has (`a`), so that a join key
// or a filter repeated in each branch of a disjunction still drives the join; the disjunction
// itself stays as a condition.
std::vector<ExprPtr> CommonConjuncts(const Expr& disjunction) {
  std::vector<ExprPtr> common;
  sql::SplitAnd(disjunction.args[0], &common);
  for (size_t i = 1; i < disjunction.args.size() && !common.empty(); ++i) {
    std::vector<ExprPtr> branch;
    sql::SplitAnd(disjunction.args[i], &branch);
    std::set<std::string> names;
    for (const ExprPtr& c : branch) names.insert(Signature(*c));
    std::vector<ExprPtr> kept;
    for (ExprPtr& c : common) {
      if (names.count(Signature(*c))) kept.push_back(std::move(c));
    }
    common = std::move(kept);
  }
  return common;
}

// For a disjunction over several relations, `(n1.x = 'A' AND n2.x = 'B') OR (n1.x = 'B' AND
// n2.x = 'A')`, returns per relation that every branch filters the disjunction of those filters
// (`n1.x = 'A' OR n1.x = 'B'`). Each is implied by the whole, so it is pushed into that
// relation's read and shrinks a join input before it is sent or hashed; the disjunction itself
// stays as a condition. A relation whose filters are the same in every branch is left to
// CommonConjuncts.
std::vector<ExprPtr> ImpliedFilters(const Expr& disjunction,
                                    const std::vector<Relation>& relations) {
  std::vector<ExprPtr> out;
  const Uses whole = UsesOf(disjunction, relations);
  if (whole.unknown || whole.ambiguous || whole.relations.size() < 2) return out;
  // Conjuncts every branch has are pushed by CommonConjuncts already: left out here, so that a
  // filter is not evaluated once more per branch.
  std::set<std::string> common;
  for (const ExprPtr& c : CommonConjuncts(disjunction)) common.insert(Signature(*c));
  for (size_t r : whole.relations) {
    std::vector<ExprPtr> branches;
    std::set<std::string> signatures;
    for (const ExprPtr& branch : disjunction.args) {
      std::vector<ExprPtr> conjuncts, own;
      sql::SplitAnd(branch, &conjuncts);
      for (ExprPtr& c : conjuncts) {
        const Uses uses = UsesOf(*c, relations);
        if (!uses.unknown && !uses.ambiguous && uses.relations == std::set<size_t>{r} &&
            !common.count(Signature(*c))) {
          own.push_back(std::move(c));
        }
      }
      if (own.empty()) break;
      branches.push_back(sql::JoinAnd(std::move(own)));
      signatures.insert(Signature(*branches.back()));
    }
    if (branches.size() < disjunction.args.size() || signatures.size() < 2) continue;
    out.push_back(sql::MakeCall("or", std::move(branches)));
  }
  return out;
}

// Returns how many distinct values the `keys` columns of `block` hold together, counted by 64-bit
// hash (a collision only makes the estimate a little smaller). The set grows with the distinct
// count, not the row count, so a low-cardinality key stays in cache.
double DistinctKeys(const core::Block& block, const std::vector<size_t>& keys) {
  std::vector<const core::Column*> columns;
  bool words = true;
  for (size_t key : keys) {
    columns.push_back(block.columns[key].get());
    words = words && core::IsWordKey(columns.back()->type());
  }
  absl::flat_hash_set<uint64_t> seen;
  std::string key;
  for (size_t row = 0; row < block.rows(); ++row) {
    if (words) {
      uint64_t h = 0;
      for (const core::Column* column : columns) {
        h = (h ^ core::KeyWord(*column, row)) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
      }
      seen.insert(h);
      continue;
    }
    key.clear();
    core::AppendRowKey(columns, row, &key);
    seen.insert(absl::Hash<std::string>{}(key));
  }
  return static_cast<double>(seen.size());
}



Joined FromRelation(size_t r, const Relation& relation) {
  Joined joined;
  joined.relations.insert(r);
  joined.block = relation.data.block;
  for (const std::string& name : relation.data.names) joined.columns.push_back({r, name});
  return joined;
}

// Returns the index in `joined` of column `name` of relation `r`, or -1.
int FindColumn(const Joined& joined, size_t r, const std::string& name) {
  for (size_t i = 0; i < joined.columns.size(); ++i) {
    if (joined.columns[i].relation == r && joined.columns[i].name == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}


// If `e` is `a = b` with a plain column of the joined relations on one side and one of relation
// `right` on the other, returns the pair.
std::optional<KeyPair> AsKey(const Expr& e, const Joined& left, size_t right, const Joined& right_side,
                             const std::vector<Relation>& relations) {
  if (e.kind != ExprKind::kFunction || e.name != "equals" || e.args.size() != 2) return std::nullopt;
  const Expr& a = *e.args[0];
  const Expr& b = *e.args[1];
  if (a.kind != ExprKind::kIdentifier || b.kind != ExprKind::kIdentifier) return std::nullopt;
  std::vector<size_t> ra = Candidates(a, relations);
  std::vector<size_t> rb = Candidates(b, relations);
  if (ra.size() != 1 || rb.size() != 1) return std::nullopt;
  auto try_pair = [&](const Expr& l, size_t lr, const Expr& r, size_t rr) -> std::optional<KeyPair> {
    if (!left.relations.count(lr) || rr != right) return std::nullopt;
    KeyPair pair{FindColumn(left, lr, l.name), FindColumn(right_side, rr, r.name)};
    if (pair.left < 0 || pair.right < 0) return std::nullopt;
    return pair;
  };
  if (auto pair = try_pair(a, ra[0], b, rb[0])) return pair;
  return try_pair(b, rb[0], a, ra[0]);
}

absl::Status CheckKeyTypes(const Joined& left, const Joined& right, const std::vector<KeyPair>& keys,
                           size_t position) {
  for (const KeyPair& key : keys) {
    TypeId a = left.block.columns[key.left]->type();
    TypeId b = right.block.columns[key.right]->type();
    if (!core::KeysComparable(a, b)) {
      return core::Error(ErrorCode::kNoCommonType,
                         "JOIN key types " + std::string(core::TypeName(a)) + " and " +
                             std::string(core::TypeName(b)) + " cannot be compared (column " +
                             left.columns[key.left].name + " and " + right.columns[key.right].name +
                             ", at position " + std::to_string(position + 1) + ")");
    }
  }
  return absl::OkStatus();
}


absl::StatusOr<Joined> JoinPair(Joined left, Joined right, JoinSpec spec,
                                const std::vector<UsingPair>& using_pairs, bool use_nulls = false) {
  // join_use_nulls = 1: the side whose rows may lack a partner becomes Nullable, whatever the
  // strictness, as in ClickHouse (a LEFT ANTI join's right columns are all NULL).
  const bool left_nulls =
      use_nulls && (spec.kind == JoinKind::kRight || spec.kind == JoinKind::kFull);
  const bool right_nulls =
      use_nulls && (spec.kind == JoinKind::kLeft || spec.kind == JoinKind::kFull);
  const bool swap = spec.kind == JoinKind::kRight && (spec.strictness == JoinStrictness::kSemi ||
                                                      spec.strictness == JoinStrictness::kAnti);
  JoinRows rows;
  if (swap) {
    JoinSpec swapped = spec;
    swapped.kind = JoinKind::kLeft;
    std::swap(swapped.left_keys, swapped.right_keys);
    ASSIGN_OR_RETURN(rows, HashJoin(right.block, left.block, swapped));
    std::swap(rows.left, rows.right);
  } else {
    ASSIGN_OR_RETURN(rows, HashJoin(left.block, right.block, spec));
  }
  Joined out;
  out.relations = left.relations;
  out.relations.insert(right.relations.begin(), right.relations.end());
  out.block.rows_without_columns = rows.left.size();
  for (size_t c = 0; c < left.columns.size(); ++c) {
    out.block.columns.push_back(core::GatherRows(*left.block.columns[c], rows.left, left_nulls));
    out.columns.push_back(left.columns[c]);
  }
  for (const UsingPair& pair : using_pairs) {
    // Rows only the right side has take the key from the right (RIGHT and FULL joins).
    // The key takes both sides' common supertype (UInt32 with UInt64 is UInt64).
    core::TypeId type = left.block.columns[pair.left]->type();
    const core::TypeId right_type = right.block.columns[pair.right]->type();
    if (type != right_type) {
      std::optional<core::TypeId> common = core::CommonSupertype(type, right_type);
      if (!common) continue;  // KeysComparable already refused strings with numbers
      type = *common;
    }
    ASSIGN_OR_RETURN(core::ColumnPtr left_key,
                     core::CastColumn(out.block.columns[pair.left], type));
    out.block.columns[pair.left] = left_key;
    bool any_missing = std::any_of(rows.left.begin(), rows.left.end(), [](int64_t r) { return r < 0; });
    if (!any_missing) continue;
    ASSIGN_OR_RETURN(core::ColumnPtr right_key,
                     core::CastColumn(right.block.columns[pair.right], type));
    const core::Column& from_left = *left_key;
    const core::Column& from_right = *right_key;
    auto column = std::make_shared<core::Column>(type);
    for (size_t i = 0; i < rows.left.size(); ++i) {
      if (rows.left[i] >= 0) {
        column->AppendFrom(from_left, i);
      } else {
        column->AppendFrom(from_right, rows.right[i]);
      }
    }
    out.block.columns[pair.left] = std::move(column);
  }
  for (size_t c = 0; c < right.columns.size(); ++c) {
    out.block.columns.push_back(core::GatherRows(*right.block.columns[c], rows.right, right_nulls));
    out.columns.push_back(right.columns[c]);
  }
  return out;
}


size_t FromMaterializer::InnerPrefix() const {
  size_t prefix = 1;
  while (prefix - 1 < select_.joins.size() && IsInnerJoin(select_.joins[prefix - 1])) ++prefix;
  for (size_t j = prefix - 1; j < select_.joins.size(); ++j) {
    // A RIGHT or FULL join needs the prefix's ON conditions applied before it.
    if (select_.joins[j].kind == JoinKind::kRight || select_.joins[j].kind == JoinKind::kFull) {
      return 1;
    }
  }
  return prefix;
}

void FromMaterializer::PrefixConditionsAsWhere(size_t prefix) {
  for (size_t j = 0; j + 1 < prefix; ++j) {
    remaining_.insert(remaining_.end(), on_[j].begin(), on_[j].end());
    on_[j].clear();
    for (const auto& [r, column] : using_pairs_[j]) {
      const size_t position = select_.joins[j].position;
      remaining_.push_back(sql::MakeCall(
          "equals", {sql::MakeColumn(relations_[r].qualifier, column, position),
                     sql::MakeColumn(relations_[j + 1].qualifier, column, position)}));
    }
    using_pairs_[j].clear();
  }
}

absl::StatusOr<MaterializedFrom> FromMaterializer::Run() {
  ASSIGN_OR_RETURN(MaterializedFrom out, PlanAndJoin());
  out.notes = std::move(notes_);
  return out;
}

absl::StatusOr<MaterializedFrom> FromMaterializer::PlanAndJoin() {
  RETURN_IF_ERROR(CollectRelations());
  ordered_ = !std::all_of(select_.joins.begin(), select_.joins.end(), IsInnerJoin);
  RETURN_IF_ERROR(SetUsing());
  Classify();
  MarkAllNeeded();
  if (!ordered_) {
    UsingAsEqualities();
    RETURN_IF_ERROR(ReduceByJoinKeys());
    RETURN_IF_ERROR(ReduceDeferred());
    RETURN_IF_ERROR(RunDeferred());
    RETURN_IF_ERROR(SetProbeSets());
    DropKeyOnlyRelations();
    ASSIGN_OR_RETURN(std::optional<MaterializedFrom> broadcast, TryBroadcast());
    if (broadcast) {
      // The workers scan the largest table, the one whose probe sets stand for dropped joins.
      for (const ProbeSetDrop& drop : dropped_by_probe_sets_) {
        if (broadcast->broadcast->probe_relation != drop.r) {
          return core::Error(ErrorCode::kLogicalError,
                             "A join dropped for a probe set lost its set: the workers scan "
                             "another table");
        }
      }
      return *std::move(broadcast);
    }
    RestoreProbeSetDrops();
  } else {
    // The inner joins at the front may be joined in any order: as a FROM of inner joins.
    prefix_ = InnerPrefix();
    PrefixConditionsAsWhere(prefix_);
    RETURN_IF_ERROR(ReduceByJoinKeys());
    RETURN_IF_ERROR(ReduceDeferred());
    RETURN_IF_ERROR(RunDeferred());
    RETURN_IF_ERROR(SetProbeSets());
    ASSIGN_OR_RETURN(std::optional<MaterializedFrom> broadcast, TryBroadcastInOrder());
    if (broadcast) return *std::move(broadcast);
  }
  RETURN_IF_ERROR(ReadRelations());
  Joined joined;
  if (ordered_) {
    ASSIGN_OR_RETURN(joined, JoinInOrder());
  } else {
    std::set<size_t> all;
    for (size_t r = 0; r < relations_.size(); ++r) {
      if (!eliminated_.count(r)) all.insert(r);
    }
    ASSIGN_OR_RETURN(joined, JoinGreedy(all));
  }
  MaterializedFrom out;
  out.table = Output(std::move(joined));
  out.rest = select_;
  out.rest.from.reset();
  out.rest.joins.clear();
  out.rest.where = sql::JoinAnd(remaining_);
  return out;
}

absl::Status FromMaterializer::CollectRelations() {
  std::vector<const sql::TableRef*> refs = {&*select_.from};
  for (const sql::JoinClause& join : select_.joins) refs.push_back(&join.table);
  for (size_t i = 0; i < refs.size(); ++i) {
    const sql::TableRef& ref = *refs[i];
    Relation relation;
    relation.ref = &ref;
    relation.qualifier = !ref.alias.empty() ? ref.alias
                         : ref.subquery     ? "_subquery" + std::to_string(i + 1)
                                            : ref.name;
    if (ref.subquery && Deferrable(ref, &relation.names)) {
      relation.types.assign(relation.names.size(), TypeId::kNothing);
      relation.prematerialized = true;
      relation.deferred = true;
    } else if (ref.subquery || ref.database == "system") {
      sql::SelectStatement all;
      if (ref.subquery) {
        all = *ref.subquery;
      } else {
        auto star = std::make_shared<Expr>();
        star->kind = ExprKind::kStar;
        all.select.push_back(star);
        all.from = ref;
      }
      ASSIGN_OR_RETURN(relation.data, context_.run(all));
      if (ref.array_join) {
        ASSIGN_OR_RETURN(relation.data, ExpandArrayJoin(std::move(relation.data), *ref.array_join,
                                                        "", max_rows_));
      }
      relation.names = relation.data.names;
      relation.types = relation.data.types;
      relation.prematerialized = true;
    } else {
      ASSIGN_OR_RETURN(RelationColumns columns, context_.columns_of(ref));
      relation.names = std::move(columns.names);
      relation.types = std::move(columns.types);
      relation.sharding_key = std::move(columns.sharding_key);
      relation.shard_count = columns.shard_count;
    }
    relations_.push_back(std::move(relation));
  }
  // Which relations an outer join fills with default values.
  for (size_t j = 0; j < select_.joins.size(); ++j) {
    JoinKind kind = select_.joins[j].kind;
    if (kind == JoinKind::kLeft || kind == JoinKind::kFull) relations_[j + 1].null_supplying = true;
    if (kind == JoinKind::kRight || kind == JoinKind::kFull) {
      for (size_t r = 0; r <= j; ++r) relations_[r].null_supplying = true;
    }
  }
  return absl::OkStatus();
}

// USING (c): the left copy is the first earlier relation with c; the right copy is hidden.
absl::Status FromMaterializer::SetUsing() {
  using_pairs_.resize(select_.joins.size());
  for (size_t j = 0; j < select_.joins.size(); ++j) {
    const sql::JoinClause& join = select_.joins[j];
    for (const std::string& column : join.using_columns) {
      Relation& right = relations_[j + 1];
      int left = -1;
      for (size_t r = 0; r <= j && left < 0; ++r) {
        if (HasColumn(relations_[r], column) && !relations_[r].hidden.count(column)) left = r;
      }
      if (left < 0 || !HasColumn(right, column)) {
        return core::Error(ErrorCode::kUnknownIdentifier,
                           "JOIN USING: column " + column + " is not on both sides (at position " +
                               std::to_string(join.position + 1) + ")");
      }
      right.hidden.insert(column);
      relations_[left].needed.insert(column);
      right.needed.insert(column);
      using_pairs_[j].push_back({static_cast<size_t>(left), column});
    }
  }
  return absl::OkStatus();
}

// Sorts WHERE and ON conjuncts into pushed-down filters, join conditions and the rest.
void FromMaterializer::Classify() {
  std::vector<ExprPtr> where;
  sql::SplitAnd(select_.where, &where);
  for (size_t i = 0, n = where.size(); i < n; ++i) {
    if (where[i]->kind == ExprKind::kFunction && where[i]->name == "or" &&
        where[i]->args.size() > 1) {
      for (ExprPtr& c : CommonConjuncts(*where[i])) where.push_back(std::move(c));
      for (ExprPtr& c : ImpliedFilters(*where[i], relations_)) where.push_back(std::move(c));
    }
  }
  on_.resize(select_.joins.size());
  for (size_t j = 0; j < select_.joins.size(); ++j) {
    std::vector<ExprPtr> on;
    sql::SplitAnd(select_.joins[j].on, &on);
    for (ExprPtr& c : on) {
      if (!ordered_) {
        where.push_back(std::move(c));  // inner joins: ON is WHERE
        continue;
      }
      // An outer join's ON condition on its right side alone filters that side before the join.
      Uses uses = UsesOf(*c, relations_);
      Relation& right = relations_[j + 1];
      const JoinKind kind = select_.joins[j].kind;
      if (!uses.unknown && !uses.ambiguous && uses.relations == std::set<size_t>{j + 1} &&
          !right.prematerialized && (kind == JoinKind::kInner || kind == JoinKind::kLeft)) {
        right.pushed.push_back(std::move(c));
      } else if (!uses.unknown && !uses.ambiguous && j == 0 && kind == JoinKind::kRight &&
                 uses.relations == std::set<size_t>{0} && !relations_[0].prematerialized) {
        // A RIGHT join's ON condition on its left table alone: the left rows that fail it match
        // nothing, and the left side is not kept unmatched, so it filters that table first.
        relations_[0].pushed.push_back(std::move(c));
      } else {
        on_[j].push_back(std::move(c));
      }
    }
  }
  for (ExprPtr& c : where) {
    Uses uses = UsesOf(*c, relations_);
    if (!uses.unknown && !uses.ambiguous && uses.relations.size() == 1) {
      Relation& relation = relations_[*uses.relations.begin()];
      if (!relation.null_supplying && !relation.prematerialized) {
        relation.pushed.push_back(std::move(c));
        continue;
      }
    }
    remaining_.push_back(std::move(c));
  }
}

void FromMaterializer::MarkAllNeeded() {
  for (const ExprPtr& item : select_.select) MarkNeeded(*item, &relations_);
  for (const ExprPtr& key : select_.group_by) MarkNeeded(*key, &relations_);
  for (const sql::OrderItem& order : select_.order_by) MarkNeeded(*order.expr, &relations_);
  for (const sql::WithItem& with : select_.with) {
    if (with.expr) MarkNeeded(*with.expr, &relations_);
  }
  if (select_.having) MarkNeeded(*select_.having, &relations_);
  for (const ExprPtr& c : remaining_) MarkNeeded(*c, &relations_);
  for (const auto& on : on_) {
    for (const ExprPtr& c : on) MarkNeeded(*c, &relations_);
  }
}

absl::Status FromMaterializer::ReadRelations() {
  for (size_t r = 0; r < relations_.size(); ++r) {
    if (!eliminated_.count(r)) RETURN_IF_ERROR(ReadRelation(r));
  }
  return absl::OkStatus();
}

absl::Status FromMaterializer::ReadRelation(size_t r) {
  Relation& relation = relations_[r];
  if (relation.deferred && !relation.read) return RunDeferred();
  if (relation.prematerialized || relation.read) return absl::OkStatus();
  if (std::optional<LocalTable> rows = PrefetchedRows(r)) {
    relation.data = *std::move(rows);
    relation.read = true;
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(relation.data, context_.run(ReadStatement(r)));
  relation.read = true;
  return absl::OkStatus();
}

sql::SelectStatement FromMaterializer::ReadStatement(size_t r) const {
  const Relation& relation = relations_[r];
  sql::SelectStatement read;
  for (const std::string& name : relation.names) {
    if (relation.needed.count(name)) read.select.push_back(sql::MakeColumn("", name, 0));
  }
  if (read.select.empty()) {
    auto one = std::make_shared<Expr>();
    one->kind = ExprKind::kLiteral;
    one->value = uint64_t{1};
    one->alias = "_dummy";
    read.select.push_back(one);
  }
  read.from = *relation.ref;
  read.where = sql::JoinAnd(relation.pushed);
  return read;
}

// The rows of table relation `r` (its statistics: count() from the parts), or of those that
// pass `where`. Each distinct count runs once per FROM: the join strategies (key reduction,
// broadcast, shuffle) ask for the same ones.
absl::StatusOr<uint64_t> FromMaterializer::TableRows(size_t r, ExprPtr where) {
  return TableRows(r, std::move(where), std::numeric_limits<uint64_t>::max());
}

absl::StatusOr<uint64_t> FromMaterializer::TableRows(size_t r, ExprPtr where, uint64_t limit) {
  // A subquery's column name is only "_subquery": such filters are not remembered.
  std::optional<std::pair<size_t, std::string>> key;
  if (!where || !sql::ContainsSubquery(*where)) {
    key.emplace(r, where ? sql::ColumnName(*where) : std::string());
    if (auto it = table_rows_.find(*key); it != table_rows_.end()) {
      const CountedRows& counted = it->second;
      if (counted.exact || counted.rows >= limit) return std::min(counted.rows, limit);
    }
  }
  // The statistics answer an unfiltered count whole; a filtered one under a limit counts the
  // rows of `SELECT 1 FROM t WHERE ... LIMIT n`, whose workers stop reading at n rows.
  const bool capped = where != nullptr && limit != std::numeric_limits<uint64_t>::max();
  const sql::SelectStatement count =
      sql::CountStatement(*relations_[r].ref, std::move(where),
                          capped ? std::optional<uint64_t>(limit) : std::nullopt);
  ASSIGN_OR_RETURN(LocalTable rows, context_.run(count));
  if (rows.block.rows() != 1 || rows.block.columns.size() != 1) {
    return core::Error(ErrorCode::kLogicalError, "count() gave no single value");
  }
  const uint64_t n = rows.block.columns[0]->Get<uint64_t>(0);
  if (key) table_rows_[*key] = CountedRows{n, !capped || n < limit};
  return std::min(n, limit);
}

JoinSpec FromMaterializer::Spec(JoinKind kind, JoinStrictness strictness,
                                const std::vector<KeyPair>& keys) const {
  JoinSpec spec;
  spec.kind = kind;
  spec.strictness = strictness;
  spec.max_rows = max_rows_;
  for (const KeyPair& key : keys) {
    spec.left_keys.push_back(key.left);
    spec.right_keys.push_back(key.right);
  }
  return spec;
}

// Takes the conjuncts of `pool` that are keys between `left` and relation `r`.
std::vector<KeyPair> FromMaterializer::TakeKeys(std::vector<ExprPtr>* pool, const Joined& left,
                                                size_t r, const Joined& right) {
  std::vector<KeyPair> keys;
  for (auto it = pool->begin(); it != pool->end();) {
    if (auto key = AsKey(**it, left, r, right, relations_)) {
      keys.push_back(*key);
      it = pool->erase(it);
    } else {
      ++it;
    }
  }
  return keys;
}

std::vector<KeyPair> FromMaterializer::UsingKeys(size_t j, const Joined& left, const Joined& right,
                                                 std::vector<UsingPair>* pairs) {
  std::vector<KeyPair> keys;
  for (const auto& [r, column] : using_pairs_[j]) {
    KeyPair key{FindColumn(left, r, column), FindColumn(right, j + 1, column)};
    keys.push_back(key);
    if (pairs) pairs->push_back({key.left, key.right});
  }
  return keys;
}

// USING keys of inner joins become equalities between the two named copies.
void FromMaterializer::UsingAsEqualities() {
  for (size_t j = 0; j < select_.joins.size(); ++j) {
    for (const auto& [r, column] : using_pairs_[j]) {
      const size_t position = select_.joins[j].position;
      const std::string& right = relations_[j + 1].qualifier;
      remaining_.push_back(
          sql::MakeCall("equals", {sql::MakeColumn(relations_[r].qualifier, column, position),
                                   sql::MakeColumn(right, column, position)}));
    }
  }
}

// Joins the (read) relations `members` by the greedy order of the file comment.
absl::StatusOr<Joined> FromMaterializer::JoinGreedy(const std::set<size_t>& members) {
  std::set<size_t> pending = members;
  size_t first = *members.begin();
  for (size_t r : members) {
    if (relations_[r].data.block.rows() > relations_[first].data.block.rows()) first = r;
  }
  Joined joined = FromRelation(first, relations_[first]);
  pending.erase(first);
  // Distinct-key counts of a pending relation's columns stay valid until it is joined.
  std::map<std::pair<size_t, std::vector<size_t>>, double> relation_distinct;
  while (!pending.empty()) {
    // The connected relation whose join is estimated smallest: |L| * |R| / max(distinct keys
    // of L, distinct keys of R); with none connected, the smallest relation (a cross join).
    std::map<std::vector<size_t>, double> joined_distinct;  // of this step's joined block
    size_t best = *pending.begin();
    bool best_connected = false;
    double best_cost = 0;
    // The last relation needs no estimate (counting distinct keys is a hash pass over both).
    for (size_t r : pending) {
      if (pending.size() == 1) break;
      Joined candidate = FromRelation(r, relations_[r]);
      std::vector<ExprPtr> probe = remaining_;
      std::vector<KeyPair> keys = TakeKeys(&probe, joined, r, candidate);
      const bool connected = !keys.empty();
      const double rows = static_cast<double>(relations_[r].data.block.rows());
      double cost = rows;
      if (connected) {
        std::vector<size_t> left_keys, right_keys;
        for (const KeyPair& key : keys) {
          left_keys.push_back(key.left);
          right_keys.push_back(key.right);
        }
        auto left = joined_distinct.find(left_keys);
        if (left == joined_distinct.end()) {
          left = joined_distinct.emplace(left_keys, DistinctKeys(joined.block, left_keys)).first;
        }
        auto right = relation_distinct.find({r, right_keys});
        if (right == relation_distinct.end()) {
          right = relation_distinct
                      .emplace(std::make_pair(r, right_keys),
                               DistinctKeys(candidate.block, right_keys))
                      .first;
        }
        const double distinct = std::max(left->second, right->second);
        cost = static_cast<double>(joined.block.rows()) * rows / std::max(distinct, 1.0);
      }
      const bool better = r == *pending.begin() || (connected && !best_connected) ||
                          (connected == best_connected && cost < best_cost);
      if (better) {
        best = r;
        best_connected = connected;
        best_cost = cost;
      }
    }
    Joined right = FromRelation(best, relations_[best]);
    std::vector<KeyPair> keys = TakeKeys(&remaining_, joined, best, right);
    RETURN_IF_ERROR(CheckKeyTypes(joined, right, keys, 0));
    pending.erase(best);
    if (right.block.rows() > joined.block.rows()) {
      // Builds on the smaller side: the joined relations become the right side.
      for (KeyPair& key : keys) std::swap(key.left, key.right);
      ASSIGN_OR_RETURN(joined, JoinPair(std::move(right), std::move(joined),
                                        Spec(JoinKind::kInner, JoinStrictness::kAll, keys), {}));
    } else {
      ASSIGN_OR_RETURN(joined, JoinPair(std::move(joined), std::move(right),
                                        Spec(JoinKind::kInner, JoinStrictness::kAll, keys), {}));
    }
  }
  return joined;
}

absl::StatusOr<Joined> FromMaterializer::JoinInOrder() {
  Joined joined;
  if (prefix_ > 1) {
    std::set<size_t> members;
    for (size_t r = 0; r < prefix_; ++r) members.insert(r);
    ASSIGN_OR_RETURN(joined, JoinGreedy(members));
  } else {
    joined = FromRelation(0, relations_[0]);
  }
  for (size_t j = prefix_ - 1; j < select_.joins.size(); ++j) {
    const sql::JoinClause& join = select_.joins[j];
    Joined right = FromRelation(j + 1, relations_[j + 1]);
    std::vector<UsingPair> using_pairs;
    std::vector<KeyPair> keys = UsingKeys(j, joined, right, &using_pairs);
    std::vector<KeyPair> on_keys = TakeKeys(&on_[j], joined, j + 1, right);
    keys.insert(keys.end(), on_keys.begin(), on_keys.end());
    if (join.comma || join.kind == JoinKind::kInner) {
      // Comma joins take their keys from WHERE; leftover inner ON conditions filter after.
      std::vector<KeyPair> where_keys = TakeKeys(&remaining_, joined, j + 1, right);
      keys.insert(keys.end(), where_keys.begin(), where_keys.end());
      remaining_.insert(remaining_.end(), on_[j].begin(), on_[j].end());
    } else if (!on_[j].empty()) {
      return core::Error(ErrorCode::kInvalidJoinOnExpression,
                         "Unsupported JOIN ON condition for an outer, semi or anti join: " +
                             sql::ColumnName(*on_[j][0]) +
                             " (only equalities between the two sides and conditions on the "
                             "side that is not kept unmatched are supported, at position " +
                             std::to_string(on_[j][0]->position + 1) + ")");
    }
    if (keys.empty() && join.kind != JoinKind::kCross && !join.comma &&
        join.kind != JoinKind::kInner) {
      return core::Error(ErrorCode::kInvalidJoinOnExpression,
                         "JOIN ON needs an equality between the two sides (at position " +
                             std::to_string(join.position + 1) + ")");
    }
    RETURN_IF_ERROR(CheckKeyTypes(joined, right, keys, join.position));
    JoinKind kind = join.comma ? JoinKind::kInner : join.kind;
    if (kind == JoinKind::kCross) kind = JoinKind::kInner;
    ASSIGN_OR_RETURN(joined, JoinPair(std::move(joined), std::move(right),
                                      Spec(kind, join.strictness, keys), using_pairs,
                                      context_.join_use_nulls));
  }
  return joined;
}

// The joined columns in FROM order; `relations`, when set, gets each column's relation.
LocalTable FromMaterializer::Output(Joined joined, std::vector<size_t>* relations) {
  std::vector<size_t> order(joined.columns.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto position = [&](size_t i) {
    const Relation& relation = relations_[joined.columns[i].relation];
    return std::find(relation.data.names.begin(), relation.data.names.end(),
                     joined.columns[i].name) - relation.data.names.begin();
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (joined.columns[a].relation != joined.columns[b].relation) {
      return joined.columns[a].relation < joined.columns[b].relation;
    }
    return position(a) < position(b);
  });
  LocalTable table;
  table.block.rows_without_columns = joined.block.rows();
  for (size_t i : order) {
    const ColumnRef& ref = joined.columns[i];
    const Relation& relation = relations_[ref.relation];
    table.names.push_back(ref.name);
    table.types.push_back(joined.block.columns[i]->logical_type());
    table.qualifiers.push_back(relation.qualifier);
    table.hidden.push_back(relation.hidden.count(ref.name) > 0);
    table.block.columns.push_back(joined.block.columns[i]);
    if (relations) relations->push_back(ref.relation);
  }
  return table;
}

}  // namespace from_internal

bool IsInnerJoin(const sql::JoinClause& join) {
  return join.comma || join.kind == sql::JoinKind::kCross ||
         (join.kind == sql::JoinKind::kInner && join.strictness == sql::JoinStrictness::kAll);
}

bool NeedsMaterializedFrom(const sql::SelectStatement& select) {
  return (select.from && (select.from->subquery || !select.joins.empty())) ||
         !select.array_joins.empty();
}

absl::StatusOr<MaterializedFrom> MaterializeFrom(const sql::SelectStatement& select,
                                                 const FromContext& context) {
  if (select.joins.empty()) {
    MaterializedFrom out;
    const sql::TableRef& from = *select.from;
    ASSIGN_OR_RETURN(out.table, context.run(*from.subquery));
    if (from.array_join) {
      const uint64_t cap = context.max_rows_in_join > 0 ? context.max_rows_in_join
                                                        : from_internal::kJoinRowsCap;
      ASSIGN_OR_RETURN(out.table,
                       ExpandArrayJoin(std::move(out.table), *from.array_join, from.alias, cap));
    }
    out.rest = select;
    out.rest.from.reset();
    return out;
  }
  return from_internal::FromMaterializer(select, context).Run();
}

}  // namespace granite::coordinator
