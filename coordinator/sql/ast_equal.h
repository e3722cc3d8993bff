// Structural equality of syntax trees (ast.h): two trees are the same when every field is,
// recursively, except the byte positions kept for error messages. The coordinator uses it to run
// identical subqueries of one statement once (exec/subquery_memo.h): a view or a CTE read in two
// places of a query parses into two equal trees.
#pragma once

#include "coordinator/sql/ast.h"

namespace granite::coordinator::sql {

// Both null, or both set and equal.
bool SameExpr(const ExprPtr& a, const ExprPtr& b);
bool SameSelect(const SelectPtr& a, const SelectPtr& b);

bool SameExpr(const Expr& a, const Expr& b);
bool SameSelect(const SelectStatement& a, const SelectStatement& b);

}  // namespace granite::coordinator::sql
