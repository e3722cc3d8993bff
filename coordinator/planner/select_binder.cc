// SelectBinder implementation: expression construction, then input binding, post-aggregation
// binding, GROUP BY keys (with key elimination), and aggregate calls.
#include "coordinator/planner/select_binder.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "coordinator/planner/binder.h"
#include "coordinator/planner/tuple_in.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"
#include "core/aggregation/aggregate_function_factory.h"
#include "core/error.h"
#include "core/expression.h"
#include "core/schema_error_codes.h"
#include "core/functions/expr_builder.h"
#include "core/functions/function_registry.h"
#include "core/functions/constant_column.h"
#include "core/functions/time_zone_arguments.h"
#include "core/status_macros.h"
#include "core/time_zone.h"
#include "core/value_text.h"
#include "core/wire/plan_codec.h"
#include "coordinator/planner/tuple_lowering.h"

namespace granite::coordinator {


using core::ErrorCode;
using core::TypeId;
using sql::Expr;
using sql::ExprKind;

namespace {

bool OnlyConstants(const core::plan::Expr& e) {
  if (e.is_literal()) return true;
  if (!e.is_call() || e.IsCall("lambda")) return false;
  for (const core::plan::Expr& arg : e.args) {
    if (!OnlyConstants(arg)) return false;
  }
  return true;
}

// Returns the value of a literal, or of a call over constants only (toUInt8(7),
// toDate('2024-01-01') + 1) folded as every process folds it when it compiles the plan
// (core/expression.h), so that a function needing a constant argument (round's digits,
// toDecimal64's scale, the IN list) takes such a call as ClickHouse does. nullopt for anything else, for a Nullable result, and when the
// folding fails: the call's own error then surfaces where it runs.
std::optional<core::Value> ConstantOf(const core::plan::Expr& e) {
  if (e.is_literal()) return e.literal;
  if (!OnlyConstants(e) || core::IsNullable(e.type)) return std::nullopt;
  absl::StatusOr<std::unique_ptr<core::Expression>> folded = core::Expression::Compile(e);
  if (!folded.ok()) return std::nullopt;
  return (*folded)->constant();
}

// An exact key of an aggregate call: equal for equal calls.
std::string SignatureOf(const core::plan::AggregateCall& call) {
  std::string signature = call.name;
  signature += '\0';
  signature += std::to_string(static_cast<int>(call.result_type));
  for (const core::plan::Expr& arg : call.args) {
    signature += '\0';
    signature += core::wire::EncodeExpr(arg);
  }
  return signature;
}

std::string Lower(const std::string& s) { return absl::AsciiStrToLower(s); }

bool IsAggregateName(const Expr& e) {
  return e.kind == ExprKind::kFunction && (e.distinct || core::IsAggregateFunction(e.name));
}

}  // namespace

sql::ExprPtr CanonicalForName(const Expr& e) {
  auto copy = std::make_shared<Expr>(e);
  if (e.kind == ExprKind::kFunction) {
    std::string lower = absl::AsciiStrToLower(e.name);
    static const char* kCaseInsensitive[] = {"count", "sum", "avg", "min", "max", "any"};
    for (const char* name : kCaseInsensitive) {
      if (lower == name) copy->name = lower;
    }
    for (auto& arg : copy->args) arg = CanonicalForName(*arg);
  }
  return copy;
}

absl::Status ErrorAt(ErrorCode code, const std::string& message, size_t position) {
  return core::Error(code, message + " (at position " + std::to_string(position + 1) + ")");
}

// Inside `expr AS name`, `name` is the column, not the alias (`SELECT x + 1 AS x` adds 1 once,
// as in ClickHouse): the binds below see an aliased call's own alias as being expanded.
bool SelectBinder::OwnAliasPending(const Expr& e) const {
  return e.kind == ExprKind::kFunction && !e.alias.empty() && !expanding_.count(e.alias);
}

namespace {

// A written IN list of more than plan::kMaxLiteralSetValues constants (x IN (1, 2, ..., n))
// travels as one kSet node of x's type, as a subquery's set does; `infos` are x's and the
// constants' (ResolveFunction's). Shorter lists, and x of a type a set column does not hold,
// keep their literals.
[[gnu::noinline]] absl::Status LongListAsSet(const std::vector<core::ArgumentInfo>& infos,
                                             std::vector<core::plan::Expr>* args) {
  if (args->size() != 2 || !(*args)[1].IsCall("tuple") ||
      (*args)[1].args.size() <= core::plan::kMaxLiteralSetValues) {
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(core::ColumnPtr values, core::InSetColumn(infos));
  if (values == nullptr) return absl::OkStatus();
  core::plan::Expr set;
  set.kind = core::plan::Expr::Kind::kSet;
  set.type = values->type();
  set.set = std::move(values);
  (*args)[1] = std::move(set);
  return absl::OkStatus();
}

// The IN list a set node stands for: tuple(v1, ..., vn) of literals.
sql::ExprPtr ExpandSet(const Expr& set) {
  std::vector<sql::ExprPtr> values;
  values.reserve(set.set->size());
  for (size_t row = 0; row < set.set->size(); ++row) {
    values.push_back(sql::LiteralOf(*set.set, row, set.position));
  }
  return sql::MakeCall("tuple", std::move(values));
}

}  // namespace

// Marks a subtree of post-aggregation binding without aggregates (see aggregate_free_depth_);
// the outermost one forgets the input failures remembered inside it when it ends.
class SelectBinder::AggregateFreeScope {
 public:
  AggregateFreeScope(SelectBinder* binder, bool active) : binder_(active ? binder : nullptr) {
    if (binder_ != nullptr) ++binder_->aggregate_free_depth_;
  }
  ~AggregateFreeScope() {
    if (binder_ != nullptr && --binder_->aggregate_free_depth_ == 0) {
      binder_->input_failures_.clear();
    }
  }
  AggregateFreeScope(const AggregateFreeScope&) = delete;
  AggregateFreeScope& operator=(const AggregateFreeScope&) = delete;
  bool active() const { return binder_ != nullptr; }

