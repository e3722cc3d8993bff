#include "coordinator/exec/subquery_memo.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "coordinator/sql/ast_equal.h"

namespace granite::coordinator {
namespace {

std::string Lower(std::string_view name) {
  std::string out(name);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Functions whose value changes from one call (or row, or block) to the next.
bool Varying(std::string_view name) {
  const std::string lower = Lower(name);
  for (std::string_view prefix : {"rand", "canonicalrand", "generate", "fuzzbits",
                                  "rownumberin", "blocknumber", "blocksize"}) {
    if (lower.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

bool Shareable(const sql::ExprPtr& expr);
bool Shareable(const sql::SelectPtr& select) {
  return select == nullptr || SubqueryMemo::Shareable(*select);
}

bool Shareable(const std::vector<sql::ExprPtr>& exprs) {
  return std::all_of(exprs.begin(), exprs.end(),
                     [](const sql::ExprPtr& e) { return Shareable(e); });
}

bool Shareable(const sql::WindowSpec& window) {
  if (!Shareable(window.partition_by)) return false;
  return std::all_of(window.order_by.begin(), window.order_by.end(),
                     [](const sql::OrderItem& item) { return Shareable(item.expr); });
}

bool Shareable(const sql::ExprPtr& expr) {
  if (expr == nullptr) return true;
  if (expr->kind == sql::ExprKind::kFunction && Varying(expr->name)) return false;
  if (expr->over && !Shareable(*expr->over)) return false;
  return Shareable(expr->args) && Shareable(expr->subquery);
}

bool Shareable(const sql::TableRef& ref) {
  if (ref.is_function || Lower(ref.database) == "system") return false;
  return Shareable(ref.subquery);
}

size_t Bytes(const LocalTable& table) {
  size_t bytes = 0;
  for (const core::ColumnPtr& column : table.block.columns) bytes += column->ByteSize();
  return bytes;
}

}  // namespace

bool SubqueryMemo::Shareable(const sql::SelectStatement& select) {
  if (select.from && !coordinator::Shareable(*select.from)) return false;
  for (const sql::JoinClause& join : select.joins) {
    if (!coordinator::Shareable(join.table) || !coordinator::Shareable(join.on)) return false;
  }
  for (const sql::WithItem& with : select.with) {
    if (!coordinator::Shareable(with.subquery) || !coordinator::Shareable(with.expr)) return false;
  }
  for (const sql::ArrayJoinClause& array_join : select.array_joins) {
    if (!coordinator::Shareable(array_join.arrays)) return false;
  }
  for (const auto& [name, window] : select.windows) {
    if (!coordinator::Shareable(window)) return false;
  }
  for (const sql::OrderItem& item : select.order_by) {
    if (!coordinator::Shareable(item.expr)) return false;
  }
  for (const auto& set : select.grouping_sets) {
    if (!coordinator::Shareable(set)) return false;
  }
  for (const auto& [op, operand] : select.set_operands) {
    if (!coordinator::Shareable(operand)) return false;
  }
  return coordinator::Shareable(select.select) && coordinator::Shareable(select.where) &&
         coordinator::Shareable(select.group_by) && coordinator::Shareable(select.having) &&
         coordinator::Shareable(select.qualify) && coordinator::Shareable(select.limit_by);
}

std::optional<LocalTable> SubqueryMemo::Find(const sql::SelectStatement& select,
                                             const Ctes& ctes) const {
  core::MutexLock lock(mu_);
  for (const Entry& entry : entries_) {
    if (entry.ctes == ctes && sql::SameSelect(entry.select, select)) {
      ++hits_;
      return entry.table;
    }
  }
  return std::nullopt;
}

void SubqueryMemo::Add(const sql::SelectStatement& select, Ctes ctes, const LocalTable& table) {
  const size_t bytes = Bytes(table);
  core::MutexLock lock(mu_);
  if (bytes > kMaxResultBytes || bytes_ + bytes > kMaxBytes) return;
  bytes_ += bytes;
  entries_.push_back(Entry{select, std::move(ctes), table});
}

size_t SubqueryMemo::hits() const {
  core::MutexLock lock(mu_);
  return hits_;
}

}  // namespace granite::coordinator
