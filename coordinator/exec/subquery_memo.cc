#include "coordinator/exec/subquery_memo.h"

#include <algorithm>
#include <cctype>
#include <memory>
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

// The statement's LIMIT when a kept result of it stands for the same statement under another
// LIMIT (or none): a plain SELECT (no set operator, OFFSET or WITH TOTALS) whose LIMIT comes
// last. nullopt for no LIMIT; `*plain` false when the statement is not of that kind.
std::optional<uint64_t> PlainLimit(const sql::SelectStatement& select, bool* plain) {
  *plain = select.set_operands.empty() && !select.with_totals && select.offset.value_or(0) == 0;
  return select.limit;
}

// Whether the rows kept for `kept` (`rows` of them) answer `wanted`, the same statement but for
// its LIMIT: the kept run was not cut by its LIMIT (fewer rows than it, or none), so its rows
// are the whole result, in the same order; `wanted` takes the first of them up to its own LIMIT.
// The planning shape this serves: a key read capped at a threshold ("more than n keys?") and,
// when the answer was no, the same read again without the cap to build the join.
bool AnswersUnderOtherLimit(const sql::SelectStatement& kept, size_t rows,
                            const sql::SelectStatement& wanted) {
  bool kept_plain = false, wanted_plain = false;
  const std::optional<uint64_t> kept_limit = PlainLimit(kept, &kept_plain);
  PlainLimit(wanted, &wanted_plain);
  if (!kept_plain || !wanted_plain || kept.limit == wanted.limit) return false;
  if (kept_limit && rows >= *kept_limit) return false;
  sql::SelectStatement a = kept, b = wanted;
  a.limit.reset();
  b.limit.reset();
  return sql::SameSelect(a, b);
}

// The first `limit` rows of `table` (all of them without a limit or when it has fewer).
LocalTable FirstRows(const LocalTable& table, std::optional<uint64_t> limit) {
  if (!limit || *limit >= table.block.rows()) return table;
  LocalTable out = table;
  for (core::ColumnPtr& column : out.block.columns) {
    column = std::make_shared<const core::Column>(column->Slice(0, *limit));
  }
  out.block.rows_without_columns = std::min<size_t>(out.block.rows_without_columns, *limit);
  return out;
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
  for (const Entry& entry : entries_) {
    if (entry.ctes == ctes &&
        AnswersUnderOtherLimit(entry.select, entry.table.block.rows(), select)) {
      ++hits_;
      return FirstRows(entry.table, select.limit);
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
