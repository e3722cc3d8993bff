// Binder implementation: source resolution (table, table function, system table) and assembly of
// the QueryPlan, clause by clause; expressions are bound by SelectBinder (select_binder.h).
#include "coordinator/planner/binder.h"

#include "coordinator/cluster/table_name.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/functions/expr_builder.h"
#include "core/status_macros.h"
#include "core/table_functions/table_function.h"
#include "coordinator/planner/column_expressions.h"
#include "coordinator/planner/filter_condition.h"
#include "coordinator/planner/rules/rule.h"
#include "coordinator/planner/select_binder.h"
#include "core/time_zone.h"
#include "coordinator/sql/parser.h"

namespace granite::coordinator {

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

// Returns the value of a table function's argument: a literal, or a query parameter of a
// number or String type, which exec/query_parameters.h turned into CAST('<text>', 'Type') after
// checking that the text parses as Type (numbers({n:UInt64}), as ClickHouse allows). Else
// nullopt.
std::optional<core::Value> TableFunctionArgument(const Expr& arg) {
  if (arg.kind == ExprKind::kLiteral) {
    if (arg.is_null) return std::nullopt;
    return arg.value;
  }
  if (arg.kind != ExprKind::kFunction || arg.name != "CAST" || arg.args.size() != 2) {
    return std::nullopt;
  }
  const Expr& text = *arg.args[0];
  const Expr& type_name = *arg.args[1];
  const auto* value = std::get_if<std::string>(&text.value);
  const auto* type_text = std::get_if<std::string>(&type_name.value);
  if (text.kind != ExprKind::kLiteral || type_name.kind != ExprKind::kLiteral || value == nullptr ||
      type_text == nullptr) {
    return std::nullopt;
  }
  absl::StatusOr<TypeId> type = core::ParseType(*type_text);
  if (!type.ok() || core::IsNullable(*type) || core::IsDateOrDateTime(*type)) return std::nullopt;
  absl::string_view digits = absl::StripAsciiWhitespace(*value);
  const bool negative = !digits.empty() && digits[0] == '-';
  if (core::IsUnsignedInteger(*type) || (core::IsSignedInteger(*type) && !negative)) {
    uint64_t n = 0;
    if (absl::SimpleAtoi(digits, &n)) return core::Value(n);
  } else if (core::IsSignedInteger(*type)) {
    int64_t n = 0;
    if (absl::SimpleAtoi(digits, &n)) return core::Value(n);
  } else if (core::IsFloat(*type)) {
    double d = 0;
    if (absl::SimpleAtod(digits, &d)) return core::Value(d);
  } else if (core::IsString(*type)) {
    return core::Value(*value);
  }
  return std::nullopt;
}

// Binds FROM f(...) through the table-function registry: the arguments must be literals (or query
// parameters: TableFunctionArgument).
absl::StatusOr<const core::TableFunction*> BindTableFunction(const sql::TableRef& from,
                                                            core::plan::TableFunctionCall* out) {
  const core::TableFunction* function = core::FindTableFunction(from.name);
  if (function == nullptr) {
    return ErrorAt(ErrorCode::kUnknownFunction, "Unknown table function " + from.name, from.position);
  }
  std::vector<core::Value> args;
  for (size_t i = 0; i < from.args.size(); ++i) {
    const Expr& arg = *from.args[i];
    std::optional<core::Value> value = TableFunctionArgument(arg);
    if (!value.has_value()) {
      return ErrorAt(ErrorCode::kBadArguments,
                     "Argument " + std::to_string(i + 1) + " of table function '" +
                         std::string(function->name) + "' must be a literal number, got " +
                         (arg.is_null ? "NULL" : sql::ColumnName(arg)),
                     arg.position);
    }
    args.push_back(*std::move(value));
  }
  absl::StatusOr<core::TableFunctionArgs> bound = function->bind(function->name, args);
  if (!bound.ok()) {
    return ErrorAt(core::CodeOf(bound.status()), std::string(bound.status().message()),
                   from.position);
  }
  out->name = std::string(function->name);
  out->args = *std::move(bound);
  return function;
}

// Returns the select list with `*` expanded to every source column, in source order (a joined
// source: each column named with its relation's qualifier, hidden ones left out).
std::vector<sql::ExprPtr> ExpandStar(const sql::SelectStatement& select,
                                     const std::vector<std::string>& names,
                                     const std::vector<std::string>& qualifiers,
                                     const std::vector<bool>& hidden) {
  std::vector<sql::ExprPtr> items;
  for (const auto& item : select.select) {
    if (item->kind != ExprKind::kStar) {
      items.push_back(item);
      continue;
    }
    for (size_t i = 0; i < names.size(); ++i) {
      if (!hidden.empty() && hidden[i]) continue;
      // t.* over a join: the columns of relation t only.
      if (!item->qualifier.empty() && !qualifiers.empty() && qualifiers[i] != item->qualifier) {
        continue;
      }
      auto column = std::make_shared<Expr>();
      column->kind = ExprKind::kIdentifier;
      column->name = names[i];
      if (!qualifiers.empty()) {
        column->qualifier = qualifiers[i];
        // A name an earlier column has is shown qualified, as ClickHouse shows `b.k`.
        bool repeated = false;
        for (size_t j = 0; j < i; ++j) {
          repeated = repeated || (names[j] == names[i] && (hidden.empty() || !hidden[j]));
        }
        if (repeated) column->alias = qualifiers[i] + "." + names[i];
      }
      column->position = item->position;
      items.push_back(column);
    }
  }
  return items;
}

// Returns where `bound` is in `exprs`, appending it when absent.
size_t IndexOrAppend(std::vector<core::plan::Expr>* exprs, core::plan::Expr bound) {
  size_t index = std::find(exprs->begin(), exprs->end(), bound) - exprs->begin();
  if (index == exprs->size()) exprs->push_back(std::move(bound));
  return index;
}

// Tells `binder` which qualifiers name the source's columns (a joined source's own, else the
// table's name, alias and database-qualified name).
void DeclareQualifiers(const sql::SelectStatement& select,
                       const std::vector<std::string>& qualifiers, const std::vector<bool>& hidden,
                       SelectBinder* binder) {
  if (!qualifiers.empty()) binder->SetQualifiers(qualifiers, hidden);
  if (qualifiers.empty() && select.from && !select.from->subquery) {
    const sql::TableRef& from = *select.from;
    std::vector<std::string> accepted = {from.name};
    if (!from.alias.empty()) accepted.push_back(from.alias);
    accepted.push_back((from.database.empty() ? "default" : from.database) + "." + from.name);
    binder->SetSingleQualifiers(std::move(accepted));
  }
}

// Tells `binder` the aliases every clause may use: WITH expressions, then the select items.
void DeclareAliases(const sql::SelectStatement& select, const std::vector<sql::ExprPtr>& items,
                    SelectBinder* binder) {
  // WITH expr AS name: an alias every clause may use, not a result column.
  for (const sql::WithItem& with : select.with) {
    if (with.expr) binder->AddAlias(*with.expr);
  }
  for (const auto& item : items) binder->AddAlias(*item);
}

// `first` AND `second` (either may be absent) as one filter condition.
std::optional<core::plan::Expr> AndFilters(std::optional<core::plan::Expr> first,
                                           std::optional<core::plan::Expr> second) {
  if (!first || !second) return first ? std::move(first) : std::move(second);
  core::plan::Expr both;
  both.kind = core::plan::Expr::Kind::kCall;
  both.function = "and";
  both.type = core::WithNullable(core::TypeId::kUInt8,
                                 core::IsNullable(first->type) || core::IsNullable(second->type));
  both.args.push_back(*std::move(first));
  both.args.push_back(*std::move(second));
  return both;
}

// True when the SELECT aggregates: GROUP BY, DISTINCT, HAVING, or an aggregate call in a select
// item or an ORDER BY expression.
bool IsAggregating(const sql::SelectStatement& select, const std::vector<sql::ExprPtr>& items,
                   SelectBinder& binder) {
  bool aggregating = !select.group_by.empty() || select.distinct || select.having != nullptr;
  for (const auto& item : items) aggregating = aggregating || binder.ContainsAggregate(*item);
  for (const auto& order : select.order_by) {
    aggregating = aggregating || binder.ContainsAggregate(*order.expr);
  }
  return aggregating;
}

// Keeps of a coordinator-local input only the columns at `positions` (those the plan reads).
void NarrowLocalInput(const std::vector<size_t>& positions, QueryPlan* plan) {
  if (plan->source != SourceKind::kLocal || plan->local_input.columns.empty()) return;
  core::Block input;
  input.rows_without_columns = plan->local_input.rows();
  for (size_t position : positions) input.columns.push_back(plan->local_input.columns[position]);
  plan->local_input = std::move(input);
}

}  // namespace