 private:
  SelectBinder* binder_;  // null: not such a subtree
};

// Sets the input failures aside (and leaves any aggregate-free subtree) while BindSpecialCall
// binds trees of its own making; restores them when it ends.
class SelectBinder::InputFailureSuspension {
 public:
  explicit InputFailureSuspension(SelectBinder* binder)
      : binder_(binder), depth_(binder->aggregate_free_depth_) {
    failures_.swap(binder_->input_failures_);
    binder_->aggregate_free_depth_ = 0;
  }
  ~InputFailureSuspension() {
    binder_->input_failures_.swap(failures_);
    binder_->aggregate_free_depth_ = depth_;
  }
  InputFailureSuspension(const InputFailureSuspension&) = delete;
  InputFailureSuspension& operator=(const InputFailureSuspension&) = delete;

 private:
  SelectBinder* binder_;
  int depth_;
  std::map<const sql::Expr*, InputFailure> failures_;
};

const absl::Status* SelectBinder::RememberedInputFailure(const Expr& e) const {
  if (aggregate_free_depth_ == 0 || input_failures_.empty() || !computing_.empty()) return nullptr;
  auto it = input_failures_.find(&e);
  if (it == input_failures_.end() || it->second.expanding != expanding_) return nullptr;
  return &it->second.status;
}

void SelectBinder::RememberInputFailure(const Expr& e, const absl::Status& status) {
  if (aggregate_free_depth_ == 0 || !computing_.empty()) return;
  if (e.kind != ExprKind::kFunction && e.kind != ExprKind::kIdentifier) return;
  input_failures_[&e] = InputFailure{status, expanding_};
}

absl::StatusOr<core::plan::Expr> SelectBinder::BindInputArgument(const Expr& e) {
  absl::StatusOr<core::plan::Expr> bound = BindInput(e);
  if (!bound.ok()) RememberInputFailure(e, bound.status());
  return bound;
}

absl::StatusOr<core::plan::Expr> SelectBinder::BindInput(const Expr& e) {
  if (const absl::Status* failed = RememberedInputFailure(e)) return *failed;
  if (OwnAliasPending(e)) return WithAlias(e.alias, [&] { return BindInput(e); });
  switch (e.kind) {
    case ExprKind::kLiteral:
      return BindLiteral(e);
    case ExprKind::kStar:
      return ErrorAt(ErrorCode::kSyntaxError, "Asterisk is not allowed here", e.position);
    case ExprKind::kIdentifier: {
      if (std::optional<core::plan::Expr> parameter = LambdaParameterOf(e)) return *parameter;
      if (const Expr* target = AliasTarget(e)) return WithAlias(e.name, [&] { return BindInput(*target); });
      return BindColumn(e);
    }
    case ExprKind::kSet:
      return ErrorAt(ErrorCode::kLogicalError, "An IN set outside the right side of IN",
                     e.position);
    case ExprKind::kSubquery:
      return ErrorAt(ErrorCode::kNotImplemented,
                     "Correlated subqueries are not supported (the subquery refers to a column of "
                     "the outer query)",
                     e.position);
    case ExprKind::kFunction:
      if (IsAggregateName(e)) {
        return ErrorAt(ErrorCode::kIllegalAggregation,
                       "Aggregate function " + sql::ColumnName(e) +
                           " is found where it is not allowed (WHERE, GROUP BY or inside another aggregate)",
                       e.position);
      }
      return BindCall(e, [this](const Expr& arg) { return BindInputArgument(arg); });
  }
  return core::Error(ErrorCode::kLogicalError, "unknown expression kind");
}

absl::StatusOr<core::plan::Expr> SelectBinder::BindPostAggregation(const Expr& e) {
  if (OwnAliasPending(e)) return WithAlias(e.alias, [&] { return BindPostAggregation(e); });
  if (e.kind == ExprKind::kLiteral) return BindLiteral(e);
  if (e.kind == ExprKind::kIdentifier) {
    if (std::optional<core::plan::Expr> parameter = LambdaParameterOf(e)) return *parameter;
    if (const Expr* target = AliasTarget(e)) {
      return WithAlias(e.name, [&] { return BindPostAggregation(*target); });
    }
  }
  if (e.kind == ExprKind::kFunction && IsAggregateName(e)) {
    if (rewrite_sum_of_affine_) {
      ASSIGN_OR_RETURN(sql::ExprPtr rewritten, RewriteSumOfAffine(e));
      if (rewritten) {
        rewrote_sum_of_affine_ = true;
        return BindPostAggregation(*rewritten);
      }
    }
    return BindAggregate(e);
  }
  // Inside a call without aggregates, no argument has one either (aggregate_free_depth_).
  AggregateFreeScope aggregate_free(this, aggregate_free_depth_ > 0 || !ContainsAggregate(e));
  if (aggregate_free.active()) {
    absl::StatusOr<core::plan::Expr> input = BindInput(e);
    if (input.ok()) {
      std::string signature = core::wire::EncodeExpr(*input);
      for (size_t k = 0; k < key_signatures_.size(); ++k) {
        if (key_signatures_[k] == signature) return core::Col(k, TypeOf(*input));
      }
      const core::plan::Expr& values = EnumValuesOrSelf(*input);
      if (&values != &*input) {  // an enum grouped by value: the key's names
        const std::string value_signature = core::wire::EncodeExpr(values);
        for (size_t k = 0; k < key_signatures_.size(); ++k) {
          if (key_signatures_[k] != value_signature) continue;
          core::plan::Expr names = *input;
          names.args[0] = core::Col(k, TypeOf(values));
          return names;
        }
      }
      if (e.kind == ExprKind::kIdentifier) {
        return ErrorAt(ErrorCode::kNotAnAggregate,
                       "Column `" + e.name +
                           "` is not under aggregate function and not in GROUP BY keys",
                       e.position);
      }
      if (input->is_literal()) return input;
      // A call over constants only has one value before and after aggregation: it binds as it
      // is, unless a constant GROUP BY key could stand for a part of it. Binding its arguments
      // again below would bind each level's whole subtree once more: a chain of n constant
      // operations beside an aggregate took O(n^2) binds (300 terms: 9 s under ASan).
      if (OnlyConstants(*input) && !HasConstantKey()) return input;
    } else if (e.kind == ExprKind::kIdentifier) {
      return input.status();
    } else {
      RememberInputFailure(e, input.status());
    }
  }
  if (e.kind != ExprKind::kFunction) {
    return ErrorAt(ErrorCode::kNotAnAggregate,
                   "Expression " + sql::ColumnName(e) + " is not under aggregate function and not in GROUP BY keys",
                   e.position);
  }
  return BindCall(e, [this](const Expr& arg) { return BindPostAggregation(arg); });
}

absl::StatusOr<sql::ExprPtr> SelectBinder::RewriteSumOfAffine(const Expr& e) {
  if (e.distinct || Lower(e.name) != "sum" || e.args.size() != 1) return sql::ExprPtr();
  const Expr& inner = *e.args[0];
  if (inner.kind != ExprKind::kFunction || inner.args.size() != 2) return sql::ExprPtr();
  const std::string& op = inner.name;
  if (op != "plus" && op != "minus" && op != "multiply") return sql::ExprPtr();
  auto is_int_literal = [](const Expr& x) {
    return x.kind == ExprKind::kLiteral && !x.is_null &&
           (std::holds_alternative<uint64_t>(x.value) || std::holds_alternative<int64_t>(x.value));
  };
  bool constant_left = is_int_literal(*inner.args[0]);
  bool constant_right = is_int_literal(*inner.args[1]);
  if (constant_left == constant_right) return sql::ExprPtr();
  sql::ExprPtr x = inner.args[constant_left ? 1 : 0];
  sql::ExprPtr c = inner.args[constant_left ? 0 : 1];
  if (ContainsAggregate(*x)) return sql::ExprPtr();
  absl::StatusOr<core::plan::Expr> bound = BindInput(*x);
  if (!bound.ok() || !core::IsInteger(TypeOf(*bound)) || core::IsDateOrDateTime(TypeOf(*bound))) {
    return sql::ExprPtr();
  }
  auto call = [&](std::string name, std::vector<sql::ExprPtr> args) {
    auto node = std::make_shared<Expr>();
    node->kind = ExprKind::kFunction;
    node->name = std::move(name);
    node->args = std::move(args);
    node->position = e.position;
    return node;
  };
  sql::ExprPtr sum = call("sum", {x});
  if (op == "multiply") return call("multiply", {c, sum});
  sql::ExprPtr scaled = call("multiply", {c, call("count", {x})});
  if (op == "plus") return call("plus", {sum, scaled});
  return constant_left ? call("minus", {scaled, sum}) : call("minus", {sum, scaled});
}

absl::Status SelectBinder::AddKey(const Expr& e) {
  if (ContainsAggregate(e)) {
    return ErrorAt(ErrorCode::kIllegalAggregation,
                   "Aggregate function " + sql::ColumnName(e) + " is found in GROUP BY", e.position);
  }
  ASSIGN_OR_RETURN(core::plan::Expr bound, BindInput(e));
  // An enum groups by value; post-aggregation binding shows the names (BindPostAggregation).
  core::plan::Expr key = EnumValuesOrSelf(bound);
  std::string signature = core::wire::EncodeExpr(key);
  if (std::find(key_signatures_.begin(), key_signatures_.end(), signature) !=
      key_signatures_.end()) {
    return absl::OkStatus();  // GROUP BY a, a
  }
  key_signatures_.push_back(signature);
  keys_.push_back(std::move(key));
  return absl::OkStatus();
}

bool SelectBinder::HasConstantKey() const {
  return std::any_of(keys_.begin(), keys_.end(),
                     [](const core::plan::Expr& key) { return OnlyConstants(key); });
}

bool SelectBinder::DropDependentKeys() {
  bool dropped = false;
  for (size_t k = keys_.size(); k-- > 0 && keys_.size() > 1;) {
    if (!IsFunctionOfOtherKeys(keys_[k], k, /*top=*/true)) continue;
    keys_.erase(keys_.begin() + static_cast<std::ptrdiff_t>(k));
    key_signatures_.erase(key_signatures_.begin() + static_cast<std::ptrdiff_t>(k));
    dropped = true;
  }
  return dropped;
}

bool SelectBinder::ContainsAggregate(const Expr& e) {
  if (OwnAliasPending(e)) {
    expanding_.insert(e.alias);
    const bool result = ContainsAggregate(e);
    expanding_.erase(e.alias);
    return result;
  }
  if (e.kind == ExprKind::kFunction) {
    if (IsAggregateName(e)) return true;
    for (const auto& arg : e.args) {
      if (ContainsAggregate(*arg)) return true;
    }
    return false;
  }
  if (e.kind == ExprKind::kIdentifier) {
    if (const Expr* target = AliasTarget(e)) {
      expanding_.insert(e.name);
      bool result = ContainsAggregate(*target);
      expanding_.erase(e.name);
      return result;
    }
  }
  return false;
}

std::vector<std::string> SelectBinder::SourceColumns() const {
  std::vector<std::string> out(source_count_);
  for (size_t i = 0; i < input_index_.size(); ++i) {
    if (input_index_[i] >= 0) out[input_index_[i]] = table_names_[i];
  }
  return out;
}

std::vector<size_t> SelectBinder::SourcePositions() const {
  std::vector<size_t> out(source_count_);
  for (size_t i = 0; i < input_index_.size(); ++i) {
    if (input_index_[i] >= 0) out[input_index_[i]] = i;
  }
  return out;
}

bool SelectBinder::IsNonDeterministic(const std::string& name) {
  static const char* kNames[] = {"rand", "rand32", "rand64", "randConstant", "randCanonical",
                                 "now", "now64", "today", "yesterday", "generateUUIDv4",
                                 "rowNumberInBlock", "rowNumberInAllBlocks", "blockNumber",
                                 "blockSize", "runningDifference", "runningAccumulate"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

bool SelectBinder::IsFunctionOfOtherKeys(const core::plan::Expr& e, size_t self, bool top) const {
  if (!top) {
    std::string signature = core::wire::EncodeExpr(e);
    for (size_t k = 0; k < key_signatures_.size(); ++k) {
      if (k != self && key_signatures_[k] == signature) return !core::IsFloat(TypeOf(e));
    }
  }
  if (e.is_literal()) return true;
  if (!e.is_call()) return false;
  const std::string& name = e.function;
  if (IsNonDeterministic(name)) return false;
  for (const core::plan::Expr& arg : e.args) {
    if (!IsFunctionOfOtherKeys(arg, self, /*top=*/false)) return false;
  }
  return true;
}

const Expr* SelectBinder::AliasTarget(const Expr& e) {
  if (!e.qualifier.empty()) return nullptr;
  auto it = aliases_.find(e.name);
  if (it == aliases_.end() || expanding_.count(e.name)) return nullptr;
  // `SELECT x AS x`: the alias names the column itself.
  const Expr* target = it->second;
  if (target->kind == ExprKind::kIdentifier && target->name == e.name) return nullptr;
  return target;
}

absl::StatusOr<core::plan::Expr> SelectBinder::BindLiteral(const Expr& e) {
  // NULL is Nullable(Nothing), as in ClickHouse (core/functions/null_functions.h).
  if (e.is_null) return core::Lit(uint64_t{0}, core::MakeNullable(TypeId::kNothing));
  if (e.literal_type) return core::Lit(e.value, *e.literal_type);
  return core::Lit(e.value, LiteralType(e.value));
}

int SelectBinder::FindColumn(const Expr& e) const {
  // With several relations (a join), a bare name is the first relation's column of that name,
  // as in ClickHouse; a qualified one must match the relation.
  int found = -1;
  for (size_t i = 0; i < table_names_.size(); ++i) {
    if (table_names_[i] != e.name) continue;
    if (!qualifiers_.empty()) {
      if (e.qualifier.empty() ? hidden_[i] : qualifiers_[i] != e.qualifier) continue;
    } else if (!e.qualifier.empty() && !single_qualifiers_.empty() &&
               std::find(single_qualifiers_.begin(), single_qualifiers_.end(), e.qualifier) ==
                   single_qualifiers_.end()) {
      continue;
    }
    found = static_cast<int>(i);
    break;
  }
  return found;
}

absl::StatusOr<core::plan::Expr> SelectBinder::BindColumn(const Expr& e) {
  const int found = FindColumn(e);
  if (found >= 0 && static_cast<size_t>(found) < computed_.size() && computed_[found]) {
    return BindComputedColumn(static_cast<size_t>(found), e);
  }
  if (found >= 0) {
    if (input_index_[found] < 0) input_index_[found] = source_count_++;
    core::plan::Expr column = core::Col(input_index_[found], table_types_[found]);
    if (static_cast<size_t>(found) < enum_types_.size() && enum_types_[found]) {
      return EnumNames(std::move(column), *enum_types_[found]);
    }
    return column;
  }
  std::string known = absl::StrJoin(table_names_.size() > 20
                                        ? std::vector<std::string>(table_names_.begin(), table_names_.begin() + 20)
                                        : table_names_,
                                    ", ");
  return ErrorAt(ErrorCode::kUnknownIdentifier,
                 "Unknown identifier: " + e.name + "; there are columns: " + known, e.position);
}

absl::StatusOr<core::plan::Expr> SelectBinder::BindComputedColumn(size_t index, const Expr& e) {
  if (!computing_.insert(index).second) {
    return ErrorAt(core::kCyclicAliases,
                   "Cyclic aliases: column " + e.name + " is computed from itself", e.position);
  }
  // Inside the column's expression names are the table's columns, not select-list aliases.
  std::map<std::string, const sql::Expr*> aliases;
  aliases.swap(aliases_);
  absl::StatusOr<core::plan::Expr> bound = BindInput(*computed_[index]);
  aliases.swap(aliases_);
  computing_.erase(index);
  if (!bound.ok()) return bound.status();
  const TypeId type = table_types_[index];
  if (bound->type == type) return bound;
  return core::Call("CAST", type,
                    {*std::move(bound), core::Lit(std::string(core::TypeName(type)), TypeId::kString)});
}

namespace {

// uniq, uniqExact, uniqCombined[64], uniqHLL12 (with or without parameters) and countDistinct;
// count(DISTINCT ...) is uniqExact here. Not a combinator: uniqExactIf(x, cond) has one value.
bool CountsDistinctTuples(const std::string& name) {
  const std::string base = name.substr(0, name.find('('));
  return base == "uniq" || base == "uniqExact" || base == "uniqCombined" ||
         base == "uniqCombined64" || base == "uniqHLL12" || base == "countDistinct";
}

// uniq*(a, b, ...) counts distinct tuples: the call over one String per row that names the tuple
// injectively (each value's text in hex, joined by ':'), so the distinct counters run unchanged on
// the workers and the coordinator. A NULL argument makes the String NULL and the row is skipped,
// as ClickHouse skips rows with a NULL in any argument.
Expr TupleAsText(const Expr& e, const std::string& name) {
  std::vector<sql::ExprPtr> parts;
  for (const sql::ExprPtr& arg : e.args) {
    if (!parts.empty()) parts.push_back(sql::MakeLiteral(core::Value(std::string(":"))));
    parts.push_back(sql::MakeCall("hex", {sql::MakeCall("toString", {arg})}));
  }
  sql::ExprPtr text = sql::MakeCall("concat", std::move(parts));
  text->position = e.position;
  Expr call = e;
  call.name = name;
  call.distinct = false;
  call.args = {std::move(text)};
  return call;
}

}  // namespace

absl::StatusOr<core::plan::Expr> SelectBinder::BindAggregate(const Expr& e) {
  // An aggregate's arguments are rows of the source, never a lambda's elements: inside
  // arrayMap(x -> sum(x), a) the x of sum(x) is no parameter (UNKNOWN_IDENTIFIER unless a column).
  std::vector<LambdaScope> scopes;
  scopes.swap(lambda_scopes_);
  absl::StatusOr<core::plan::Expr> bound = BindAggregateCall(e);
  scopes.swap(lambda_scopes_);
  return bound;
}

absl::StatusOr<core::plan::Expr> SelectBinder::BindAggregateCall(const Expr& e) {
  std::string name = e.name;
  if (e.distinct) {
    std::string lower = Lower(name);
    if (lower == "count") {
      name = "uniqExact";
    } else {  // f(DISTINCT x) is the -Distinct combinator: sumDistinct(x)
      size_t open = name.find('(');
      name.insert(open == std::string::npos ? name.size() : open, "Distinct");
    }
  }
  if (e.args.size() > 1 && CountsDistinctTuples(name)) return BindAggregateCall(TupleAsText(e, name));
  core::plan::AggregateCall call;
  std::vector<TypeId> arg_types;
  // min, max, any, ... of a FixedString run on its String form and cast back (the padding drop
  // keeps the order, so the chosen value is the same).
  const bool picks_first_argument = name == "min" || name == "max" || name == "any" ||
                                    name == "anyLast" || name == "argMin" || name == "argMax";
  std::optional<TypeId> fixed_string_result;
  std::optional<core::plan::Expr> enum_result;  // __enumName over the first argument's values
  for (const auto& arg : e.args) {
    if (arg->kind == ExprKind::kStar) continue;  // count(*) = count()
    if (ContainsAggregate(*arg)) {
      return ErrorAt(ErrorCode::kIllegalAggregation,
                     "Aggregate function " + sql::ColumnName(*arg) +
                         " is found inside another aggregate function",
                     arg->position);
    }
    ASSIGN_OR_RETURN(core::plan::Expr bound, BindInput(*arg));
    if (picks_first_argument && call.args.empty() && &EnumValuesOrSelf(bound) != &bound) {
      // min(e), any(e), ...: pick by value, show the name (the result keeps the enum).
      enum_result = bound;
      bound = core::plan::Expr(bound.args[0]);
    }
    const bool fixed_value = picks_first_argument && call.args.empty() &&
                             core::IsFixedString(TypeOf(bound));
    if (fixed_value) fixed_string_result = core::RemoveNullable(TypeOf(bound));
    if (fixed_value || ((core::IsUuid(TypeOf(bound)) || core::IsFixedString(TypeOf(bound))) &&
                        absl::StartsWith(name, "uniq"))) {
      // The uniq sets hold 64-bit keys or strings: a UUID or FixedString counts by its String
      // form, as distinct as its value (only a FixedString's trailing padding is dropped).
      const TypeId text = core::WithNullable(TypeId::kString, core::IsNullable(TypeOf(bound)));
      std::vector<core::plan::Expr> inner;
      inner.push_back(std::move(bound));
      bound = core::Call("toString", text, std::move(inner));
    }
    arg_types.push_back(TypeOf(bound));
    call.args.push_back(std::move(bound));
  }
  absl::StatusOr<core::ResolvedAggregate> resolved = core::ResolveAggregate(name, arg_types);
  if (!resolved.ok() && core::CodeOf(resolved.status()) == ErrorCode::kIllegalTypeOfArgument) {
    // An aggregate whose state does not read Decimals (varPop, corrStable, boundingRatio, ...)
    // takes them as Float64, as ClickHouse computes these in Float64.
    bool converted = false;
    for (size_t i = 0; i < call.args.size(); ++i) {
      if (!core::IsDecimal(core::RemoveNullable(arg_types[i]))) continue;
      arg_types[i] = core::WithNullable(TypeId::kFloat64, core::IsNullable(arg_types[i]));
      std::vector<core::plan::Expr> inner;
      inner.push_back(std::move(call.args[i]));
      call.args[i] = core::Call("toFloat64", arg_types[i], std::move(inner));
      converted = true;
    }
    if (converted) resolved = core::ResolveAggregate(name, arg_types);
  }
  if (!resolved.ok()) {
    return core::Error(core::CodeOf(resolved.status()),
                       std::string(resolved.status().message()) + " (at position " +
                           std::to_string(e.position + 1) + ")");
  }
  call.name = resolved->name;
  call.result_type = resolved->result_type;
  std::string signature = SignatureOf(call);
  size_t index = 0;
  while (index < aggregates_.size() && aggregate_signatures_[index] != signature) ++index;
  if (index == aggregates_.size()) {
    aggregates_.push_back(call);
    aggregate_signatures_.push_back(signature);
  }
  core::plan::Expr result = core::Col(keys_.size() + index, resolved->result_type);
  if (enum_result && core::RemoveNullable(resolved->result_type) ==
                         core::RemoveNullable(enum_result->args[0].type)) {
    enum_result->args[0] = std::move(result);
    enum_result->type = core::WithNullable(TypeId::kString,
                                           core::IsNullable(enum_result->args[0].type));
    return *std::move(enum_result);
  }
  if (fixed_string_result && core::IsString(resolved->result_type)) {
    const TypeId type =
        core::WithNullable(*fixed_string_result, core::IsNullable(resolved->result_type));
    std::vector<core::plan::Expr> cast_args;
    cast_args.push_back(std::move(result));
    cast_args.push_back(core::Lit(core::Value(std::string(core::TypeName(type))), TypeId::kString));
    return core::Call("CAST", type, std::move(cast_args));
  }
  return result;
}

void SelectBinder::ApplySessionTimeZone(const std::string& name,
                                        std::vector<core::plan::Expr>* args,
                                        std::vector<core::ArgumentInfo>* infos) const {
  const std::string zone_name(core::TimeZoneName(session_zone_));
  const int zone_index = core::ImplicitZoneArgument(name, *infos);
  if (zone_index >= 0) {
    args->push_back(core::Lit(core::Value(zone_name), TypeId::kString));
    infos->push_back({TypeId::kString, core::Value(zone_name)});
    return;
  }
  // CAST of a zoneless date-time (to String, Date, ...) reads it in the session's zone.
  if ((name == "CAST" || name == "_CAST") && !args->empty()) {
    const TypeId time = (*infos)[0].type;
    if ((core::IsDateTime(time) || core::IsDateTime64(time)) && !core::IsArray(time) &&
        core::TimeZoneOf(time) == core::kNoTimeZone) {
      const TypeId zoned = core::WithTimeZone(time, session_zone_);
      std::vector<core::plan::Expr> inner;
      inner.push_back(std::move((*args)[0]));
      inner.push_back(core::Lit(core::Value(zone_name), TypeId::kString));
      (*args)[0] = core::Call("toTimeZone", zoned, std::move(inner));
      (*infos)[0] = {zoned, std::nullopt};
    }
    return;
  }
  // A comparison of a zoneless date-time with text reads the text in the session's zone: the
  // literal becomes the instant it names (still a literal, so pruning keeps working).
  static constexpr std::string_view kComparisons[] = {
      "equals", "notEquals", "less", "greater", "lessOrEquals", "greaterOrEquals"};
  if (args->size() != 2 ||
      std::find(std::begin(kComparisons), std::end(kComparisons), name) == std::end(kComparisons)) {
    return;
  }
  for (size_t side = 0; side < 2; ++side) {
    const TypeId time = core::RemoveNullable((*infos)[side].type);
    const core::ArgumentInfo& text = (*infos)[1 - side];
    if ((!core::IsDateTime(time) && !core::IsDateTime64(time)) ||
        core::TimeZoneOf(time) != core::kNoTimeZone || !core::IsString(text.type) ||
        !text.constant || text.constant_is_null || !(*args)[1 - side].is_literal()) {
      continue;
    }
    const TypeId zoned = core::WithTimeZone(time, session_zone_);
    core::Column parsed(zoned);
    if (!core::ParseValueText(core::ValueToText(*text.constant), zoned, &parsed).ok()) return;
    const core::Value instant = core::ValueAt(parsed, 0);
    (*args)[1 - side] = core::Lit(instant, time);
    (*infos)[1 - side] = {time, instant};
    return;
  }
}

absl::StatusOr<core::plan::Expr> SelectBinder::BindCall(const Expr& e, ArgBinder bind_arg) {
  // BindCall recurses once per nesting level of an expression (through its arguments), so the
  // work around the recursion lives in [[gnu::noinline]] helpers: their temporaries are not in
  // every level's frame (a 999-deep expression must fit the coordinator's stack under ASan).
  if (e.over || IsTupleIn(e) || e.name == "lambda" || IsTupleCall(e) ||
      IsTupleOperation(e) ||
      (!e.args.empty() && e.args[0]->kind == ExprKind::kFunction && e.args[0]->name == "lambda")) {
    return BindSpecialCall(e, bind_arg);
  }
  for (const sql::ExprPtr& arg : e.args) {
    if (arg->kind == ExprKind::kFunction && arg->name == "lambda") return MisplacedLambda(*arg, &e);
  }
  if (std::optional<core::plan::Expr> declared = DeclaredTypeName(e); declared) return *declared;
  const bool is_in =
      e.name == "in" || e.name == "notIn" || e.name == "globalIn" || e.name == "globalNotIn";
  std::vector<core::plan::Expr> args;
  std::vector<core::ArgumentInfo> infos;
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (is_in && i == 1) {
      RETURN_IF_ERROR(AppendInList(*e.args[i], &args, &infos));
    } else {
      RETURN_IF_ERROR(AppendArgument(e, *e.args[i], bind_arg, &args, &infos));
    }
  }
  return FinishBindCall(e, is_in, std::move(args), std::move(infos));
}

absl::StatusOr<core::plan::Expr> SelectBinder::BindSpecialCall(const Expr& e, ArgBinder bind_arg) {
  // The tuple-IN, tuple and map lowerings bind trees built here: no failure is remembered by
  // their addresses, which later trees may reuse.
  InputFailureSuspension suspended(this);
  if (e.over) {  // the executor computes window calls before binding (exec/window_split.h)
    return ErrorAt(ErrorCode::kNotImplemented,
                   "Window function " + sql::ColumnName(e) + " is not supported here", e.position);
  }
  if (IsTupleIn(e)) {
    ASSIGN_OR_RETURN(sql::ExprPtr comparisons, ExpandTupleIn(e, /*null_as_unequal=*/false));
    ASSIGN_OR_RETURN(core::plan::Expr bound, bind_arg(*comparisons));
    if (!core::IsNullable(TypeOf(bound))) return bound;
    ASSIGN_OR_RETURN(comparisons, ExpandTupleIn(e, /*null_as_unequal=*/true));
    return bind_arg(*comparisons);
  }
  if (!e.args.empty() && e.args[0]->kind == ExprKind::kFunction && e.args[0]->name == "lambda") {
    return BindHigherOrderCall(e, bind_arg);
  }
  if (e.name == "lambda") return MisplacedLambda(e, nullptr);
  return BindTupleOperation(e, bind_arg);
}

std::optional<core::plan::Expr> SelectBinder::DeclaredTypeName(const Expr& e) const {
  if (declared_type_names_.empty() || e.args.size() != 1 ||
      e.args[0]->kind != ExprKind::kIdentifier || Lower(e.name) != "totypename" ||
      aliases_.count(e.args[0]->name)) {
    return std::nullopt;
  }
  const int column = FindColumn(*e.args[0]);
  if (column < 0 || static_cast<size_t>(column) >= declared_type_names_.size() ||
      declared_type_names_[column].empty()) {
    return std::nullopt;
  }
  return core::Lit(declared_type_names_[column], TypeId::kString);
}

absl::Status SelectBinder::AppendInList(const Expr& arg, std::vector<core::plan::Expr>* args,
                                        std::vector<core::ArgumentInfo>* infos) {
  if (arg.kind == ExprKind::kSet) {
    // An enum's names compare through the literals' lowering (select_binder_enums.cc): such a
    // set binds as the list of literals it stands for.
    if (args->empty() || (*args)[0].IsCall("__enumName")) {
      return AppendInList(*ExpandSet(arg), args, infos);
    }
    core::plan::Expr set;
    set.kind = core::plan::Expr::Kind::kSet;
    set.type = arg.set->type();
    set.set = arg.set;
    core::ArgumentInfo info{set.type, std::nullopt};
    info.set = arg.set;
    infos->push_back(std::move(info));
    args->push_back(std::move(set));
    return absl::OkStatus();
  }
  // The IN list: each element must be a constant.
  std::vector<const Expr*> elements;
  if (arg.kind == ExprKind::kFunction && arg.name == "tuple") {
    for (const auto& element : arg.args) elements.push_back(element.get());
  } else {
    elements.push_back(&arg);
  }
  core::plan::Expr tuple =
      core::Call("tuple", args->empty() ? TypeId::kUInt8 : (*args)[0].type, {});
  for (const Expr* element : elements) {
    ASSIGN_OR_RETURN(core::plan::Expr bound, BindInput(*element));
    if (std::optional<core::Value> value = ConstantOf(bound); value && !bound.is_literal()) {
      bound = core::Lit(*value, bound.type);
    }
    if (!bound.is_literal()) {
      return ErrorAt(ErrorCode::kNotImplemented,
                     "Only constants are supported in the IN list, got " +
                         sql::ColumnName(*element),
                     element->position);
    }
    infos->push_back({TypeOf(bound), ConstantOf(bound)});
    tuple.args.push_back(std::move(bound));
  }
  args->push_back(std::move(tuple));
  return absl::OkStatus();
}

absl::Status SelectBinder::AppendArgument(const Expr& call, const Expr& arg, ArgBinder bind_arg,
                                          std::vector<core::plan::Expr>* args,
                                          std::vector<core::ArgumentInfo>* infos) {
  if (arg.kind == ExprKind::kStar) {
    return ErrorAt(ErrorCode::kSyntaxError, "Asterisk is not allowed as an argument of " + call.name,
                   arg.position);
  }
  folded_.erase(&arg);  // an entry now comes from this binding of `arg`
  ASSIGN_OR_RETURN(core::plan::Expr bound, bind_arg(arg));
  auto folded = folded_.find(&arg);
  const bool known = folded != folded_.end() && bound.is_call() &&
                     bound.function == folded->second.function &&
                     bound.type == folded->second.type;
  infos->push_back({TypeOf(bound), known ? folded->second.value : ConstantOf(bound)});
  args->push_back(std::move(bound));
  return absl::OkStatus();
}

absl::StatusOr<core::plan::Expr> SelectBinder::FinishBindCall(
    const Expr& e, bool is_in, std::vector<core::plan::Expr> args,
    std::vector<core::ArgumentInfo> infos) {
  {
    ASSIGN_OR_RETURN(std::unique_ptr<core::plan::Expr> decided,
                     LowerEnumCallBoxed(e.name, &args, &infos));
    if (decided) return std::move(*decided);
  }
  if (session_zone_ != core::kNoTimeZone && !is_in) {
    if (Lower(e.name) == "timezone") {
      return core::Lit(core::Value(std::string(core::TimeZoneName(session_zone_))),
                       TypeId::kString);
    }
    ApplySessionTimeZone(e.name, &args, &infos);
  }
  // NULL arguments are Nullable(Nothing): if, multiIf and CASE take them as NULL
  // (core/functions/null_functions.h).
  absl::StatusOr<core::ResolvedFunction> resolved = core::ResolveFunction(e.name, infos);
  if (!resolved.ok() && core::CodeOf(resolved.status()) == ErrorCode::kIllegalTypeOfArgument) {
    // A function of strings that does not take FixedString itself reads its bytes as a String
    // (zero padding included, as ClickHouse's length, concat, ... see them).
    bool wrapped = false;
    for (size_t i = 0; i < args.size() && !is_in; ++i) {
      if (!core::IsFixedString(infos[i].type)) continue;
      const TypeId text = core::WithNullable(TypeId::kString, core::IsNullable(infos[i].type));
      std::vector<core::plan::Expr> inner;
      inner.push_back(std::move(args[i]));
      args[i] = core::Call("toString", text, std::move(inner));
      infos[i] = {text, std::nullopt};
      wrapped = true;
    }
    if (wrapped) resolved = core::ResolveFunction(e.name, infos);
  }
  if (!resolved.ok()) {
    return core::Error(core::CodeOf(resolved.status()),
                       std::string(resolved.status().message()) + " (at position " +
                           std::to_string(e.position + 1) + ")");
  }
  if (is_in) RETURN_IF_ERROR(LongListAsSet(infos, &args));
  if (!is_in && resolved->name != "lambda") RememberFolded(e, *resolved, args, infos);
  return core::Call(resolved->name, resolved->result_type, std::move(args));
}

void SelectBinder::RememberFolded(const Expr& e, const core::ResolvedFunction& resolved,
                                  const std::vector<core::plan::Expr>& args,
                                  const std::vector<core::ArgumentInfo>& infos) {
  // ConstantOf's answer for the call, from its arguments' values (each folded already): the
  // call over their literals compiles in time of its own arity.
  if (args.size() != infos.size() || core::IsNullable(resolved.result_type)) return;
  std::vector<core::plan::Expr> literals;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!infos[i].constant || args[i].IsCall("lambda")) return;  // ConstantOf decides it
    literals.push_back(args[i].is_literal() ? args[i] : core::Lit(*infos[i].constant, args[i].type));
  }
  const core::plan::Expr shallow =
      core::Call(resolved.name, resolved.result_type, std::move(literals));
  folded_[&e] = Folded{resolved.name, resolved.result_type, ConstantOf(shallow)};
}

}  // namespace granite::coordinator
