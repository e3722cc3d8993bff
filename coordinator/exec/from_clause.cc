#include "coordinator/exec/from_clause.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "coordinator/exec/hash_join.h"
#include "core/join/row_keys.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"
#include "core/join/gather_rows.h"
#include "core/functions/cast_column.h"
#include "core/functions/type_rules.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using core::ErrorCode;
using core::TypeId;
using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;
using sql::JoinKind;
using sql::JoinStrictness;

// Without a max_rows_in_join, a join stops here rather than exhaust the coordinator's memory.
constexpr uint64_t kJoinRowsCap = 200'000'000;

struct Relation {
  std::string qualifier;  // alias, else the table name
  const sql::TableRef* ref = nullptr;
  std::vector<std::string> names;
  std::vector<TypeId> types;
  bool prematerialized = false;  // a subquery or system table, already run
  LocalTable data;
  std::vector<ExprPtr> pushed;
  std::set<std::string> needed;
  std::set<std::string> hidden;  // right copies of USING columns
  bool null_supplying = false;
  bool read = false;  // data holds its rows
};

struct Uses {
  std::set<size_t> relations;
  bool unknown = false;    // an identifier no relation has (an alias of the select list)
  bool ambiguous = false;  // an unqualified identifier several relations have
};

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

// A relation's column in a joined block.
struct ColumnRef {
  size_t relation;
  std::string name;
};

struct Joined {
  std::set<size_t> relations;
  core::Block block;
  std::vector<ColumnRef> columns;
};

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

// An equality between a column of `left` and one of relation `right`, as key columns.
struct KeyPair {
  int left = -1;
  int right = -1;
};

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

// A USING column: its left copy is filled from the right one where the left row is missing.
struct UsingPair {
  int left;
  int right;
};