absl::StatusOr<QueryPlan> Binder::Bind(const sql::SelectStatement& select,
                                       std::optional<LocalTable> materialized,
                                       const BroadcastSource* broadcast) {
  QueryPlan plan;
  plan.format = select.format;
  plan.settings = settings_;
  RETURN_IF_ERROR(plan.settings.Apply(select.settings));
  ASSIGN_OR_RETURN(Source source, broadcast ? BindBroadcastSource(*broadcast, &plan)
                                            : BindSource(select, std::move(materialized), &plan));
  if (!select.array_joins.empty()) {
    return core::Error(ErrorCode::kLogicalError, "ARRAY JOIN was not folded into a subquery");
  }
  // SELECT * leaves out hidden columns and those only a name finds (star_hidden).
  std::vector<bool> unstarred = source.hidden;
  if (!source.star_hidden.empty()) {
    unstarred.resize(source.names.size(), false);
    for (size_t i = 0; i < source.star_hidden.size(); ++i) {
      unstarred[i] = unstarred[i] || source.star_hidden[i];
    }
  }
  std::vector<sql::ExprPtr> items = ExpandStar(select, source.names, source.qualifiers, unstarred);
  if (items.empty()) {
    return core::Error(ErrorCode::kEmptyListOfColumnsPassed, "Empty list of columns in SELECT query");
  }
  SelectBinder binder(source.names, source.types);
  if (!plan.settings.session_timezone.empty()) {
    ASSIGN_OR_RETURN(const uint32_t zone, core::TimeZoneId(plan.settings.session_timezone));
    binder.set_session_time_zone(zone);
  }
  if (!source.computed.empty()) binder.SetComputedColumns(source.computed);
  // The table column behind each source column: the table's own, or a join's probe columns.
  std::vector<const core::ColumnSchema*> table_columns;
  if (source.table && source.table->columns.size() == source.names.size()) {
    for (const core::ColumnSchema& column : source.table->columns) table_columns.push_back(&column);
  } else if (source.table && source.slots.size() == source.names.size()) {
    for (const auto& [table, column] : source.slots) {
      const bool probe = table == 0 && column < source.table->columns.size();
      table_columns.push_back(probe ? &source.table->columns[column] : nullptr);
    }
  }
  if (!table_columns.empty()) {
    std::vector<std::string> declared;
    bool any = false;
    std::vector<std::optional<core::EnumType>> enums;
    bool any_enum = false;
    for (const core::ColumnSchema* column_schema : table_columns) {
      static const core::ColumnSchema kPlain;
      const core::ColumnSchema& column = column_schema ? *column_schema : kPlain;
      const bool declared_differs = column.low_cardinality || column.enum_type.has_value();
      declared.push_back(declared_differs ? column.DeclaredTypeName() : std::string());
      any = any || declared_differs;
      enums.push_back(column.enum_type);
      any_enum = any_enum || column.enum_type.has_value();
    }
    if (any) binder.SetDeclaredTypeNames(std::move(declared));
    if (any_enum) binder.SetEnumTypes(std::move(enums));
  }
  DeclareQualifiers(select, source.qualifiers, source.hidden, &binder);
  // Bound before the SELECT's aliases exist: the policy sees the table's columns only.
  std::optional<core::plan::Expr> row_policy;
  if (source.row_policy) {
    ASSIGN_OR_RETURN(core::plan::Expr bound, binder.BindInput(*source.row_policy));
    ASSIGN_OR_RETURN(row_policy, AsFilterCondition(std::move(bound), "a row policy",
                                                   source.row_policy->position));
  }
  DeclareAliases(select, items, &binder);
  for (const auto& item : items) {
    plan.names.push_back(item->alias.empty() ? sql::ColumnName(*CanonicalForName(*item))
                                             : item->alias);
  }
  const bool aggregating = IsAggregating(select, items, binder);
  if (select.where) RETURN_IF_ERROR(BindWhere(*select.where, binder, &plan));
  // ORDER BY items resolved to expressions (positions refer to select items).
  std::vector<const Expr*> order_exprs;
  for (const auto& order : select.order_by) {
    ASSIGN_OR_RETURN(const Expr* positional, Positional(*order.expr, items));
    order_exprs.push_back(positional ? positional : order.expr.get());
  }
  if (aggregating) {
    RETURN_IF_ERROR(BindAggregation(select, items, order_exprs, binder, &plan));
  } else {
    RETURN_IF_ERROR(BindProjection(select, items, order_exprs, binder, &plan));
  }
  plan.visible = items.size();
  plan.has_limit = select.limit.has_value();
  plan.limit = select.limit.value_or(0);
  plan.offset = select.offset.value_or(0);
  // The source columns every expression above refers to, in input order (with broadcast joins,
  // in the order of the workers' joined block).
  if (broadcast) {
    RETURN_IF_ERROR(BindJoins(*broadcast, source, binder, &plan));
  } else {
    plan.fragment.scan.columns = binder.SourceColumns();
  }
  // The rows read pass the policy first (a join's probe filter, else the WHERE).
  if (row_policy) plan.fragment.filter = AndFilters(std::move(row_policy), plan.fragment.filter);
  NarrowLocalInput(binder.SourcePositions(), &plan);
  plan.fragment.settings = plan.settings;
  // A shuffle join moves the probe rows off their shard: rules that rely on where the table's
  // rows live (its sharding key) see no table.
  const bool placed = source.table && !plan.fragment.shuffling();
  ApplyPlannerRules(&plan, RuleContext{placed ? &*source.table : nullptr, worker_count_});
  return plan;
}

