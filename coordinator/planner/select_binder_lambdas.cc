// SelectBinder's lambdas: f(x -> body, arr, ...) for the higher-order functions of the registry
// (core/functions/higher_order_functions.cc). The arrays are bound first, so each parameter takes
// its array's element type; the body is then bound in the caller's mode (row level or after
// aggregation) with the parameters in scope, shadowing columns and aliases of the same name.
// The plan gets f(lambda($s, ..., body), arr, ...) (core/plan/expr.h) and the registry resolves
// f with the lambda as Array(body's type).
#include <string>

#include "absl/strings/str_cat.h"
#include "coordinator/planner/select_binder.h"
#include "coordinator/sql/parser.h"
#include "core/absl_compat.h"
#include "core/functions/array_columns.h"
#include "core/functions/expr_builder.h"
#include "core/functions/function_registry.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using core::ErrorCode;
using core::TypeId;
using sql::Expr;

// "x -> plus(x, 1)", "(x, y) -> y": a lambda as error messages show it.
std::string LambdaText(const Expr& lambda) {
  std::string names;
  const std::vector<sql::ExprPtr>& parameters = lambda.args[0]->args;
  for (size_t i = 0; i < parameters.size(); ++i) {
    names += (i > 0 ? ", " : "") + parameters[i]->name;
  }
  if (parameters.size() != 1) names = "(" + names + ")";
  return names + " -> " + sql::ColumnName(*lambda.args[1]);
}

// "Function((?, ?) -> ?)": ClickHouse's spelling of a lambda's type before binding.
std::string LambdaTypeText(size_t parameters) {
  std::string text;
  for (size_t i = 0; i < parameters; ++i) text += i > 0 ? ", ?" : "?";
  if (parameters != 1) text = "(" + text + ")";
  return "Function(" + text + " -> ?)";
}

}  // namespace

std::optional<core::plan::Expr> SelectBinder::LambdaParameterOf(const Expr& e) const {
  if (!e.qualifier.empty()) return std::nullopt;
  for (size_t s = lambda_scopes_.size(); s-- > 0;) {
    const LambdaScope& scope = lambda_scopes_[s];
    for (size_t i = 0; i < scope.names.size(); ++i) {
      if (scope.names[i] == e.name) return scope.parameters[i];
    }
  }
  return std::nullopt;
}

absl::Status SelectBinder::MisplacedLambda(const Expr& lambda, const Expr* call) {
  if (call == nullptr) {
    return ErrorAt(ErrorCode::kBadArguments,
                   "Lambda " + LambdaText(lambda) + " is not allowed in expression context",
                   lambda.position);
  }
  absl::Status takes = core::CheckTakesLambda(call->name);
  if (!takes.ok()) {
    return ErrorAt(core::CodeOf(takes), std::string(takes.message()), call->position);
  }
  return ErrorAt(ErrorCode::kIllegalTypeOfArgument,
                 "Lambda " + LambdaText(lambda) + " must be the first argument of function " +
                     call->name,
                 lambda.position);
}

absl::StatusOr<core::plan::Expr> SelectBinder::BindHigherOrderCall(const Expr& e,
                                                                   ArgBinder bind_arg) {
  const Expr& lambda = *e.args[0];
  absl::Status takes = core::CheckTakesLambda(e.name);
  if (!takes.ok()) return ErrorAt(core::CodeOf(takes), std::string(takes.message()), e.position);
  // The placeholder stands for the lambda while the arrays are checked.
  std::vector<core::ArgumentInfo> infos(1, core::ArgumentInfo{TypeId::kUInt8, std::nullopt});
  infos[0].lambda = true;
  std::vector<core::plan::Expr> args(1);
  for (size_t i = 1; i < e.args.size(); ++i) {
    const Expr& arg = *e.args[i];
    if (arg.kind == sql::ExprKind::kFunction && arg.name == "lambda") {
      return MisplacedLambda(arg, &e);
    }
    ASSIGN_OR_RETURN(core::plan::Expr bound, bind_arg(arg));
    infos.push_back({bound.type, std::nullopt});
    args.push_back(std::move(bound));
  }
  absl::Status arrays = core::RequireLambdaArrays(e.name, infos);
  if (!arrays.ok()) return ErrorAt(core::CodeOf(arrays), std::string(arrays.message()), e.position);
  const std::vector<sql::ExprPtr>& names = lambda.args[0]->args;
  if (names.size() != args.size() - 1) {
    return ErrorAt(ErrorCode::kIllegalTypeOfArgument,
                   absl::StrCat("First argument for this overload of ", e.name,
                                " must be a function with ", args.size() - 1,
                                " arguments, found ", LambdaTypeText(names.size()), " instead"),
                   lambda.position);
  }

  uint32_t slot = 0;
  for (const LambdaScope& scope : lambda_scopes_) slot += scope.names.size();
  LambdaScope scope;
  std::vector<core::plan::Expr> lambda_args;
  for (size_t i = 0; i < names.size(); ++i) {
    core::plan::Expr parameter =
        core::LambdaParameter(slot + static_cast<uint32_t>(i), core::ArrayElementOf(args[i + 1].type));
    scope.names.push_back(names[i]->name);
    scope.parameters.push_back(parameter);
    lambda_args.push_back(std::move(parameter));
  }
  lambda_scopes_.push_back(std::move(scope));
  absl::StatusOr<core::plan::Expr> body = bind_arg(*lambda.args[1]);
  lambda_scopes_.pop_back();
  if (!body.ok()) return body.status();
  const TypeId body_type = body->type;
  lambda_args.push_back(*std::move(body));
  args[0] = core::Call("lambda", body_type, std::move(lambda_args));

  if (core::ArrayDepthOf(body_type) >= core::kMaxArrayDepth) {
    return ErrorAt(ErrorCode::kArgumentOutOfBound,
                   absl::StrCat("Arrays nest at most ", core::kMaxArrayDepth, " deep"), e.position);
  }
  infos[0].type = core::MakeArray(body_type);
  absl::StatusOr<core::ResolvedFunction> resolved = core::ResolveFunction(e.name, infos);
  if (!resolved.ok()) {
    return ErrorAt(core::CodeOf(resolved.status()), std::string(resolved.status().message()),
                   e.position);
  }
  return core::Call(resolved->name, resolved->result_type, std::move(args));
}

}  // namespace granite::coordinator