absl::StatusOr<Joined> JoinPair(Joined left, Joined right, JoinSpec spec,
                                const std::vector<UsingPair>& using_pairs, bool use_nulls = false) {
  // join_use_nulls = 1: the side whose rows may lack a partner becomes Nullable.
  const bool outer_strictness =
      spec.strictness == JoinStrictness::kAll || spec.strictness == JoinStrictness::kAny;
  const bool left_nulls = use_nulls && outer_strictness &&
                          (spec.kind == JoinKind::kRight || spec.kind == JoinKind::kFull);
  const bool right_nulls = use_nulls && outer_strictness &&
                           (spec.kind == JoinKind::kLeft || spec.kind == JoinKind::kFull);
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

class FromMaterializer {
 public:
  FromMaterializer(const sql::SelectStatement& select, const FromContext& context)
      : select_(select), context_(context) {
    max_rows_ = context.max_rows_in_join > 0 ? context.max_rows_in_join : kJoinRowsCap;
  }

  absl::StatusOr<MaterializedFrom> Run() {
    RETURN_IF_ERROR(CollectRelations());
    ordered_ = false;
    for (const sql::JoinClause& join : select_.joins) {
      const bool inner = join.comma || join.kind == JoinKind::kCross ||
                         (join.kind == JoinKind::kInner && join.strictness == JoinStrictness::kAll);
      if (!inner) ordered_ = true;
    }
    RETURN_IF_ERROR(SetUsing());
    Classify();
    MarkAllNeeded();
    if (!ordered_) {
      UsingAsEqualities();
      ASSIGN_OR_RETURN(std::optional<MaterializedFrom> broadcast, TryBroadcast());
      if (broadcast) return *std::move(broadcast);
    } else {
      ASSIGN_OR_RETURN(std::optional<MaterializedFrom> broadcast, TryBroadcastInOrder());
      if (broadcast) return *std::move(broadcast);
    }
    RETURN_IF_ERROR(ReadRelations());
    Joined joined;
    if (ordered_) {
      ASSIGN_OR_RETURN(joined, JoinInOrder());
    } else {
      std::set<size_t> all;
      for (size_t r = 0; r < relations_.size(); ++r) all.insert(r);
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

 private:
  absl::Status CollectRelations() {
    std::vector<const sql::TableRef*> refs = {&*select_.from};
    for (const sql::JoinClause& join : select_.joins) refs.push_back(&join.table);
    for (size_t i = 0; i < refs.size(); ++i) {
      const sql::TableRef& ref = *refs[i];
      Relation relation;
      relation.ref = &ref;
      relation.qualifier = !ref.alias.empty() ? ref.alias
                           : ref.subquery     ? "_subquery" + std::to_string(i + 1)
                                              : ref.name;
      if (ref.subquery || ref.database == "system") {
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
        relation.names = relation.data.names;
        relation.types = relation.data.types;
        relation.prematerialized = true;
      } else {
        ASSIGN_OR_RETURN(RelationColumns columns, context_.columns_of(ref));
        relation.names = std::move(columns.names);
        relation.types = std::move(columns.types);
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
  absl::Status SetUsing() {
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
  void Classify() {
    std::vector<ExprPtr> where;
    sql::SplitAnd(select_.where, &where);
    for (size_t i = 0, n = where.size(); i < n; ++i) {
      if (where[i]->kind == ExprKind::kFunction && where[i]->name == "or" &&
          where[i]->args.size() > 1) {
        for (ExprPtr& c : CommonConjuncts(*where[i])) where.push_back(std::move(c));
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

  void MarkAllNeeded() {
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

  absl::Status ReadRelations() {
    for (size_t r = 0; r < relations_.size(); ++r) RETURN_IF_ERROR(ReadRelation(r));
    return absl::OkStatus();
  }

  absl::Status ReadRelation(size_t r) {
    Relation& relation = relations_[r];
    if (relation.prematerialized || relation.read) return absl::OkStatus();
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
    ASSIGN_OR_RETURN(relation.data, context_.run(read));
    relation.read = true;
    return absl::OkStatus();
  }

  // The rows of table relation `r` (its statistics: count() from the parts), or of those that
  // pass `where`.
  absl::StatusOr<uint64_t> TableRows(size_t r, ExprPtr where = nullptr) {
    sql::SelectStatement count;
    count.select.push_back(sql::MakeCall("count", {}));
    count.from = *relations_[r].ref;
    count.where = std::move(where);
    ASSIGN_OR_RETURN(LocalTable rows, context_.run(count));
    if (rows.block.rows() != 1 || rows.block.columns.size() != 1) {
      return core::Error(ErrorCode::kLogicalError, "count() gave no single value");
    }
    return rows.block.columns[0]->Get<uint64_t>(0);
  }

  // If `e` is `a = b` between plain columns of two different relations, returns them as
  // (relation of a, relation of b).
  std::optional<std::pair<size_t, size_t>> EqualityRelations(const Expr& e) const {
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

  // The relations other than `probe` in groups, each sent to the workers as one build: every
  // relation linked to the probe by an equality starts a group, and each other relation joins
  // the group of a relation it is linked to (breadth first, in FROM order). Equalities between
  // groups stay conditions on the joined rows, so no group is the product of two others. Empty
  // when some relation has no path to the probe (a cross join).
  std::vector<std::set<size_t>> Components(size_t probe) const {
    const size_t n = relations_.size();
    std::vector<std::vector<size_t>> links(n);
    for (const ExprPtr& c : remaining_) {
      std::optional<std::pair<size_t, size_t>> pair = EqualityRelations(*c);
      if (!pair) continue;
      links[pair->first].push_back(pair->second);
      links[pair->second].push_back(pair->first);
    }
    std::vector<int> group(n, -1);
    std::vector<std::set<size_t>> out;
    std::vector<size_t> queue;
    for (size_t r = 0; r < n; ++r) {
      if (r == probe || group[r] >= 0) continue;
      if (std::find(links[r].begin(), links[r].end(), probe) == links[r].end()) continue;
      group[r] = static_cast<int>(out.size());
      out.push_back({r});
      queue.push_back(r);
    }
    for (size_t at = 0; at < queue.size(); ++at) {
      const size_t r = queue[at];
      for (size_t other : links[r]) {
        if (other == probe || group[other] >= 0) continue;
        group[other] = group[r];
        out[group[r]].insert(other);
        queue.push_back(other);
      }
    }
    if (queue.size() + 1 < n) return {};
    return out;
  }

  // Whether conjunct `c` is an equality between the probe and a relation of `members`; then
  // returns (probe side, member side), both qualified.
  std::optional<std::pair<ExprPtr, ExprPtr>> ProbeKey(const Expr& c, size_t probe,
                                                      const std::set<size_t>& members) const {
    std::optional<std::pair<size_t, size_t>> pair = EqualityRelations(c);
    if (!pair) return std::nullopt;
    const Expr* probe_side = c.args[0].get();
    const Expr* member_side = c.args[1].get();
    size_t member = pair->second;
    if (pair->second == probe) {
      std::swap(probe_side, member_side);
      member = pair->first;
    } else if (pair->first != probe) {
      return std::nullopt;
    }
    if (!members.count(member)) return std::nullopt;
    return std::make_pair(
        sql::MakeColumn(relations_[probe].qualifier, probe_side->name, probe_side->position),
        sql::MakeColumn(relations_[member].qualifier, member_side->name, member_side->position));
  }

  // The type of column `name` of relation `r`.
  TypeId ColumnType(size_t r, const std::string& name) const {
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
  absl::StatusOr<bool> WorthBroadcasting(size_t probe, uint64_t probe_rows, uint64_t build_rows) {
    if (context_.join_mode != "auto") return true;
    const uint64_t copies = context_.worker_count > 2 ? context_.worker_count - 1 : 1;
    const uint64_t sent = build_rows * copies;
    if (sent > probe_rows) return false;
    if (relations_[probe].pushed.empty()) return true;
    ASSIGN_OR_RETURN(uint64_t passing, TableRows(probe, sql::JoinAnd(relations_[probe].pushed)));
    return sent <= passing;
  }

  // Written-order joins (outer, semi, anti): on the workers when the first relation is a table
  // and every join is INNER, LEFT, LEFT SEMI or LEFT ANTI of one relation on equalities with the
  // first one (ON or USING), without join_use_nulls: each relation is one build, joined in the
  // written order. Otherwise nullopt.
  absl::StatusOr<std::optional<MaterializedFrom>> TryBroadcastInOrder() {
    if (context_.join_mode == "coordinator" || context_.join_use_nulls) return std::nullopt;
    const Relation& probe = relations_[0];
    if (probe.prematerialized || probe.ref->is_function || probe.ref->subquery) return std::nullopt;
    BroadcastSource broadcast;
    for (size_t j = 0; j < select_.joins.size(); ++j) {
      const sql::JoinClause& join = select_.joins[j];
      if (join.comma) return std::nullopt;
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
      } else {
        return std::nullopt;
      }
      const Relation& right = relations_[j + 1];
      for (const auto& [r, column] : using_pairs_[j]) {
        if (r != 0) return std::nullopt;
        build.keys.emplace_back(sql::MakeColumn(probe.qualifier, column, join.position),
                                sql::MakeColumn(right.qualifier, column, join.position));
      }
      for (const ExprPtr& c : on_[j]) {
        std::optional<std::pair<ExprPtr, ExprPtr>> key = ProbeKey(*c, 0, {j + 1});
        if (!key) return std::nullopt;  // a condition other than an equality with the probe
        build.keys.push_back(*std::move(key));
      }
      if (build.keys.empty()) return std::nullopt;
      for (const auto& [probe_key, build_key] : build.keys) {
        const TypeId a = ColumnType(0, probe_key->name);
        const TypeId b = ColumnType(j + 1, build_key->name);
        if (!core::KeysComparable(a, b)) return std::nullopt;  // the coordinator reports it
      }
      broadcast.builds.push_back(std::move(build));
    }
    ASSIGN_OR_RETURN(uint64_t probe_rows, TableRows(0));
    uint64_t build_rows = 0;
    for (size_t r = 1; r < relations_.size(); ++r) {
      RETURN_IF_ERROR(ReadRelation(r));
      build_rows += relations_[r].data.block.rows();
    }
    ASSIGN_OR_RETURN(bool worth, WorthBroadcasting(0, probe_rows, build_rows));
    if (!worth) return std::nullopt;
    for (size_t j = 0; j < broadcast.builds.size(); ++j) {
      BroadcastSource::Build& build = broadcast.builds[j];
      build.table = Output(FromRelation(j + 1, relations_[j + 1]), &build.relations);
    }
    return std::optional<MaterializedFrom>(Broadcasting(std::move(broadcast), 0));
  }

  // The broadcast plan with relation `probe` read on the workers, and the SELECT left over.
  MaterializedFrom Broadcasting(BroadcastSource broadcast, size_t probe) const {
    const Relation& relation = relations_[probe];
    broadcast.probe = *relation.ref;
    broadcast.probe_qualifier = relation.qualifier;
    broadcast.probe_relation = probe;
    broadcast.probe_hidden.assign(relation.hidden.begin(), relation.hidden.end());
    broadcast.probe_filter = sql::JoinAnd(relation.pushed);
    MaterializedFrom out;
    out.broadcast = std::move(broadcast);
    out.rest = select_;
    out.rest.from.reset();
    out.rest.joins.clear();
    out.rest.where = sql::JoinAnd(remaining_);
    return out;
  }

  // Plans the joins on the workers (file comment, "Broadcast joins"), or returns nullopt to join
  // on the coordinator.
  absl::StatusOr<std::optional<MaterializedFrom>> TryBroadcast() {
    if (context_.join_mode == "coordinator") return std::nullopt;
    std::optional<size_t> probe;
    uint64_t probe_rows = 0;
    for (size_t r = 0; r < relations_.size(); ++r) {
      const sql::TableRef& ref = *relations_[r].ref;
      if (relations_[r].prematerialized || ref.is_function || ref.subquery) continue;
      ASSIGN_OR_RETURN(uint64_t rows, TableRows(r));
      if (!probe || rows > probe_rows) {
        probe = r;
        probe_rows = rows;
      }
    }
    if (!probe) return std::nullopt;
    std::vector<std::set<size_t>> components = Components(*probe);
    if (components.empty()) return std::nullopt;  // a cross join: on the coordinator
    for (size_t r = 0; r < relations_.size(); ++r) {
      if (r != *probe) RETURN_IF_ERROR(ReadRelation(r));
    }
    // Joining the groups takes their keys out of remaining_: put them back if the joins end up
    // on the coordinator after all.
    const std::vector<ExprPtr> conjuncts = remaining_;
    std::vector<Joined> builds;
    uint64_t build_rows = 0;
    for (const std::set<size_t>& members : components) {
      ASSIGN_OR_RETURN(Joined joined, JoinGreedy(members));
      build_rows += joined.block.rows();
      builds.push_back(std::move(joined));
    }
    // auto: sending the builds to every worker must cost less than gathering the probe's rows
    // that pass its own filter (counted, as the filter may keep few of them).
    ASSIGN_OR_RETURN(bool worth, WorthBroadcasting(*probe, probe_rows, build_rows));
    if (!worth) {
      remaining_ = conjuncts;
      return std::nullopt;
    }

    BroadcastSource broadcast;
    for (size_t g = 0; g < components.size(); ++g) {
      const std::set<size_t>& members = components[g];
      BroadcastSource::Build build;
      build.table = Output(std::move(builds[g]), &build.relations);
      for (auto it = remaining_.begin(); it != remaining_.end();) {
        std::optional<std::pair<ExprPtr, ExprPtr>> key = ProbeKey(**it, *probe, members);
        if (!key) {
          ++it;
          continue;
        }
        const TypeId a = ColumnType(*probe, key->first->name);
        const size_t member = Candidates(*key->second, relations_)[0];
        const TypeId b = ColumnType(member, key->second->name);
        if (!core::KeysComparable(a, b)) {
          return core::Error(ErrorCode::kNoCommonType,
                             "JOIN key types " + std::string(core::TypeName(a)) + " and " +
                                 std::string(core::TypeName(b)) + " cannot be compared (column " +
                                 key->first->name + " and " + key->second->name + ")");
        }
        build.keys.push_back(*std::move(key));
        it = remaining_.erase(it);
      }
      broadcast.builds.push_back(std::move(build));
    }
    return std::optional<MaterializedFrom>(Broadcasting(std::move(broadcast), *probe));
  }

  JoinSpec Spec(JoinKind kind, JoinStrictness strictness, const std::vector<KeyPair>& keys) const {
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
  std::vector<KeyPair> TakeKeys(std::vector<ExprPtr>* pool, const Joined& left, size_t r,
                                const Joined& right) {
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

  std::vector<KeyPair> UsingKeys(size_t j, const Joined& left, const Joined& right,
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
  void UsingAsEqualities() {
    for (size_t j = 0; j < select_.joins.size(); ++j) {
      for (const auto& [r, column] : using_pairs_[j]) {
        const size_t position = select_.joins[j].position;
        remaining_.push_back(
            sql::MakeCall("equals", {sql::MakeColumn(relations_[r].qualifier, column, position),
                                     sql::MakeColumn(relations_[j + 1].qualifier, column, position)}));
      }
    }
  }

  // Joins the (read) relations `members` by the greedy order of the file comment.
  absl::StatusOr<Joined> JoinGreedy(const std::set<size_t>& members) {
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
      for (size_t r : pending) {
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

  absl::StatusOr<Joined> JoinInOrder() {
    Joined joined = FromRelation(0, relations_[0]);
    for (size_t j = 0; j < select_.joins.size(); ++j) {
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
                               "right side alone are supported, at position " +
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
  LocalTable Output(Joined joined, std::vector<size_t>* relations = nullptr) {
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

  const sql::SelectStatement& select_;
  const FromContext& context_;
  uint64_t max_rows_ = 0;
  bool ordered_ = false;
  std::vector<Relation> relations_;
  std::vector<ExprPtr> remaining_;
  std::vector<std::vector<ExprPtr>> on_;  // per join: ON conditions not pushed down
  std::vector<std::vector<std::pair<size_t, std::string>>> using_pairs_;  // per join
};

}  // namespace

bool NeedsMaterializedFrom(const sql::SelectStatement& select) {
  return select.from && (select.from->subquery || !select.joins.empty());
}

absl::StatusOr<MaterializedFrom> MaterializeFrom(const sql::SelectStatement& select,
                                                 const FromContext& context) {
  if (select.joins.empty()) {
    MaterializedFrom out;
    ASSIGN_OR_RETURN(out.table, context.run(*select.from->subquery));
    out.rest = select;
    out.rest.from.reset();
    return out;
  }
  return FromMaterializer(select, context).Run();
}

}  // namespace granite::coordinator