absl::StatusOr<Binder::Source> Binder::BindSource(const sql::SelectStatement& select,
                                                  std::optional<LocalTable> materialized,
                                                  QueryPlan* plan) {
  Source source;
  if (materialized) {
    plan->source = SourceKind::kLocal;
    source.names = std::move(materialized->names);
    source.types = std::move(materialized->types);
    source.qualifiers = std::move(materialized->qualifiers);
    source.hidden = std::move(materialized->hidden);
    source.star_hidden = std::move(materialized->star_hidden);
    plan->local_input = std::move(materialized->block);
    return source;
  }
  if (!select.from) {
    plan->source = SourceKind::kLocal;
    plan->local_input.rows_without_columns = 1;
    return source;
  }
  const sql::TableRef& from = *select.from;
  if (from.subquery || !select.joins.empty()) {
    return core::Error(ErrorCode::kLogicalError, "FROM with a subquery or joins was not materialized");
  }
  if (from.is_function) {
    core::plan::TableFunctionCall call;
    ASSIGN_OR_RETURN(const core::TableFunction* function, BindTableFunction(from, &call));
    plan->fragment.scan.function = std::move(call);
    plan->ordered_source = function->ordered;
    for (const core::TableFunctionColumn& column : function->columns) {
      source.names.emplace_back(column.name);
      source.types.push_back(column.type);
    }
    return source;
  }
  RETURN_IF_ERROR(BindTable(from, plan, &source));
  return source;
}

