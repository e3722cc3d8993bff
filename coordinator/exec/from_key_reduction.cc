// FromMaterializer::ReduceByJoinKeys (from_materializer.h): a table joined (inner) on `r.a = s.b`
// with a table s whose own filter keeps few rows can keep only the rows whose `a` is one of
// those rows' `b` values. `SELECT ... FROM part p, partsupp ps, lineitem l WHERE p.name LIKE
// '%green%' AND ps.partkey = p.partkey AND l.partkey = p.partkey ...`: partsupp is read with
// `ps.partkey IN (<the green parts' keys>)` (800k -> ~43k rows at TPC-H SF 1), so its build
// is that much smaller wherever the join runs. The largest table is left as it is: it stays on
// the workers, where its join with s does the same filtering.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/exec/from_materializer.h"
#include "coordinator/exec/subqueries.h"
#include "coordinator/sql/ast_build.h"
#include "core/status_macros.h"

namespace granite::coordinator::from_internal {
namespace {

// The most rows s's filter may keep: its keys become a constant IN set of r's read.
constexpr uint64_t kMaxReducingRows = 100'000;

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

}  // namespace

absl::Status FromMaterializer::ReduceByJoinKeys() {
  if (ordered_ || relations_.size() < 2) return absl::OkStatus();
  // Row counts from the parts' statistics; the largest table is the one left alone.
  std::vector<uint64_t> rows(relations_.size(), 0);
  std::optional<size_t> largest;
  for (size_t r = 0; r < relations_.size(); ++r) {
    if (!PlainTable(r)) continue;
    ASSIGN_OR_RETURN(rows[r], TableRows(r));
    if (!largest || rows[r] > rows[*largest]) largest = r;
  }
  if (!largest) return absl::OkStatus();
  // Each filtered table's filter as it was written: reductions do not feed each other.
  std::vector<std::vector<ExprPtr>> written(relations_.size());
  for (size_t r = 0; r < relations_.size(); ++r) written[r] = relations_[r].pushed;
  std::vector<std::optional<uint64_t>> kept(relations_.size());
  for (const ExprPtr& c : std::vector<ExprPtr>(remaining_)) {
    std::optional<std::pair<size_t, size_t>> pair = EqualityRelations(*c);
    if (!pair) continue;
    for (int side = 0; side < 2; ++side) {
      const size_t r = side == 0 ? pair->first : pair->second;
      const size_t s = side == 0 ? pair->second : pair->first;
      const Expr& r_key = *c->args[side];
      const Expr& s_key = *c->args[1 - side];
      if (r == *largest || !PlainTable(r) || !PlainTable(s) || written[s].empty()) continue;
      const TypeId a = core::RemoveNullable(ColumnType(r, r_key.name));
      const TypeId b = core::RemoveNullable(ColumnType(s, s_key.name));
      if (a == TypeId::kNothing || core::IsArray(a)) continue;
      if (a != b && !(PlainInteger(a) && PlainInteger(b))) continue;
      if (!kept[s]) {
        ASSIGN_OR_RETURN(uint64_t passing, TableRows(s, sql::JoinAnd(written[s])));
        kept[s] = passing;
      }
      if (*kept[s] > kMaxReducingRows || *kept[s] * 4 > rows[s] || rows[r] < 2 * *kept[s]) {
        continue;
      }
      // r.a IN (SELECT s.b FROM s WHERE <s's filter>), run now into a constant set.
      // Distinct and sorted: the set's text in EXPLAIN is the same on every run.
      auto subquery = std::make_shared<sql::SelectStatement>();
      subquery->distinct = true;
      subquery->select.push_back(sql::MakeColumn(s_key.qualifier, s_key.name));
      subquery->order_by.push_back(sql::OrderItem{sql::MakeColumn(s_key.qualifier, s_key.name)});
      subquery->from = *relations_[s].ref;
      subquery->where = sql::JoinAnd(written[s]);
      auto set = std::make_shared<Expr>();
      set->kind = ExprKind::kSubquery;
      set->subquery = std::move(subquery);
      sql::SelectStatement holder;
      holder.where = sql::MakeCall("in", {sql::MakeColumn(r_key.qualifier, r_key.name), set});
      ASSIGN_OR_RETURN(sql::SelectStatement constant, ReplaceSubqueries(holder, context_.run));
      relations_[r].pushed.push_back(constant.where);
    }
  }
  return absl::OkStatus();
}

}  // namespace granite::coordinator::from_internal
