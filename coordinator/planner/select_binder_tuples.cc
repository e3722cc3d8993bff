// SelectBinder's tuples: comparisons of tuples, tupleElement and toTypeName of a tuple are bound
// as the element expressions they mean (planner/tuple_lowering.h); a tuple reached through a
// select-list alias (`(a, b) AS t ... WHERE t = (1, 2)`) counts as written.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/functions/expr_builder.h"
#include "core/tuple_type.h"
#include "coordinator/planner/select_binder.h"
#include "coordinator/planner/tuple_lowering.h"
#include "coordinator/sql/ast_build.h"
#include "core/status_macros.h"

namespace granite::coordinator {

using core::ErrorCode;
using sql::Expr;
using sql::ExprKind;

namespace {

// Aliases of aliases are followed this deep (a cycle is found by the binder itself).
constexpr int kMaxAliasHops = 16;

}  // namespace

const Expr* SelectBinder::TupleOf(const Expr& e) {
  const Expr* node = &e;
  for (int hop = 0; hop < kMaxAliasHops && node != nullptr; ++hop) {
    if (IsTupleCall(*node)) return node;
    if (node->kind != ExprKind::kIdentifier || LambdaParameterOf(*node)) return nullptr;
    node = AliasTarget(*node);
  }
  return nullptr;
}

bool SelectBinder::IsTupleOperation(const Expr& e) {
  if (e.kind != ExprKind::kFunction || e.over || e.args.empty()) return false;
  if (absl::EqualsIgnoreCase(e.name, "tupleElement") ||
      absl::EqualsIgnoreCase(e.name, "toTypeName")) {
    return TupleOf(*e.args[0]) != nullptr;
  }
  if (IsComparisonName(e.name) && e.args.size() == 2) {
    return TupleOf(*e.args[0]) != nullptr || TupleOf(*e.args[1]) != nullptr;
  }
  const Expr* map = TupleOf(*e.args[0]);
  return map != nullptr && LowerMapOperation(e, *map) != nullptr;
}

absl::StatusOr<core::plan::Expr> SelectBinder::BindTupleOperation(const Expr& e,
                                                                  ArgBinder bind_arg) {
  const Expr* tuple = e.args.empty() ? nullptr : TupleOf(*e.args[0]);
  if (absl::EqualsIgnoreCase(e.name, "tupleElement") && tuple != nullptr) {
    if (e.args.size() != 2 && e.args.size() != 3) {
      return ErrorAt(ErrorCode::kNumberOfArgumentsDoesntMatch,
                     "Function tupleElement takes 2 or 3 arguments", e.position);
    }
    ASSIGN_OR_RETURN(sql::ExprPtr element,
                     TupleElementOf(*tuple, *e.args[1],
                                    e.args.size() == 3 ? e.args[2] : nullptr, e.position));
    return bind_arg(*element);
  }
  if (absl::EqualsIgnoreCase(e.name, "toTypeName") && tuple != nullptr && e.args.size() == 1) {
    ASSIGN_OR_RETURN(core::TypeId type, BindTupleType(*tuple, bind_arg));
    return core::Lit(core::PrettyTypeName(type), core::TypeId::kString);
  }
  if (tuple != nullptr) {
    if (sql::ExprPtr lowered = LowerMapOperation(e, *tuple)) return bind_arg(*lowered);
  }
  if (IsComparisonName(e.name) && e.args.size() == 2) {
    const Expr* left = TupleOf(*e.args[0]);
    const Expr* right = TupleOf(*e.args[1]);
    if (left != nullptr && right != nullptr) {
      ASSIGN_OR_RETURN(sql::ExprPtr lowered,
                       LowerTupleComparison(e.name, *left, *right, e.position));
      return bind_arg(*lowered);
    }
    return ErrorAt(ErrorCode::kNotImplemented,
                   "Function " + e.name +
                       " compares a tuple only with another tuple written out (not with a "
                       "subquery or a column)",
                   e.position);
  }
  return ErrorAt(ErrorCode::kNotImplemented,
                 "A tuple or map value is supported in the select list, in comparisons with "
                 "another tuple, in tupleElement, toTypeName and IN, not as an argument of " +
                     (IsTupleCall(e) ? std::string("this expression") : e.name),
                 e.position);
}

absl::StatusOr<core::TypeId> SelectBinder::BindTupleType(const Expr& tuple, ArgBinder bind_arg) {
  std::vector<core::TypeId> elements;
  for (const sql::ExprPtr& arg : tuple.args) {
    if (const Expr* inner = TupleOf(*arg)) {
      ASSIGN_OR_RETURN(core::TypeId type, BindTupleType(*inner, bind_arg));
      elements.push_back(type);
      continue;
    }
    ASSIGN_OR_RETURN(core::plan::Expr bound, bind_arg(*arg));
    elements.push_back(TypeOf(bound));
  }
  if (IsMapCall(tuple) && core::IsArray(elements[0]) && core::IsArray(elements[1])) {
    return core::MakeMapType(core::ArrayElementOf(elements[0]), core::ArrayElementOf(elements[1]));
  }
  if (IsArrayZipCall(tuple)) {
    for (core::TypeId element : elements) {
      if (!core::IsArray(element)) {
        return ErrorAt(ErrorCode::kIllegalTypeOfArgument,
                       "Argument of function arrayZip must be an array, got " +
                           std::string(core::TypeName(element)),
                       tuple.position);
      }
    }
    return core::MakeArrayOfTuplesType(std::move(elements),
                                       tuple.element_names.size() == elements.size()
                                           ? tuple.element_names
                                           : std::vector<std::string>{});
  }
  return core::MakeTupleType(std::move(elements), tuple.element_names.size() == elements.size()
                                                      ? tuple.element_names
                                                      : std::vector<std::string>{});
}

}  // namespace granite::coordinator
