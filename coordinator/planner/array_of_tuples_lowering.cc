#include "coordinator/planner/array_of_tuples_lowering.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "coordinator/planner/tuple_lowering.h"
#include "coordinator/sql/ast_build.h"

namespace granite::coordinator {
namespace {

using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;

bool IsCall(const Expr& e, const char* name) {
  return e.kind == ExprKind::kFunction && !e.over && absl::EqualsIgnoreCase(e.name, name);
}

// `e` with lambda parameter `x` written as the tuple `params` (x__1, ..., x__n named as `names`)
// stands for: `x` is tuple(x__1, ...), `x.a` / `x.2` the parameter of that element.
ExprPtr SubstituteTupleParameter(const ExprPtr& e, const std::string& x,
                                 const std::vector<ExprPtr>& params,
                                 const std::vector<std::string>& names) {
  if (e == nullptr) return e;
  if (e->kind == ExprKind::kIdentifier && e->qualifier.empty() && e->name == x) {
    ExprPtr tuple = sql::MakeCall("tuple", params);
    tuple->element_names = names;
    tuple->position = e->position;
    return tuple;
  }
  if (e->kind == ExprKind::kIdentifier && e->qualifier == x) {
    for (size_t k = 0; k < params.size(); ++k) {
      if ((k < names.size() && names[k] == e->name) || std::to_string(k + 1) == e->name) {
        return params[k];
      }
    }
    return e;
  }
  if (e->kind != ExprKind::kFunction) return e;
  std::shared_ptr<Expr> copy;
  for (size_t i = 0; i < e->args.size(); ++i) {
    ExprPtr arg = SubstituteTupleParameter(e->args[i], x, params, names);
    if (arg == e->args[i]) continue;
    if (copy == nullptr) copy = std::make_shared<Expr>(*e);
    copy->args[i] = std::move(arg);
  }
  return copy != nullptr ? copy : e;
}

// Higher-order functions over one array of tuples: f(x -> body, arrayZip(a, b)) as f over the
// arrays with a parameter per element. arrayMap to a tuple, arrayFilter, arraySort,
// arrayReverseSort and arrayFirst / arrayLast (which return arrays of tuples or a tuple) run once
// per element array, each with that array first and the same predicate or key; the others
// (arrayExists, arrayCount, arraySum, ...) once over all the arrays. Null for other calls.
ExprPtr LowerArrayOfTuplesLambda(const Expr& node) {
  if (node.args.size() != 2 || !IsCall(*node.args[0], "lambda") || !IsArrayZipCall(*node.args[1])) {
    return nullptr;
  }
  const Expr& lambda = *node.args[0];
  if (lambda.args.size() != 2 || !IsCall(*lambda.args[0], "tuple") ||
      lambda.args[0]->args.size() != 1 || lambda.args[0]->args[0]->kind != ExprKind::kIdentifier) {
    return nullptr;
  }
  auto is = [&](const char* name) { return absl::EqualsIgnoreCase(node.name, name); };
  const bool per_array = is("arrayFilter") || is("arraySort") || is("arrayReverseSort");
  const bool per_element = is("arrayFirst") || is("arrayLast");
  const bool whole = is("arrayExists") || is("arrayAll") || is("arrayCount") || is("arraySum") ||
                     is("arrayMin") || is("arrayMax") || is("arrayAvg") ||
                     is("arrayFirstIndex") || is("arrayLastIndex") || is("arrayMap");
  if (!per_array && !per_element && !whole) return nullptr;
  const Expr& zip = *node.args[1];
  const std::string x = lambda.args[0]->args[0]->name;
  std::vector<ExprPtr> params;
  for (size_t k = 0; k < zip.args.size(); ++k) {
    params.push_back(sql::MakeColumn("", "__" + x + "_" + std::to_string(k + 1), lambda.position));
  }
  ExprPtr body = SubstituteTupleParameter(lambda.args[1], x, params, zip.element_names);
  // f((p_k, the others...) -> result, a_k, the other arrays...)
  auto call = [&](const std::string& name, size_t first, const ExprPtr& result) {
    std::vector<ExprPtr> order, arrays;
    order.push_back(params[first]);
    arrays.push_back(zip.args[first]);
    for (size_t k = 0; k < params.size(); ++k) {
      if (k == first) continue;
      order.push_back(params[k]);
      arrays.push_back(zip.args[k]);
    }
    std::vector<ExprPtr> args = {sql::MakeCall("lambda", {sql::MakeCall("tuple", order), result})};
    for (ExprPtr& array : arrays) args.push_back(std::move(array));
    return sql::MakeCall(name, std::move(args));
  };
  ExprPtr out;
  if (is("arrayMap") && IsTupleCall(*body) && !IsMapCall(*body) && !IsArrayZipCall(*body) &&
      !body->args.empty()) {
    std::vector<ExprPtr> arrays;
    for (const ExprPtr& element : body->args) arrays.push_back(call(node.name, 0, element));
    out = sql::MakeCall("arrayZip", std::move(arrays));
    out->element_names = body->element_names;
  } else if (per_array || per_element) {
    std::vector<ExprPtr> parts;
    for (size_t k = 0; k < params.size(); ++k) parts.push_back(call(node.name, k, body));
    out = sql::MakeCall(per_array ? "arrayZip" : "tuple", std::move(parts));
    out->element_names = zip.element_names;
  } else {
    out = call(node.name, 0, body);
  }
  out->position = node.position;
  out->alias = node.alias;
  return out;
}

}  // namespace

ExprPtr LowerArrayOfTuplesOperation(const Expr& call, const Expr& zip) {
  auto is = [&](const char* name) { return absl::EqualsIgnoreCase(call.name, name); };
  // Each array with the same arguments after it: arrayZip(f(a, x), f(b, x)).
  auto per_array = [&](const std::string& name) {
    std::vector<ExprPtr> arrays;
    for (const ExprPtr& array : zip.args) {
      std::vector<ExprPtr> args = call.args;
      args[0] = array;
      arrays.push_back(sql::MakeCall(name, std::move(args)));
    }
    ExprPtr out = sql::MakeCall("arrayZip", std::move(arrays));
    out->element_names = zip.element_names;
    return out;
  };
  ExprPtr lowered;
  if (is("arrayElement") && call.args.size() == 2) {  // z[i]: the tuple of the arrays' i-th
    std::vector<ExprPtr> elements;
    for (const ExprPtr& array : zip.args) {
      elements.push_back(sql::MakeCall("arrayElement", {array, call.args[1]}));
    }
    lowered = sql::MakeCall("tuple", std::move(elements));
    lowered->element_names = zip.element_names;
  } else if ((is("length") || is("empty") || is("notEmpty")) && call.args.size() == 1) {
    lowered = sql::MakeCall(call.name, {zip.args[0]});
  } else if (is("arrayReverse") || is("arraySlice") || is("arrayPopBack") ||
             is("arrayPopFront")) {
    lowered = per_array(call.name);
  } else {
    return nullptr;
  }
  lowered->position = call.position;
  lowered->alias = call.alias;
  return lowered;
}

ExprPtr LowerArrayOfTuplesCall(const Expr& node) {
  if (node.kind != ExprKind::kFunction || node.over) return nullptr;
  if (ExprPtr lowered = LowerArrayOfTuplesLambda(node)) return lowered;
  if (IsCall(node, "arrayMap") && node.args.size() >= 2 && IsCall(*node.args[0], "lambda") &&
      node.args[0]->args.size() == 2) {
    // arrayMap(x -> (f(x), g(x)), arr): an array of tuples, arrayZip of each element's arrayMap.
    const ExprPtr& body = node.args[0]->args[1];
    if (IsTupleCall(*body) && !IsMapCall(*body) && !IsArrayZipCall(*body) && !body->args.empty()) {
      std::vector<ExprPtr> arrays;
      for (const ExprPtr& element : body->args) {
        auto map = std::make_shared<Expr>(node);
        map->alias.clear();
        map->args[0] = sql::MakeCall("lambda", {node.args[0]->args[0], element});
        arrays.push_back(std::move(map));
      }
      ExprPtr zip = sql::MakeCall("arrayZip", std::move(arrays));
      zip->element_names = body->element_names;
      zip->position = node.position;
      zip->alias = node.alias;
      return zip;
    }
  }
  if (IsCall(node, "array") && !node.args.empty()) {
    // [(1, 'a'), (2, 'b')]: an array of tuples of one size is arrayZip([1, 2], ['a', 'b']).
    const size_t size = node.args[0]->args.size();
    for (const ExprPtr& arg : node.args) {
      if (!IsTupleCall(*arg) || IsMapCall(*arg) || IsArrayZipCall(*arg) ||
          arg->args.size() != size || size == 0) {
        return nullptr;
      }
    }
    std::vector<ExprPtr> arrays;
    for (size_t k = 0; k < size; ++k) {
      std::vector<ExprPtr> elements;
      for (const ExprPtr& arg : node.args) elements.push_back(arg->args[k]);
      arrays.push_back(sql::MakeCall("array", std::move(elements)));
    }
    ExprPtr zip = sql::MakeCall("arrayZip", std::move(arrays));
    zip->element_names = node.args[0]->element_names;
    zip->position = node.position;
    zip->alias = node.alias;
    return zip;
  }
  if (IsCall(node, "groupArray") && node.args.size() == 1 && IsTupleCall(*node.args[0]) &&
      !IsMapCall(*node.args[0]) && !IsArrayZipCall(*node.args[0]) && !node.distinct) {
    // groupArray((a, b)) collects the tuples as arrays of their elements: every element's
    // groupArray sees the group's rows in the same order, in each state and in each merge.
    std::vector<ExprPtr> arrays;
    for (const ExprPtr& element : node.args[0]->args) {
      auto call = std::make_shared<Expr>(node);
      call->alias.clear();
      call->args = {element};
      arrays.push_back(std::move(call));
    }
    ExprPtr zip = sql::MakeCall("arrayZip", std::move(arrays));
    zip->element_names = node.args[0]->element_names;
    zip->position = node.position;
    zip->alias = node.alias;
    return zip;
  }
  return nullptr;
}

}  // namespace granite::coordinator
