// SubqueryMemo: the results of the subqueries one statement ran, so that an identical subquery
// runs once. The shape it serves: a view or a CTE read in two places of one query (a grouped view
// joined to a table and, in the same query, compared with its own max()), which would otherwise
// scan and aggregate the same rows twice. Identical means the same syntax tree
// (sql/ast_equal.h) with the same CTEs in scope; a subquery that calls a function whose result
// changes from call to call (rand(), generateUUIDv4(), ...), reads a table function or a system
// table is never shared. Results are shared, not copied (columns are immutable once built).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/planner/binder.h"
#include "coordinator/sql/ast.h"
#include "core/mutex.h"

namespace granite::coordinator {

// Thread-safety: every method may be called from any thread.
class SubqueryMemo {
 public:
  // The CTE names a subquery can see and the trees they name (the innermost of each name),
  // compared by identity; held, so that no later tree takes a kept one's address.
  using Ctes = std::map<std::string, sql::SelectPtr>;

  // Results over this many bytes are not kept (per result, and in all).
  static constexpr size_t kMaxResultBytes = size_t{256} << 20;
  static constexpr size_t kMaxBytes = size_t{1} << 30;

  // Whether `select`'s result may stand for another run of it in the same statement.
  static bool Shareable(const sql::SelectStatement& select);

  // The result kept for a subquery identical to `select` under `ctes`, if any.
  std::optional<LocalTable> Find(const sql::SelectStatement& select, const Ctes& ctes) const;
  // Keeps `table` as `select`'s result under `ctes`, unless it is too large.
  // REQUIRES: Shareable(select).
  void Add(const sql::SelectStatement& select, Ctes ctes, const LocalTable& table);

  size_t hits() const;

 private:
  struct Entry {
    sql::SelectStatement select;  // shares its subtrees with the statement
    Ctes ctes;
    LocalTable table;
  };
  mutable core::Mutex mu_{"subquery_memo"};
  std::vector<Entry> entries_ GUARDED_BY(mu_);
  size_t bytes_ GUARDED_BY(mu_) = 0;
  mutable size_t hits_ GUARDED_BY(mu_) = 0;
};

}  // namespace granite::coordinator
