// Text forms of a typed plan for EXPLAIN and for keys derived from a plan's shape:
//   ExprText:      plus(a, 1)   (columns by name when names are given, else #index; a tuple of
//                  over 8 values shows the first 8 and its size)
//   FragmentText:  one line per operator, indented by `indent`:
//                    Scan table hits columns [a, b]
//                    Filter greater(a, 5)
//                    Aggregate keys [b] calls [count()] (partial by bucket)
//                    TopN order [#0 DESC] limit 10
#pragma once

#include <string>
#include <vector>

#include "core/plan/expr.h"
#include "core/plan/fragment.h"

namespace granite::core::plan {

// Returns `expr` as text; a column is names[index] when `names` has that index, else #index.
std::string ExprText(const Expr& expr, const std::vector<std::string>& names = {});

// Returns `exprs` as text, comma-separated (columns named as in ExprText).
std::string ExprListText(const std::vector<Expr>& exprs,
                         const std::vector<std::string>& names = {});

// Returns the fragment's operators, one per line, each line starting with `indent`. Column
// references of the filter and the keys, arguments and projections are named after the scan's
// columns; the local cut's and the top-N's refer to output positions (#i).
std::vector<std::string> FragmentText(const Fragment& fragment, const std::string& indent = "");

}  // namespace granite::core::plan
