// Binder implementation. Parts:
//   1. literal and proto construction helpers;
//   2. SelectBinder: the per-query state (source columns, aliases, group keys, aggregates) and the
//      two binding modes — input (row level, over source columns) and post-aggregation (over the
//      stage block of keys and aggregates);
//   3. Binder::Bind: source resolution and assembly of the QueryPlan.
#include "coordinator/binder.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "core/aggregation/aggregate_function_factory.h"
#include "core/error.h"
#include "core/functions/function_registry.h"
#include "core/status_macros.h"
#include "coordinator/distinct_planner.h"
#include "coordinator/group_limit_hash_filter.h"
#include "coordinator/shard_local_aggregation.h"
#include "coordinator/shard_local_top_n.h"
#include "coordinator/sql/parser.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;
using core::ErrorCode;
using core::TypeId;
using sql::Expr;
using sql::ExprKind;

core::TypeId LiteralType(const core::Value& value) {
  if (const auto* u = std::get_if<uint64_t>(&value)) {
    if (*u <= std::numeric_limits<uint8_t>::max()) return TypeId::kUInt8;
    if (*u <= std::numeric_limits<uint16_t>::max()) return TypeId::kUInt16;
    if (*u <= std::numeric_limits<uint32_t>::max()) return TypeId::kUInt32;
    return TypeId::kUInt64;
  }
  if (const auto* i = std::get_if<int64_t>(&value)) {
    if (*i >= std::numeric_limits<int8_t>::min() && *i <= std::numeric_limits<int8_t>::max()) {
      return TypeId::kInt8;
    }
    if (*i >= std::numeric_limits<int16_t>::min() && *i <= std::numeric_limits<int16_t>::max()) {
      return TypeId::kInt16;
    }
    if (*i >= std::numeric_limits<int32_t>::min() && *i <= std::numeric_limits<int32_t>::max()) {
      return TypeId::kInt32;
    }
    return TypeId::kInt64;
  }
  if (std::holds_alternative<double>(value)) return TypeId::kFloat64;
  return TypeId::kString;
}

namespace {

pb::Expr MakeColumn(uint32_t index, TypeId type) {
  pb::Expr e;
  e.set_type(static_cast<uint32_t>(type));
  e.set_column(index);
  return e;
}

pb::Expr MakeLiteral(const core::Value& value, TypeId type) {
  pb::Expr e;
  e.set_type(static_cast<uint32_t>(type));
  pb::Value* v = e.mutable_literal();
  if (const auto* u = std::get_if<uint64_t>(&value)) v->set_uint_value(*u);
  else if (const auto* i = std::get_if<int64_t>(&value)) v->set_int_value(*i);
  else if (const auto* d = std::get_if<double>(&value)) v->set_float_value(*d);
  else v->set_string_value(std::get<std::string>(value));
  return e;
}

// Returns the default value of `type` as a literal (stands in for NULL, which granite lacks).
pb::Expr DefaultLiteral(TypeId type) {
  if (type == TypeId::kString) return MakeLiteral(std::string(), type);
  if (core::IsFloat(type)) return MakeLiteral(0.0, type);
  if (core::IsSignedInteger(type)) return MakeLiteral(int64_t{0}, type);
  return MakeLiteral(uint64_t{0}, type);
}

std::optional<core::Value> ConstantOf(const pb::Expr& e) {
  if (!e.has_literal()) return std::nullopt;
  const pb::Value& v = e.literal();
  switch (v.kind_case()) {
    case pb::Value::kIntValue: return core::Value(v.int_value());
    case pb::Value::kUintValue: return core::Value(v.uint_value());
    case pb::Value::kFloatValue: return core::Value(v.float_value());
    case pb::Value::kStringValue: return core::Value(v.string_value());
    default: return std::nullopt;
  }
}

TypeId TypeOf(const pb::Expr& e) { return static_cast<TypeId>(e.type()); }

std::string Lower(const std::string& s) { return absl::AsciiStrToLower(s); }

bool IsAggregateName(const Expr& e) {
  return e.kind == ExprKind::kFunction && (e.distinct || core::IsAggregateFunction(e.name));
}

// Returns a copy of `e` whose SQL-standard aggregate names are spelled as ClickHouse shows them
// in column names (COUNT(*) is named "count()").
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

// Holds the state of binding one SELECT.
class SelectBinder {
 public:
  SelectBinder(std::vector<std::string> names, std::vector<TypeId> types)
      : table_names_(std::move(names)), table_types_(std::move(types)),
        input_index_(table_names_.size(), -1) {}