absl::Status Binder::BindTable(const sql::TableRef& from, QueryPlan* plan, Source* source) {
  const std::string database = from.database.empty() ? current_database_ : from.database;
  if (database == kSystemDatabase) {
    ASSIGN_OR_RETURN(LocalTable table, system_tables_(from.name));
    plan->source = SourceKind::kLocal;
    source->names = table.names;
    source->types = table.types;
    plan->local_input = std::move(table.block);
    return absl::OkStatus();
  }
  if (!catalog_->HasDatabase(database)) {
    return ErrorAt(ErrorCode::kUnknownDatabase, "Database " + database + " does not exist",
                   from.position);
  }
  const std::string table = CatalogTableName(database, from.name);
  absl::StatusOr<core::TableSchema> found = catalog_->Lookup(table);
  if (!found.ok()) {
    return ErrorAt(core::CodeOf(found.status()), std::string(found.status().message()),
                   from.position);
  }
  plan->fragment.scan.table = table;
  bool star_hidden = false;
  for (const core::ColumnSchema& column : found->columns) {
    source->names.push_back(column.name);
    source->types.push_back(column.type);
    const bool hidden = column.default_kind == core::DefaultKind::kMaterialized ||
                        column.default_kind == core::DefaultKind::kAlias;
    source->star_hidden.push_back(hidden);
    star_hidden = star_hidden || hidden;
  }
  if (!star_hidden) source->star_hidden.clear();
  source->computed = AliasExpressions(*found);
  source->table = *std::move(found);
  if (row_policies_) {
    ASSIGN_OR_RETURN(source->row_policy, row_policies_(database, from.name));
  }
  return absl::OkStatus();
}

absl::Status Binder::BindWhere(const sql::Expr& where, SelectBinder& binder, QueryPlan* plan) {
  if (binder.ContainsAggregate(where)) {
    return ErrorAt(ErrorCode::kIllegalAggregation, "Aggregate function is found in WHERE",
                   where.position);
  }
  ASSIGN_OR_RETURN(core::plan::Expr bound, binder.BindInput(where));
  ASSIGN_OR_RETURN(core::plan::Expr filter,
                   AsFilterCondition(std::move(bound), "WHERE", where.position));
  plan->fragment.filter = std::move(filter);
  return absl::OkStatus();
}

