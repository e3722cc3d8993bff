// QueryExecutor::SelectWithFill: ORDER BY ... WITH FILL [FROM] [TO] [STEP] and INTERPOLATE, as
// ClickHouse runs them: the SELECT runs without the fill (its LIMIT widened to LIMIT + OFFSET,
// which is exact: the first n rows out of the fill come from at most the first n sorted rows),
// then exec/with_fill.h adds the rows, then OFFSET and LIMIT apply.
#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "coordinator/exec/query_executor.h"
#include "coordinator/exec/with_fill.h"
#include "coordinator/planner/binder.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"
#include "core/expression.h"
#include "core/function_error_codes.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

absl::Status FillError(const std::string& message) {
  return core::Error(core::kInvalidWithFillExpression, message);
}

// A STEP written INTERVAL n UNIT: the unit's name (lower case) and n; nullopt for a plain step.
std::optional<std::pair<std::string, sql::ExprPtr>> IntervalStep(const sql::Expr& step) {
  if (step.kind != sql::ExprKind::kFunction || step.args.size() != 1 ||
      !absl::StartsWithIgnoreCase(step.name, "toInterval")) {
    return std::nullopt;
  }
  return std::make_pair(absl::AsciiStrToLower(step.name.substr(10)), step.args[0]);
}

// The step of an INTERVAL unit in a column's coordinate units: seconds for DateTime, days for
// Date; `months` instead for month, quarter and year.
absl::Status IntervalUnits(const std::string& unit, double count, TypeId column, FillLevel* level) {
  const bool date = core::BaseOf(column) == TypeId::kDate;
  const bool date_time = core::BaseOf(column) == TypeId::kDateTime;
  if (!date && !date_time) {
    return FillError("WITH FILL STEP INTERVAL needs a Date or DateTime column, not " +
                     std::string(core::TypeName(column)));
  }
  if (count != std::floor(count)) return FillError("WITH FILL STEP INTERVAL must be whole");
  if (unit == "month" || unit == "quarter" || unit == "year") {
    const int per_unit = unit == "month" ? 1 : unit == "quarter" ? 3 : 12;
    level->months = static_cast<int32_t>(count * per_unit);
    level->step = 0;
    return absl::OkStatus();
  }
  double seconds = 0;
  if (unit == "second") seconds = 1;
  if (unit == "minute") seconds = 60;
  if (unit == "hour") seconds = 3600;
  if (unit == "day") seconds = 86400;
  if (unit == "week") seconds = 7 * 86400;
  if (seconds == 0) {
    return FillError("WITH FILL STEP INTERVAL of unit " + unit + " is not supported");
  }
  if (date && seconds < 86400) {
    return FillError("WITH FILL STEP INTERVAL " + unit + " is shorter than a day of a Date column");
  }
  level->step = date ? count * seconds / 86400 : count * seconds;
  return absl::OkStatus();
}

bool IsStringLiteral(const sql::ExprPtr& e) {
  return e && e->kind == sql::ExprKind::kLiteral && !e->is_null &&
         std::holds_alternative<std::string>(e->value);
}

}  // namespace