  void AddAlias(const Expr& item) {
    if (!item.alias.empty()) aliases_.emplace(item.alias, &item);
  }

  // Binds a row-level expression over the source columns.
  absl::StatusOr<pb::Expr> BindInput(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kLiteral:
        return BindLiteral(e);
      case ExprKind::kStar:
        return ErrorAt(ErrorCode::kSyntaxError, "Asterisk is not allowed here", e.position);
      case ExprKind::kIdentifier: {
        if (const Expr* target = AliasTarget(e)) return WithAlias(e.name, [&] { return BindInput(*target); });
        return BindColumn(e);
      }
      case ExprKind::kFunction:
        if (IsAggregateName(e)) {
          return ErrorAt(ErrorCode::kIllegalAggregation,
                         "Aggregate function " + sql::ColumnName(e) +
                             " is found where it is not allowed (WHERE, GROUP BY or inside another aggregate)",
                         e.position);
        }
        return BindCall(e, [this](const Expr& arg) { return BindInput(arg); });
    }
    return core::Error(ErrorCode::kLogicalError, "unknown expression kind");
  }

  // Binds an expression over the stage block (group keys, then aggregates).
  absl::StatusOr<pb::Expr> BindPostAggregation(const Expr& e) {
    if (e.kind == ExprKind::kLiteral) return BindLiteral(e);
    if (e.kind == ExprKind::kIdentifier) {
      if (const Expr* target = AliasTarget(e)) {
        return WithAlias(e.name, [&] { return BindPostAggregation(*target); });
      }
    }
    if (e.kind == ExprKind::kFunction && IsAggregateName(e)) {
      ASSIGN_OR_RETURN(sql::ExprPtr rewritten, RewriteSumOfAffine(e));
      if (rewritten) return BindPostAggregation(*rewritten);
      return BindAggregate(e);
    }
    if (!ContainsAggregate(e)) {
      absl::StatusOr<pb::Expr> input = BindInput(e);
      if (input.ok()) {
        std::string signature = input->SerializeAsString();
        for (size_t k = 0; k < key_signatures_.size(); ++k) {
          if (key_signatures_[k] == signature) return MakeColumn(k, TypeOf(*input));
        }
        if (e.kind == ExprKind::kIdentifier) {
          return ErrorAt(ErrorCode::kNotAnAggregate,
                         "Column `" + e.name +
                             "` is not under aggregate function and not in GROUP BY keys",
                         e.position);
        }
        if (input->has_literal()) return input;
      } else if (e.kind == ExprKind::kIdentifier) {
        return input.status();
      }
    }
    if (e.kind != ExprKind::kFunction) {
      return ErrorAt(ErrorCode::kNotAnAggregate,
                     "Expression " + sql::ColumnName(e) + " is not under aggregate function and not in GROUP BY keys",
                     e.position);
    }
    return BindCall(e, [this](const Expr& arg) { return BindPostAggregation(arg); });
  }