// Arrays have no key layout (hash tables, row keys) or sort order in granite yet: a GROUP BY,
// DISTINCT or ORDER BY over one is refused here, before any kernel could see it.
namespace {
absl::Status RefuseArrayKey(core::TypeId type, std::string_view clause) {
  if (!core::IsArray(type)) return absl::OkStatus();
  return core::Error(ErrorCode::kNotImplemented,
                     absl::StrCat(core::ToAbsl(clause), " over a value of type ",
                                  core::ToAbsl(core::TypeName(type)),
                                  " is not supported yet"));
}
}  // namespace

absl::Status Binder::BindAggregation(const sql::SelectStatement& select,
                                     const std::vector<sql::ExprPtr>& items,
                                     const std::vector<const Expr*>& order_exprs,
                                     SelectBinder& binder, QueryPlan* plan) {
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
  // Binding-time rules (select_binder.h), recorded like the planner rules for EXPLAIN.
  if (plan->settings.optimize_group_by_function_keys && binder.DropDependentKeys()) {
    plan->rules_fired.push_back("dependent_keys");
  }
  binder.set_rewrite_sum_of_affine(
      plan->settings.optimize_arithmetic_operations_in_aggregate_functions);
  for (const auto& item : items) {
    ASSIGN_OR_RETURN(core::plan::Expr bound, binder.BindPostAggregation(*item));
    plan->types.push_back(bound.type);
    plan->final_exprs.push_back(std::move(bound));
  }
  if (select.having) {
    ASSIGN_OR_RETURN(core::plan::Expr having, binder.BindPostAggregation(*select.having));
    ASSIGN_OR_RETURN(plan->having,
                     AsFilterCondition(std::move(having), "HAVING", select.having->position));
    plan->has_having = true;
  }
  for (size_t i = 0; i < order_exprs.size(); ++i) {
    ASSIGN_OR_RETURN(core::plan::Expr bound, binder.BindPostAggregation(*order_exprs[i]));
    bound = core::plan::Expr(EnumValuesOrSelf(bound));  // enums sort by value
    RETURN_IF_ERROR(RefuseArrayKey(bound.type, "ORDER BY"));
    size_t index = IndexOrAppend(&plan->final_exprs, std::move(bound));
    plan->order.push_back(
        {index, select.order_by[i].descending, select.order_by[i].nulls_first.value_or(false)});
  }
  if (binder.rewrote_sum_of_affine()) plan->rules_fired.push_back("sum_of_affine");
  for (const auto& key : binder.keys()) {
    RETURN_IF_ERROR(RefuseArrayKey(key.type, select.distinct ? "DISTINCT" : "GROUP BY"));
  }
  core::plan::Aggregate aggregate;
  aggregate.keys = binder.keys();
  aggregate.calls = binder.aggregates();
  plan->fragment.aggregate = std::move(aggregate);
  return absl::OkStatus();
}

absl::Status Binder::BindProjection(const sql::SelectStatement& select,
                                    const std::vector<sql::ExprPtr>& items,
                                    const std::vector<const Expr*>& order_exprs,
                                    SelectBinder& binder, QueryPlan* plan) {
  core::plan::Fragment& fragment = plan->fragment;
  for (const auto& item : items) {
    ASSIGN_OR_RETURN(core::plan::Expr bound, binder.BindInput(*item));
    plan->types.push_back(bound.type);
    fragment.projections.push_back(std::move(bound));
  }
  for (size_t i = 0; i < order_exprs.size(); ++i) {
    ASSIGN_OR_RETURN(core::plan::Expr bound, binder.BindInput(*order_exprs[i]));
    bound = core::plan::Expr(EnumValuesOrSelf(bound));  // enums sort by value
    RETURN_IF_ERROR(RefuseArrayKey(bound.type, "ORDER BY"));
    // Equal expressions share one projection (items come first, so duplicates among them stay).
    size_t index = IndexOrAppend(&fragment.projections, std::move(bound));
    const bool nulls_first = select.order_by[i].nulls_first.value_or(false);
    plan->order.push_back({index, select.order_by[i].descending, nulls_first});
    fragment.order_by.push_back(core::plan::SortKey{static_cast<uint32_t>(index),
                                                    select.order_by[i].descending, nulls_first});
  }
  for (size_t i = 0; i < fragment.projections.size(); ++i) {
    plan->final_exprs.push_back(core::Col(static_cast<uint32_t>(i), fragment.projections[i].type));
  }
  if (select.limit) fragment.limit = *select.limit + select.offset.value_or(0);
  return absl::OkStatus();
}

}  // namespace granite::coordinator