absl::StatusOr<QueryResult> QueryExecutor::SelectWithFill(const sql::SelectStatement& select,
                                                          QueryContext* query,
                                                          const CteScope* outer) {
  size_t levels = 0;
  for (size_t i = 0; i < select.order_by.size(); ++i) {
    if (select.order_by[i].fill) levels = i + 1;
  }
  // The sort keys up to the last filled one ride along as extra columns.
  sql::SelectStatement inner = select;
  inner.interpolate.reset();
  for (sql::OrderItem& item : inner.order_by) item.fill.reset();
  for (size_t i = 0; i < levels; ++i) {
    auto key = std::make_shared<sql::Expr>(*select.order_by[i].expr);
    key->alias = "__fill_" + std::to_string(i);
    inner.select.push_back(std::move(key));
  }
  if (select.limit) {
    inner.limit = *select.limit + select.offset.value_or(0);
    inner.offset.reset();
  }
  ASSIGN_OR_RETURN(QueryResult result, SelectIn(inner, query, outer));
  const size_t visible = result.names.size() - levels;

  // A key the SELECT list shows (by name) is filled there; another one only in its extra column.
  FillOptions options;
  sql::SelectStatement constants;
  struct Slots {
    int from = -1;
    int to = -1;
    int step = -1;
    std::optional<std::string> unit;
  };
  std::vector<Slots> slots(levels);
  for (size_t i = 0; i < levels; ++i) {
    const sql::OrderItem& item = select.order_by[i];
    FillLevel level;
    level.column = visible + i;
    const std::string name = sql::ColumnName(*item.expr);
    for (size_t c = 0; c < visible; ++c) {
      if (result.names[c] == name) {
        level.column = c;
        break;
      }
    }
    level.fill = item.fill.has_value();
    level.descending = item.descending;
    if (level.fill) {
      const TypeId type = result.types[level.column];
      if (!FillableType(type)) {
        return FillError("Incompatible types of WITH FILL expression values with column type " +
                         std::string(core::TypeName(type)));
      }
      const std::string cast_to = std::string(core::TypeName(core::RemoveNullable(type)));
      for (const sql::ExprPtr& bound : {item.fill->from, item.fill->to, item.fill->step}) {
        if (IsStringLiteral(bound)) {
          return FillError("Sort FILL FROM, TO and STEP must be constants of a numeric type, not "
                           "the string '" + std::get<std::string>(bound->value) + "'");
        }
      }
      auto add = [&](sql::ExprPtr e) {
        constants.select.push_back(std::move(e));
        return static_cast<int>(constants.select.size()) - 1;
      };
      if (item.fill->from) {
        slots[i].from = add(sql::MakeCall("CAST", {item.fill->from, sql::MakeLiteral(cast_to)}));
      }
      if (item.fill->to) {
        slots[i].to = add(sql::MakeCall("CAST", {item.fill->to, sql::MakeLiteral(cast_to)}));
      }
      if (item.fill->step) {
        sql::ExprPtr step = item.fill->step;
        if (auto interval = IntervalStep(*step)) {
          slots[i].unit = interval->first;
          step = interval->second;
        }
        slots[i].step = add(sql::MakeCall("toFloat64", {step}));
      }
    }
    options.levels.push_back(level);
  }
  core::Block values;
  if (!constants.select.empty()) {
    ASSIGN_OR_RETURN(QueryResult constant, SelectIn(constants, query, outer));
    values = std::move(constant.block);
  }
  for (size_t i = 0; i < levels; ++i) {
    FillLevel& level = options.levels[i];
    if (!level.fill) continue;
    const TypeId type = result.types[level.column];
    if (slots[i].from >= 0) level.from = CoordinateOf(*values.columns[slots[i].from], 0);
    if (slots[i].to >= 0) level.to = CoordinateOf(*values.columns[slots[i].to], 0);
    if (slots[i].step >= 0) {
      const double step = values.columns[slots[i].step]->Get<double>(0);
      if (slots[i].unit) {
        RETURN_IF_ERROR(IntervalUnits(*slots[i].unit, step, type, &level));
      } else {
        level.step = step;  // a DateTime's seconds, a Date's days
      }
    } else {
      level.step = 1;
    }
    const FillCoordinate length = level.months != 0 ? level.months : level.step;
    if (length == 0) return FillError("WITH FILL STEP value cannot be zero");
    if (slots[i].step < 0 && level.descending) {
      level.step = -level.step;  // DESC without STEP walks down by one
    } else if (length < 0 && !level.descending) {
      return FillError(
          "WITH FILL STEP value cannot be negative for sorting in ascending direction");
    } else if (length > 0 && level.descending) {
      return FillError(
          "WITH FILL STEP value cannot be positive for sorting in descending direction");
    }
    if (!core::IsFloat(type) && level.months == 0 && level.step != std::floor(level.step)) {
      return FillError("WITH FILL STEP must be a whole number of units for a column of type " +
                       std::string(core::TypeName(type)));
    }
    if (level.from && level.to) {
      if (!level.descending && *level.to < *level.from) {
        return FillError("WITH FILL TO value cannot be less than FROM value for sorting in "
                         "ascending direction");
      }
      if (level.descending && *level.to > *level.from) {
        return FillError("WITH FILL TO value cannot be greater than FROM value for sorting in "
                         "descending direction");
      }
    }
  }

  // INTERPOLATE: the named columns (every visible unfilled one when none is named) take the row
  // before's value, or their expression over that row cast to the column's type.
  if (select.interpolate) {
    std::vector<bool> filled(result.names.size(), false);
    for (const FillLevel& level : options.levels) filled[level.column] = level.fill;
    sql::SelectStatement over;
    if (select.interpolate->empty()) {
      for (size_t c = 0; c < visible; ++c) {
        if (!filled[c]) options.interpolated.push_back(c);
      }
    }
    for (const sql::InterpolateItem& item : *select.interpolate) {
      const auto found = std::find(result.names.begin(), result.names.begin() + visible,
                                   item.column);
      if (found == result.names.begin() + visible) {
        return core::Error(core::ErrorCode::kUnknownIdentifier,
                           "Missing column " + item.column + " of INTERPOLATE in the SELECT list "
                           "(at position " + std::to_string(item.position + 1) + ")");
      }
      const size_t c = found - result.names.begin();
      if (filled[c]) {
        return FillError("Column " + item.column + " is filled WITH FILL and cannot be "
                         "interpolated");
      }
      options.interpolated.push_back(c);
      sql::ExprPtr value = item.expr ? item.expr : sql::MakeColumn("", item.column, item.position);
      over.select.push_back(sql::MakeCall(
          "CAST", {value, sql::MakeLiteral(std::string(core::TypeName(result.types[c])))}));
    }
    if (!over.select.empty()) {
      // Bound once over the result's columns, evaluated once per added row.
      LocalTable table;
      table.names = result.names;
      table.types = result.types;
      for (const core::ColumnPtr& column : result.block.columns) {
        table.block.columns.push_back(std::make_shared<core::Column>(column->logical_type()));
      }
      Binder binder(catalog_, SystemTables(query), workers_->shard_count(), query->settings);
      ASSIGN_OR_RETURN(QueryPlan plan, binder.Bind(over, std::move(table)));
      if (plan.fragment.aggregating() || plan.fragment.filter || plan.has_having ||
          plan.visible != over.select.size()) {
        return FillError("An INTERPOLATE expression must be a plain expression over the row");
      }
      std::vector<size_t> inputs;
      for (const std::string& name : plan.fragment.scan.columns) {
        inputs.push_back(std::find(result.names.begin(), result.names.end(), name) -
                         result.names.begin());
      }
      auto projections = std::make_shared<std::vector<std::unique_ptr<core::Expression>>>();
      for (const core::plan::Expr& e : plan.fragment.projections) {
        ASSIGN_OR_RETURN(auto compiled, core::Expression::Compile(e));
        projections->push_back(std::move(compiled));
      }
      auto finals = std::make_shared<std::vector<std::unique_ptr<core::Expression>>>();
      for (size_t k = 0; k < plan.visible; ++k) {
        ASSIGN_OR_RETURN(auto compiled, core::Expression::Compile(plan.final_exprs[k]));
        finals->push_back(std::move(compiled));
      }
      options.compute = [inputs, projections, finals](const core::Block& previous)
          -> absl::StatusOr<std::vector<core::ColumnPtr>> {
        core::Block scan;
        scan.rows_without_columns = 1;
        for (size_t c : inputs) scan.columns.push_back(previous.columns[c]);
        core::Block stage;
        stage.rows_without_columns = 1;
        for (const auto& e : *projections) {
          ASSIGN_OR_RETURN(core::ColumnPtr column, e->Evaluate(scan));
          stage.columns.push_back(std::move(column));
        }
        std::vector<core::ColumnPtr> out;
        for (const auto& e : *finals) {
          ASSIGN_OR_RETURN(core::ColumnPtr column, e->Evaluate(stage));
          out.push_back(std::move(column));
        }
        return out;
      };
    }
  }
  if (select.limit) options.max_rows = *select.limit + select.offset.value_or(0);
  ASSIGN_OR_RETURN(core::Block filled, FillGaps(result.block, options));

  // OFFSET / LIMIT, then the extra columns go.
  const size_t rows = filled.rows();
  const size_t begin = std::min<uint64_t>(select.offset.value_or(0), rows);
  const size_t end = select.limit ? std::min<uint64_t>(begin + *select.limit, rows) : rows;
  core::Block out;
  for (size_t c = 0; c < visible; ++c) {
    const core::ColumnPtr& column = filled.columns[c];
    out.columns.push_back(begin == 0 && end == rows
                              ? column
                              : std::make_shared<core::Column>(column->Slice(begin, end - begin)));
  }
  out.rows_without_columns = end - begin;
  result.block = std::move(out);
  result.names.resize(visible);
  result.types.resize(visible);
  return result;
}

}  // namespace granite::coordinator
