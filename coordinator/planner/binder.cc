// Binder implementation: source resolution (table, table function, system table) and assembly of
// the QueryPlan, clause by clause; expressions are bound by SelectBinder (select_binder.h).
#include "coordinator/planner/binder.h"

#include <algorithm>
#include <limits>

#include "absl/strings/ascii.h"
#include "core/error.h"
#include "core/functions/expr_builder.h"
#include "core/status_macros.h"
#include "core/table_functions/table_function.h"
#include "coordinator/planner/distinct_planner.h"
#include "coordinator/planner/filter_condition.h"
#include "coordinator/planner/group_limit_hash_filter.h"
#include "coordinator/planner/select_binder.h"
#include "coordinator/planner/shard_local_aggregation.h"
#include "coordinator/planner/shard_local_top_n.h"
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

// Binds FROM f(...) through the table-function registry: the arguments must be literals.
absl::StatusOr<const core::TableFunction*> BindTableFunction(const sql::TableRef& from,
                                                            pb::TableFunctionSource* out) {
  const core::TableFunction* function = core::FindTableFunction(from.name);
  if (function == nullptr) {
    return ErrorAt(ErrorCode::kUnknownFunction, "Unknown table function " + from.name, from.position);
  }
  std::vector<core::Value> args;
  for (size_t i = 0; i < from.args.size(); ++i) {
    const Expr& arg = *from.args[i];
    if (arg.kind != ExprKind::kLiteral || arg.is_null) {
      return ErrorAt(ErrorCode::kBadArguments,
                     "Argument " + std::to_string(i + 1) + " of table function '" +
                         std::string(function->name) + "' must be a literal number, got " +
                         (arg.is_null ? "NULL" : sql::ColumnName(arg)),
                     arg.position);
    }
    args.push_back(arg.value);
  }
  absl::StatusOr<core::TableFunctionArgs> bound = function->bind(function->name, args);
  if (!bound.ok()) {
    return ErrorAt(core::CodeOf(bound.status()), std::string(bound.status().message()),
                   from.position);
  }
  out->set_name(std::string(function->name));
  for (uint64_t v : *bound) out->add_args(v);
  return function;
}

}  // namespace

absl::StatusOr<QueryPlan> Binder::Bind(const sql::SelectStatement& select) {
  QueryPlan plan;
  plan.format = select.format;
  plan.settings = settings_;
  RETURN_IF_ERROR(plan.settings.Apply(select.settings));
  for (const auto& [name, value] : plan.settings.Changes()) {
    (*plan.fragment.mutable_settings())[name] = value;
  }
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
      ASSIGN_OR_RETURN(const core::TableFunction* function,
                       BindTableFunction(from, source->mutable_function()));
      plan.ordered_source = function->ordered;
      for (const core::TableFunctionColumn& column : function->columns) {
        names.emplace_back(column.name);
        types.push_back(column.type);
      }
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
      absl::StatusOr<pb::TableSchema> found = catalog_->Lookup(from.name);
      if (!found.ok()) {
        return ErrorAt(core::CodeOf(found.status()), std::string(found.status().message()),
                       from.position);
      }
      std::optional<pb::TableSchema> schema = *std::move(found);
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
      *wrapped.mutable_call()->add_args() = core::Lit(uint64_t{0}, TypeId::kUInt8);
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
    if (plan.settings.optimize_group_by_function_keys) binder.DropDependentKeys();
    for (const auto& item : items) {
      ASSIGN_OR_RETURN(pb::Expr bound, binder.BindPostAggregation(*item));
      plan.types.push_back(TypeOf(bound));
      plan.final_exprs.push_back(std::move(bound));
    }
    if (select.having) {
      ASSIGN_OR_RETURN(pb::Expr having, binder.BindPostAggregation(*select.having));
      ASSIGN_OR_RETURN(plan.having,
                       AsFilterCondition(std::move(having), "HAVING", select.having->position));
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
      plan.final_exprs.push_back(core::Col(i, TypeOf(plan.fragment.projections(i))));
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
  for (const std::string& column : binder.SourceColumns()) source->add_columns(column);
  if (plan.source == SourceKind::kLocal && !plan.local_input.columns.empty()) {
    core::Block input;
    input.rows_without_columns = plan.local_input.rows();
    for (size_t position : positions) input.columns.push_back(plan.local_input.columns[position]);
    plan.local_input = std::move(input);
  }
  PlanBoundedAggregation(&plan.fragment, table_schema ? &*table_schema : nullptr, worker_count_,
                         plan.settings);
  ASSIGN_OR_RETURN(uint64_t hash_filter_groups, DecideGroupLimitHashFilter(plan));
  plan.fragment.set_group_limit_hash_filter(hash_filter_groups);
  // GROUP BY ... LIMIT without ORDER BY: the key-hash filter aggregates only a few groups, far
  // cheaper than finalizing every group on the workers, so it wins when both rules apply.
  if (table_schema && plan.fragment.aggregate() && hash_filter_groups == 0) {
    plan.fragment.set_finalize_on_worker(
        DecideShardLocalAggregation(plan.fragment, *table_schema, worker_count_, plan.settings).fire);
    PlanShardLocalTopN(&plan);
  }
  return plan;
}

}  // namespace granite::coordinator