  // Rewrites sum(x + c), sum(c + x), sum(x - c), sum(c - x), sum(c * x), sum(x * c) for an integer
  // column expression x and an integer constant c into sum(x) and count(x): ninety sums of
  // `x + k` then cost one sum and one count, since identical aggregates are computed once.
  // Returns null when the pattern does not apply. Integers only: for floats the rewrite would
  // change rounding.
  absl::StatusOr<sql::ExprPtr> RewriteSumOfAffine(const Expr& e) {
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
    absl::StatusOr<pb::Expr> bound = BindInput(*x);
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

  // Adds a GROUP BY key bound at row level.
  absl::Status AddKey(const Expr& e) {
    if (ContainsAggregate(e)) {
      return ErrorAt(ErrorCode::kIllegalAggregation,
                     "Aggregate function " + sql::ColumnName(e) + " is found in GROUP BY", e.position);
    }
    ASSIGN_OR_RETURN(pb::Expr key, BindInput(e));
    std::string signature = key.SerializeAsString();
    if (std::find(key_signatures_.begin(), key_signatures_.end(), signature) !=
        key_signatures_.end()) {
      return absl::OkStatus();  // GROUP BY a, a
    }
    key_signatures_.push_back(signature);
    keys_.push_back(std::move(key));
    return absl::OkStatus();
  }

  // GROUP BY key elimination (ClickHouse's optimize_group_by_function_keys; setting of the same
  // name, default 1, 0 turns it off). Rule: a key that is a deterministic scalar function of the
  // OTHER keys and constants (`ClientIP - 1` beside `ClientIP`, `lower(URL)` beside `URL`) or a
  // constant alone (`GROUP BY 1, URL`) is dropped from the hash key: the tuples (k, f(k)) form
  // exactly the groups of k, so such a key only widens the hash-table key (ClickBench Q36: four
  // keys of 28 bytes serialized become one Int32). SELECT / HAVING / ORDER BY still see it:
  // post-aggregation binding computes it from the kept key columns (BindCall), with the same
  // function and types, so results (wrap-around of `k - 1` at the type's minimum included) do not
  // change. Limits: only functions whose every leaf is another key or a literal (a key reading a
  // column that is not a key stays); aggregates are refused in GROUP BY before this runs;
  // non-deterministic functions (IsNonDeterministic) never count; float keys
  // never count as sources (-0.0 and 0.0 are one group but may differ after a function); one key
  // always stays, so GROUP BY never turns into a keyless aggregate (which returns a row on empty
  // input). granite has no ARRAY JOIN or Nullable columns, so neither can make a key vary within
  // a group.
  // REQUIRES: every AddKey call is done and nothing was bound post-aggregation yet.
  void DropDependentKeys() {
    for (size_t k = keys_.size(); k-- > 0 && keys_.size() > 1;) {
      if (!IsFunctionOfOtherKeys(keys_[k], k, /*top=*/true)) continue;
      keys_.erase(keys_.begin() + static_cast<std::ptrdiff_t>(k));
      key_signatures_.erase(key_signatures_.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }

  bool ContainsAggregate(const Expr& e) {
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

  const std::vector<pb::Expr>& keys() const { return keys_; }
  const std::vector<pb::AggregateCall>& aggregates() const { return aggregates_; }
  // Source columns in input order.
  std::vector<std::string> SourceColumns() const {
    std::vector<std::string> out(source_count_);
    for (size_t i = 0; i < input_index_.size(); ++i) {
      if (input_index_[i] >= 0) out[input_index_[i]] = table_names_[i];
    }
    return out;
  }
  // Source column positions in the table, in input order.
  std::vector<size_t> SourcePositions() const {
    std::vector<size_t> out(source_count_);
    for (size_t i = 0; i < input_index_.size(); ++i) {
      if (input_index_[i] >= 0) out[input_index_[i]] = i;
    }
    return out;
  }

 private:
  // True for functions whose value may differ between two calls with the same arguments (none
  // is registered today; listed so that adding one cannot silently break DropDependentKeys).
  static bool IsNonDeterministic(const std::string& name) {
    static const char* kNames[] = {"rand", "rand32", "rand64", "randConstant", "randCanonical",
                                   "now", "now64", "today", "yesterday", "generateUUIDv4",
                                   "rowNumberInBlock", "rowNumberInAllBlocks", "blockNumber",
                                   "blockSize", "runningDifference", "runningAccumulate"};
    for (const char* n : kNames) {
      if (name == n) return true;
    }
    return false;
  }

  // True if `e` (bound at input level) is a literal, another key than keys_[self] (when not at
  // the top), or a deterministic function call of such expressions.
  bool IsFunctionOfOtherKeys(const pb::Expr& e, size_t self, bool top) const {
    if (!top) {
      std::string signature = e.SerializeAsString();
      for (size_t k = 0; k < key_signatures_.size(); ++k) {
        if (k != self && key_signatures_[k] == signature) return !core::IsFloat(TypeOf(e));
      }
    }
    if (e.has_literal()) return true;
    if (!e.has_call()) return false;
    const std::string& name = e.call().name();
    if (IsNonDeterministic(name)) return false;
    for (const pb::Expr& arg : e.call().args()) {
      if (!IsFunctionOfOtherKeys(arg, self, /*top=*/false)) return false;
    }
    return true;
  }

  const Expr* AliasTarget(const Expr& e) {
    if (!e.qualifier.empty()) return nullptr;
    auto it = aliases_.find(e.name);
    if (it == aliases_.end() || expanding_.count(e.name)) return nullptr;
    // `SELECT x AS x`: the alias names the column itself.
    const Expr* target = it->second;
    if (target->kind == ExprKind::kIdentifier && target->name == e.name) return nullptr;
    return target;
  }

  template <typename F>
  absl::StatusOr<pb::Expr> WithAlias(const std::string& name, F&& bind) {
    expanding_.insert(name);
    absl::StatusOr<pb::Expr> result = bind();
    expanding_.erase(name);
    return result;
  }

  absl::StatusOr<pb::Expr> BindLiteral(const Expr& e) {
    if (e.is_null) return MakeLiteral(uint64_t{0}, TypeId::kUInt8);  // replaced by callers
    return MakeLiteral(e.value, LiteralType(e.value));
  }

  absl::StatusOr<pb::Expr> BindColumn(const Expr& e) {
    for (size_t i = 0; i < table_names_.size(); ++i) {
      if (table_names_[i] != e.name) continue;
      if (input_index_[i] < 0) input_index_[i] = source_count_++;
      return MakeColumn(input_index_[i], table_types_[i]);
    }
    std::string known = absl::StrJoin(table_names_.size() > 20
                                          ? std::vector<std::string>(table_names_.begin(), table_names_.begin() + 20)
                                          : table_names_,
                                      ", ");
    return ErrorAt(ErrorCode::kUnknownIdentifier,
                   "Unknown identifier: " + e.name + "; there are columns: " + known, e.position);
  }

  template <typename BindArg>
  absl::StatusOr<pb::Expr> BindCall(const Expr& e, BindArg bind_arg) {
    std::string lower = Lower(e.name);
    if (lower == "tuple") {
      return ErrorAt(ErrorCode::kNotImplemented, "Tuples are supported only on the right of IN",
                     e.position);
    }
    bool is_in = e.name == "in" || e.name == "notIn" || e.name == "globalIn" || e.name == "globalNotIn";
    std::vector<pb::Expr> args;
    std::vector<core::ArgumentInfo> infos;
    std::vector<bool> is_null;
    for (size_t i = 0; i < e.args.size(); ++i) {
      const Expr& arg = *e.args[i];
      if (is_in && i == 1) {
        // The IN list: each element must be a constant.
        std::vector<const Expr*> elements;
        if (arg.kind == ExprKind::kFunction && arg.name == "tuple") {
          for (const auto& element : arg.args) elements.push_back(element.get());
        } else {
          elements.push_back(&arg);
        }
        pb::Expr tuple;
        tuple.set_type(args.empty() ? 0 : args[0].type());
        tuple.mutable_call()->set_name("tuple");
        for (const Expr* element : elements) {
          ASSIGN_OR_RETURN(pb::Expr bound, BindInput(*element));
          if (!bound.has_literal()) {
            return ErrorAt(ErrorCode::kNotImplemented,
                           "Only constants are supported in the IN list, got " +
                               sql::ColumnName(*element),
                           element->position);
          }
          infos.push_back({TypeOf(bound), ConstantOf(bound)});
          *tuple.mutable_call()->add_args() = std::move(bound);
        }
        args.push_back(std::move(tuple));
        continue;
      }
      if (arg.kind == ExprKind::kStar) {
        return ErrorAt(ErrorCode::kSyntaxError, "Asterisk is not allowed as an argument of " + e.name,
                       arg.position);
      }
      ASSIGN_OR_RETURN(pb::Expr bound, bind_arg(arg));
      is_null.resize(args.size() + 1, false);
      is_null[args.size()] = arg.kind == ExprKind::kLiteral && arg.is_null;
      infos.push_back({TypeOf(bound), ConstantOf(bound)});
      args.push_back(std::move(bound));
    }
    // NULL branches of if / multiIf / CASE take the default value of the other branches' type.
    is_null.resize(args.size(), false);
    if (std::count(is_null.begin(), is_null.end(), true) > 0) {
      std::optional<TypeId> branch_type;
      for (size_t i = 0; i < args.size(); ++i) {
        if (!is_null[i] && i > 0) branch_type = TypeOf(args[i]);
      }
      if (branch_type) {
        for (size_t i = 0; i < args.size(); ++i) {
          if (is_null[i]) {
            args[i] = DefaultLiteral(*branch_type);
            infos[i] = {*branch_type, ConstantOf(args[i])};
          }
        }
      }
    }
    absl::StatusOr<core::ResolvedFunction> resolved = core::ResolveFunction(e.name, infos);
    if (!resolved.ok()) {
      return core::Error(core::CodeOf(resolved.status()),
                         std::string(resolved.status().message()) + " (at position " +
                             std::to_string(e.position + 1) + ")");
    }
    pb::Expr out;
    out.set_type(static_cast<uint32_t>(resolved->result_type));
    out.mutable_call()->set_name(resolved->name);
    for (auto& arg : args) *out.mutable_call()->add_args() = std::move(arg);
    return out;
  }

  absl::StatusOr<pb::Expr> BindAggregate(const Expr& e) {
    std::string name = e.name;
    if (e.distinct) {
      std::string lower = Lower(name);
      if (lower != "count") {
        return ErrorAt(ErrorCode::kNotImplemented, name + "(DISTINCT ...) is not supported",
                       e.position);
      }
      name = "uniqExact";
    }
    pb::AggregateCall call;
    std::vector<TypeId> arg_types;
    for (const auto& arg : e.args) {
      if (arg->kind == ExprKind::kStar) continue;  // count(*) = count()
      if (ContainsAggregate(*arg)) {
        return ErrorAt(ErrorCode::kIllegalAggregation,
                       "Aggregate function " + sql::ColumnName(*arg) +
                           " is found inside another aggregate function",
                       arg->position);
      }
      ASSIGN_OR_RETURN(pb::Expr bound, BindInput(*arg));
      arg_types.push_back(TypeOf(bound));
      *call.add_args() = std::move(bound);
    }
    absl::StatusOr<core::ResolvedAggregate> resolved = core::ResolveAggregate(name, arg_types);
    if (!resolved.ok()) {
      return core::Error(core::CodeOf(resolved.status()),
                         std::string(resolved.status().message()) + " (at position " +
                             std::to_string(e.position + 1) + ")");
    }
    call.set_name(resolved->name);
    call.set_result_type(static_cast<uint32_t>(resolved->result_type));
    std::string signature = call.SerializeAsString();
    size_t index = 0;
    while (index < aggregates_.size() && aggregate_signatures_[index] != signature) ++index;
    if (index == aggregates_.size()) {
      aggregates_.push_back(call);
      aggregate_signatures_.push_back(signature);
    }
    return MakeColumn(keys_.size() + index, resolved->result_type);
  }

  // Constant after construction.
  std::vector<std::string> table_names_;
  std::vector<TypeId> table_types_;

  std::vector<int> input_index_;  // per table column: its index among source columns, or -1
  size_t source_count_ = 0;
  std::map<std::string, const Expr*> aliases_;
  std::set<std::string> expanding_;
  std::vector<pb::Expr> keys_;
  std::vector<std::string> key_signatures_;
  std::vector<pb::AggregateCall> aggregates_;
  std::vector<std::string> aggregate_signatures_;
};

// Returns the select item a positional reference (GROUP BY 1, ORDER BY 2) points at, or null.
absl::StatusOr<const Expr*> Positional(const Expr& e, const std::vector<sql::ExprPtr>& items) {
  if (e.kind != ExprKind::kLiteral || e.is_null) return nullptr;
  const auto* n = std::get_if<uint64_t>(&e.value);
  if (n == nullptr) return nullptr;
  if (*n < 1 || *n > items.size()) {
    return ErrorAt(ErrorCode::kBadArguments,
                   "Positional argument " + std::to_string(*n) + " is out of bounds: the select list has " +
                       std::to_string(items.size()) + " items",
                   e.position);
  }
  return items[*n - 1].get();
}

absl::StatusOr<uint64_t> NumbersCount(const sql::TableRef& from) {
  if (from.args.size() != 1 || from.args[0]->kind != ExprKind::kLiteral) {
    return ErrorAt(ErrorCode::kNumberOfArgumentsDoesntMatch,
                   "Table function " + from.name + " expects one constant argument: " + from.name + "(N)",
                   from.position);
  }
  const core::Value& v = from.args[0]->value;
  if (const auto* u = std::get_if<uint64_t>(&v)) return *u;
  if (const auto* d = std::get_if<double>(&v); d != nullptr && *d >= 0 && *d < 1.8e19) {
    return static_cast<uint64_t>(*d);
  }
  return ErrorAt(ErrorCode::kBadArguments, "Table function " + from.name + " expects a non-negative number",
                 from.position);
}

}  // namespace

absl::StatusOr<QueryPlan> Binder::Bind(const sql::SelectStatement& select) {
  QueryPlan plan;
  plan.format = select.format;
  for (const auto& [key, value] : select.settings) (*plan.fragment.mutable_settings())[key] = value;
  std::vector<std::string> names;
  std::vector<TypeId> types;
  pb::Source* source = plan.fragment.mutable_source();
  std::optional<pb::TableSchema> table_schema;  // the table read, if any
  if (!select.from) {
    plan.source = SourceKind::kLocal;
    plan.local_input.rows_without_columns = 1;
  } else {
    const sql::TableRef& from = *select.from;
    if (from.is_function) {
      std::string lower = Lower(from.name);
      if (lower != "numbers" && lower != "numbers_mt") {
        return ErrorAt(ErrorCode::kUnknownFunction, "Unknown table function " + from.name, from.position);
      }
      ASSIGN_OR_RETURN(uint64_t count, NumbersCount(from));
      source->mutable_numbers()->set_count(count);
      source->mutable_numbers()->set_multithreaded(lower == "numbers_mt");
      plan.ordered_source = lower == "numbers";
      names = {"number"};
      types = {TypeId::kUInt64};
    } else if (from.database == "system") {
      ASSIGN_OR_RETURN(LocalTable table, system_tables_(from.name));
      plan.source = SourceKind::kLocal;
      names = table.names;
      types = table.types;
      plan.local_input = std::move(table.block);
    } else {
      if (!from.database.empty() && from.database != "default") {
        return ErrorAt(ErrorCode::kUnknownTable, "Database " + from.database + " does not exist",
                       from.position);
      }
      std::optional<pb::TableSchema> schema = catalog_->Find(from.name);
      if (!schema) {
        return ErrorAt(ErrorCode::kUnknownTable, "Table default." + from.name + " does not exist",
                       from.position);
      }
      source->set_table(from.name);
      for (const auto& column : schema->columns()) {
        names.push_back(column.name());
        types.push_back(static_cast<TypeId>(column.type()));
      }
      table_schema = std::move(schema);
    }
  }

  // SELECT * expands to every column, in table order.
  std::vector<sql::ExprPtr> items;
  for (const auto& item : select.select) {
    if (item->kind != ExprKind::kStar) {
      items.push_back(item);
      continue;
    }
    for (const std::string& name : names) {
      auto column = std::make_shared<Expr>();
      column->kind = ExprKind::kIdentifier;
      column->name = name;
      column->position = item->position;
      items.push_back(column);
    }
  }
  if (items.empty()) {
    return core::Error(ErrorCode::kEmptyListOfColumnsPassed, "Empty list of columns in SELECT query");
  }

  SelectBinder binder(names, types);
  for (const auto& item : items) binder.AddAlias(*item);
  for (const auto& item : items) {
    plan.names.push_back(item->alias.empty() ? sql::ColumnName(*CanonicalForName(*item))
                                             : item->alias);
  }

  bool aggregating = !select.group_by.empty() || select.distinct || select.having != nullptr;
  for (const auto& item : items) aggregating = aggregating || binder.ContainsAggregate(*item);
  for (const auto& order : select.order_by) {
    aggregating = aggregating || binder.ContainsAggregate(*order.expr);
  }

  if (select.where) {
    if (binder.ContainsAggregate(*select.where)) {
      return ErrorAt(ErrorCode::kIllegalAggregation, "Aggregate function is found in WHERE",
                     select.where->position);
    }
    ASSIGN_OR_RETURN(pb::Expr filter, binder.BindInput(*select.where));
    if (TypeOf(filter) != TypeId::kUInt8) {
      if (!core::IsNumeric(TypeOf(filter))) {
        return ErrorAt(ErrorCode::kIllegalTypeOfArgument,
                       "Illegal type " + std::string(core::TypeName(TypeOf(filter))) +
                           " of column for filter: it must be a number",
                       select.where->position);
      }
      pb::Expr wrapped;
      wrapped.set_type(static_cast<uint32_t>(TypeId::kUInt8));
      wrapped.mutable_call()->set_name("notEquals");
      *wrapped.mutable_call()->add_args() = filter;
      *wrapped.mutable_call()->add_args() = MakeLiteral(uint64_t{0}, TypeId::kUInt8);
      filter = wrapped;
    }
    *plan.fragment.mutable_filter() = std::move(filter);
  }

  // ORDER BY items resolved to expressions (positions refer to select items).
  std::vector<const Expr*> order_exprs;
  for (const auto& order : select.order_by) {
    ASSIGN_OR_RETURN(const Expr* positional, Positional(*order.expr, items));
    order_exprs.push_back(positional ? positional : order.expr.get());
  }

  if (aggregating) {
    if (select.distinct && !select.group_by.empty()) {
      return core::Error(ErrorCode::kNotImplemented, "SELECT DISTINCT with GROUP BY is not supported");
    }
    if (select.distinct) {
      for (const auto& item : items) RETURN_IF_ERROR(binder.AddKey(*item));
    }
    for (const auto& key : select.group_by) {
      ASSIGN_OR_RETURN(const Expr* positional, Positional(*key, items));
      RETURN_IF_ERROR(binder.AddKey(positional ? *positional : *key));
    }
    auto eliminate = plan.fragment.settings().find("optimize_group_by_function_keys");
    if (eliminate == plan.fragment.settings().end() ||
        (eliminate->second != "0" && Lower(eliminate->second) != "false")) {
      binder.DropDependentKeys();
    }
    for (const auto& item : items) {
      ASSIGN_OR_RETURN(pb::Expr bound, binder.BindPostAggregation(*item));
      plan.types.push_back(TypeOf(bound));
      plan.final_exprs.push_back(std::move(bound));
    }
    if (select.having) {
      ASSIGN_OR_RETURN(plan.having, binder.BindPostAggregation(*select.having));
      plan.has_having = true;
    }
    for (size_t i = 0; i < order_exprs.size(); ++i) {
      ASSIGN_OR_RETURN(pb::Expr bound, binder.BindPostAggregation(*order_exprs[i]));
      std::string signature = bound.SerializeAsString();
      size_t index = 0;
      while (index < plan.final_exprs.size() &&
             plan.final_exprs[index].SerializeAsString() != signature) {
        ++index;
      }
      if (index == plan.final_exprs.size()) plan.final_exprs.push_back(std::move(bound));
      plan.order.push_back({index, select.order_by[i].descending});
    }
    plan.fragment.set_aggregate(true);
    for (const auto& key : binder.keys()) *plan.fragment.add_group_keys() = key;
    for (const auto& call : binder.aggregates()) *plan.fragment.add_aggregates() = call;
  } else {
    std::vector<std::string> signatures;
    for (const auto& item : items) {
      ASSIGN_OR_RETURN(pb::Expr bound, binder.BindInput(*item));
      plan.types.push_back(TypeOf(bound));
      signatures.push_back(bound.SerializeAsString());
      *plan.fragment.add_projections() = std::move(bound);
    }
    for (size_t i = 0; i < order_exprs.size(); ++i) {
      ASSIGN_OR_RETURN(pb::Expr bound, binder.BindInput(*order_exprs[i]));
      std::string signature = bound.SerializeAsString();
      size_t index = std::find(signatures.begin(), signatures.end(), signature) - signatures.begin();
      if (index == signatures.size()) {
        signatures.push_back(signature);
        *plan.fragment.add_projections() = std::move(bound);
      }
      plan.order.push_back({index, select.order_by[i].descending});
      pb::SortKey* key = plan.fragment.add_order_by();
      key->set_column(index);
      key->set_descending(select.order_by[i].descending);
    }
    for (int i = 0; i < plan.fragment.projections_size(); ++i) {
      plan.final_exprs.push_back(MakeColumn(i, TypeOf(plan.fragment.projections(i))));
    }
    if (select.limit) plan.fragment.set_limit(*select.limit + select.offset.value_or(0));
  }
  plan.visible = items.size();
  if (select.limit) {
    plan.has_limit = true;
    plan.limit = *select.limit;
  }
  plan.offset = select.offset.value_or(0);

  // The source columns every expression above refers to, in input order.
  std::vector<size_t> positions = binder.SourcePositions();
  if (source->has_numbers() || source->kind_case() == pb::Source::KIND_NOT_SET) {
    // numbers(N) always yields its one column; local inputs are filtered below.
  }
  for (const std::string& column : binder.SourceColumns()) source->add_columns(column);
  if (plan.source == SourceKind::kLocal && !plan.local_input.columns.empty()) {
    core::Block input;
    input.rows_without_columns = plan.local_input.rows();
    for (size_t position : positions) input.columns.push_back(plan.local_input.columns[position]);
    plan.local_input = std::move(input);
  }
  PlanBoundedAggregation(&plan.fragment, table_schema ? &*table_schema : nullptr, worker_count_);
  ASSIGN_OR_RETURN(uint64_t hash_filter_groups, DecideGroupLimitHashFilter(plan));
  plan.fragment.set_group_limit_hash_filter(hash_filter_groups);
  // GROUP BY ... LIMIT without ORDER BY: the key-hash filter aggregates only a few groups, far
  // cheaper than finalizing every group on the workers, so it wins when both rules apply.
  if (table_schema && plan.fragment.aggregate() && hash_filter_groups == 0) {
    plan.fragment.set_finalize_on_worker(
        DecideShardLocalAggregation(plan.fragment, *table_schema, worker_count_).fire);
    PlanShardLocalTopN(&plan);
  }
  return plan;
}

}  // namespace granite::coordinator
