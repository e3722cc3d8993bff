#include "coordinator/planner/tuple_in.h"

#include <string>
#include <utility>
#include <vector>

#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"

namespace granite::coordinator {
namespace {

using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;

bool IsTuple(const Expr& e) { return e.kind == ExprKind::kFunction && e.name == "tuple" && !e.over; }

bool IsNegated(const std::string& name) { return name == "notIn" || name == "globalNotIn"; }

}  // namespace

bool IsTupleOfSeveral(const Expr& e) { return IsTuple(e) && e.args.size() >= 2; }

bool IsTupleIn(const Expr& e) {
  const bool in = e.name == "in" || e.name == "notIn" || e.name == "globalIn" ||
                  e.name == "globalNotIn";
  return e.kind == ExprKind::kFunction && in && e.args.size() == 2 &&
         IsTupleOfSeveral(*e.args[0]);
}

absl::StatusOr<ExprPtr> ExpandTupleIn(const Expr& e, bool null_as_unequal) {
  const std::vector<ExprPtr>& left = e.args[0]->args;
  const Expr& right = *e.args[1];
  // The elements: a list of tuples, or the right side itself as one tuple.
  std::vector<const Expr*> elements;
  bool all_tuples = IsTuple(right);
  if (IsTuple(right)) {
    for (const ExprPtr& element : right.args) all_tuples = all_tuples && IsTuple(*element);
  }
  if (all_tuples) {
    for (const ExprPtr& element : right.args) elements.push_back(element.get());
  } else {
    elements.push_back(&right);
  }
  std::vector<ExprPtr> disjuncts;
  for (const Expr* element : elements) {
    const size_t arity = IsTuple(*element) ? element->args.size() : 1;
    if (arity != left.size()) {
      return core::Error(core::ErrorCode::kIncorrectElementOfSet,
                         "Incorrect size of tuple in set: " + std::to_string(arity) +
                             " instead of " + std::to_string(left.size()) + " in " +
                             sql::ColumnName(*element) + " (at position " +
                             std::to_string(element->position + 1) + ")");
    }
    std::vector<ExprPtr> conjuncts;
    for (size_t i = 0; i < left.size(); ++i) {
      conjuncts.push_back(sql::MakeCall("equals", {left[i], element->args[i]}));
    }
    disjuncts.push_back(sql::JoinAnd(std::move(conjuncts)));
  }
  if (disjuncts.empty()) {
    return core::Error(core::ErrorCode::kIncorrectElementOfSet,
                       "Incorrect size of tuple in set: 0 instead of " +
                           std::to_string(left.size()) + " (an empty list, at position " +
                           std::to_string(right.position + 1) + ")");
  }
  ExprPtr any = disjuncts.size() == 1 ? std::move(disjuncts[0])
                                      : sql::MakeCall("or", std::move(disjuncts));
  if (null_as_unequal) any = sql::MakeCall("ifNull", {std::move(any), sql::MakeFlag(false, e.position)});
  ExprPtr result = IsNegated(e.name) ? sql::MakeCall("not", {std::move(any)}) : std::move(any);
  result->position = e.position;
  result->alias = e.alias;
  return result;
}

}  // namespace granite::coordinator
