// SELECTs with window functions, QUALIFY or grouping sets (ROLLUP, CUBE, GROUPING SETS), split
// in two around the step one binder pass cannot take:
//
//   inner: FROM ... WHERE ... GROUP BY ... HAVING with the select items that need no window, plus
//          hidden columns for everything the rest needs (window arguments, PARTITION BY and
//          ORDER BY keys, the window-free parts of the other expressions);
//   windows: each window call computed over the inner result on the coordinator
//          (exec/window_functions.h), appended as a hidden column;
//   outer: the select items over that table, QUALIFY as its WHERE, DISTINCT, ORDER BY, LIMIT.
//
// With grouping sets the inner select runs once per set (ExpandGroupingSets) and the results are
// concatenated, as UNION ALL would. Hidden columns are named with the `__w_` prefix (IsSplitColumn)
// and left out of the outer `*`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// One key of a window's ORDER BY: an inner result column and its direction.
struct WindowOrderKey {
  std::string column;
  bool descending = false;
  bool nulls_first = false;  // NULLS FIRST; unset in SQL means NULLS LAST, as in ClickHouse
};

// One window function call over the inner result; every name is an inner result column.
struct WindowCall {
  std::string function;  // as written: row_number, sum, quantile(0.5), sumIf, lagInFrame, ...
  std::vector<std::string> args;
  std::vector<std::string> partition_by;
  std::vector<WindowOrderKey> order_by;
  std::optional<sql::WindowFrame> frame;  // unset: ClickHouse's default frame
  std::string display;                    // the call as ClickHouse names it
  std::string column;                     // the result column's name
};

struct SplitQuery {
  sql::SelectStatement inner;
  std::vector<WindowCall> windows;
  sql::SelectStatement outer;  // no FROM: it reads the inner result with the window columns
  // Inner result columns the outer `*` leaves out (besides IsSplitColumn ones): the aliased items.
  std::vector<std::string> hidden;
};

// True when `select` has a window call in its select list, ORDER BY or QUALIFY, a QUALIFY, or
// grouping sets.
bool NeedsSplit(const sql::SelectStatement& select);

// GROUP BY ALL and ORDER BY ALL spelled out: the select items without aggregate (or window)
// calls as keys, every select item (by its alias if it has one) as the order. Errors:
// NOT_IMPLEMENTED for ALL with `*` in the select list.
absl::StatusOr<sql::SelectStatement> ExpandAllKeys(const sql::SelectStatement& select);

// True for the columns the split adds (hidden from `*`).
bool IsSplitColumn(std::string_view name);

// Splits `select`. REQUIRES: NeedsSplit(select), no LIMIT BY (applied outside).
// Errors: ILLEGAL_AGGREGATION (184) for a window call in WHERE, GROUP BY, HAVING, ON, inside an
// aggregate or inside another window call; BAD_ARGUMENTS (36) for an unknown named window or a
// frame whose start follows its end.
absl::StatusOr<SplitQuery> SplitForWindows(const sql::SelectStatement& select);

// The inner select once per grouping set: GROUP BY the set's keys, the other keys replaced by
// their type's default value in the select list and HAVING, grouping(...) by its bit mask (1 for
// each argument the set leaves out). REQUIRES: inner.grouping_sets_written.
// Errors: TOO_MANY... (BAD_ARGUMENTS) past 4096 sets.
absl::StatusOr<std::vector<sql::SelectStatement>> ExpandGroupingSets(
    const sql::SelectStatement& inner);

}  // namespace granite::coordinator
