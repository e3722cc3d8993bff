// FromMaterializer::DropKeyOnlyRelations (from_materializer.h): a table joined only for its key.
//
// `SELECT ... FROM customer c, orders o, lineitem l WHERE c.segment = 'X' AND c.custkey =
// o.custkey AND l.orderkey = o.orderkey ...` uses customer for nothing but the equality: once
// ReduceByJoinKeys has read the filtered customers' keys into `o.custkey IN (...)` on orders,
// and those keys were unique (each passing order meets exactly one customer), joining the two
// gives orders' rows back. The customers are then neither read nor joined (a hash join of 300k
// customers against 1.5M orders on the coordinator at TPC-H SF 10, before orders go to the
// workers).
//
// The largest table's probe sets (SetProbeSets: `l.partkey IN (...)` of the parts whose name
// matches, added where the workers scan lineitem) stand for such a join the same way, as long
// as the plan scans that table on the workers: a plan joining on the coordinator reads it
// without them, so the joins they stood for are restored first (RestoreProbeSetDrops).
#include <algorithm>

#include "absl/strings/ascii.h"
#include "coordinator/exec/from_materializer.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"

namespace granite::coordinator::from_internal {
namespace {

// Whether `e` takes every column of the relations it reads: a star, except count(*)'s.
bool NamesEveryColumn(const Expr& e) {
  if (e.kind == ExprKind::kStar) return true;
  if (e.kind == ExprKind::kFunction && absl::AsciiStrToLower(e.name) == "count" &&
      e.args.size() == 1 && e.args[0]->kind == ExprKind::kStar) {
    return false;
  }
  return std::any_of(e.args.begin(), e.args.end(),
                     [](const ExprPtr& arg) { return NamesEveryColumn(*arg); });
}

}  // namespace

void FromMaterializer::DropKeyOnlyRelations() {
  if (ordered_) return;
  // Rounds until none is dropped: a dropped table leaves its partner joined by one link fewer
  // (region dropped, the nation it filtered has only its customers' link left, then the
  // customers only their orders').
  while (DropKeyOnlyRound()) {
  }
}

bool FromMaterializer::DropKeyOnlyRound() {
  bool dropped = false;
  for (size_t s = 0; s < relations_.size(); ++s) {
    if (!PlainTable(s) || eliminated_.count(s) || relations_[s].pushed.empty()) continue;
    // A table whose probe sets stand for dropped joins stays: they act only on its scan.
    const bool holds_drops =
        std::any_of(dropped_by_probe_sets_.begin(), dropped_by_probe_sets_.end(),
                    [s](const ProbeSetDrop& drop) { return drop.r == s; });
    if (holds_drops) continue;
    // The one conjunct that names s, an equality r.a = s.b with r another relation.
    std::optional<size_t> link;
    bool other_use = false;
    for (size_t i = 0; i < remaining_.size(); ++i) {
      if (sql::ContainsSubquery(*remaining_[i])) other_use = true;
      if (!UsesOf(*remaining_[i], relations_).relations.count(s)) continue;
      if (link) other_use = true;
      link = i;
    }
    if (!link || other_use) continue;
    std::optional<std::pair<size_t, size_t>> pair = EqualityRelations(*remaining_[*link]);
    if (!pair) continue;
    const int s_side = pair->first == s ? 0 : 1;
    const size_t r = s_side == 0 ? pair->second : pair->first;
    const std::string& s_key = remaining_[*link]->args[s_side]->name;
    const std::string& r_key = remaining_[*link]->args[1 - s_side]->name;
    // r holds only the keys of s's rows under s's filter as it stands, each met once.
    const std::string s_filter = sql::ColumnName(*sql::JoinAnd(relations_[s].pushed));
    auto covers = [&](const std::vector<Relation::KeySetFrom>& sets) {
      return std::any_of(sets.begin(), sets.end(), [&](const Relation::KeySetFrom& set) {
        return set.s == s && set.unique && set.r_key == r_key && set.s_key == s_key &&
               set.filter == s_filter;
      });
    };
    const bool by_pushed = covers(relations_[r].key_sets_from);
    if ((!by_pushed && !covers(relations_[r].probe_sets_from)) || UsedOutsideConjuncts(s)) {
      continue;
    }
    eliminated_.insert(s);
    std::string note = "Join of " + relations_[s].qualifier + ": only its unique keys, already a " +
                       "set on " + relations_[r].qualifier + "; not read";
    if (!by_pushed) dropped_by_probe_sets_.push_back({s, r, remaining_[*link], note});
    remaining_.erase(remaining_.begin() + static_cast<std::ptrdiff_t>(*link));
    notes_.push_back(std::move(note));
    dropped = true;
  }
  return dropped;
}

void FromMaterializer::RestoreProbeSetDrops() {
  for (ProbeSetDrop& drop : dropped_by_probe_sets_) {
    eliminated_.erase(drop.s);
    remaining_.push_back(std::move(drop.conjunct));
    notes_.erase(std::find(notes_.begin(), notes_.end(), drop.note));
  }
  dropped_by_probe_sets_.clear();
}

bool FromMaterializer::UsedOutsideConjuncts(size_t s) const {
  std::vector<const Expr*> uses;
  for (const ExprPtr& item : select_.select) uses.push_back(item.get());
  for (const ExprPtr& key : select_.group_by) uses.push_back(key.get());
  for (const sql::OrderItem& order : select_.order_by) uses.push_back(order.expr.get());
  for (const sql::WithItem& with : select_.with) uses.push_back(with.expr.get());
  uses.push_back(select_.having.get());
  for (const ExprPtr& key : select_.limit_by) uses.push_back(key.get());
  for (const Expr* e : uses) {
    if (e == nullptr) continue;
    if (NamesEveryColumn(*e) || sql::ContainsSubquery(*e)) return true;
    const Uses found = UsesOf(*e, relations_);
    if (found.relations.count(s) || found.ambiguous) return true;
  }
  return false;
}

}  // namespace granite::coordinator::from_internal
