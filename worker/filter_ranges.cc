#include "worker/filter_ranges.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/decimal.h"
#include "core/expression.h"
#include "core/functions/constant_column.h"
#include "core/value_text.h"
#include "storage/key_expression.h"

namespace granite::worker {
namespace {

using core::TypeId;
using storage::ColumnRanges;
using storage::ValueRange;

// Resolves column references of the filter to schema columns.
struct Context {
  const core::plan::Fragment& fragment;
  const storage::TableSchema& schema;

  // Returns the schema column of `expr` when it is a column reference, else -1.
  int SchemaColumn(const core::plan::Expr& expr) const {
    if (!expr.is_column()) return -1;
    if (expr.column >= fragment.scan.columns.size()) return -1;
    return schema.ColumnIndex(fragment.scan.columns[expr.column]);
  }
};

// Returns the value of a constant expression converted to the column type `type`, in
// GranuleBounds form; nullopt when it is not constant or does not convert.
std::optional<core::Value> ConstantFor(const core::plan::Expr& expr, TypeId type) {
  if (expr.is_column()) return std::nullopt;
  absl::StatusOr<std::unique_ptr<core::Expression>> compiled = core::Expression::Compile(expr);
  if (!compiled.ok()) return std::nullopt;
  std::optional<core::Value> value = (*compiled)->constant();
  if (!value) return std::nullopt;
  TypeId from = (*compiled)->type();
  if (core::IsString(from) && core::IsString(type)) return value;
  if (core::IsString(from) && core::IsDateOrDateTime(type)) {
    // Parses the text as the comparison would; text that does not parse constrains nothing.
    core::Column column(type);
    if (!core::AppendValue(*value, type, &column).ok()) return std::nullopt;
    return storage::ValueAt(column, 0);
  }
  if (core::IsDateTime64(type)) {
    // The constant's exact value in the column's ticks, as the comparison reads it (text parsed
    // at the column's precision, whole seconds scaled); a value the column's precision cannot
    // hold exactly (the comparison then runs at a finer one) constrains nothing.
    const TypeId column_type = core::RemoveNullable(type);
    absl::StatusOr<std::optional<core::Value>> exact =
        core::ConvertConstantExactly(*value, from, column_type);
    if (!exact.ok() || !exact->has_value()) return std::nullopt;
    absl::StatusOr<core::ColumnPtr> ticks = core::MakeConstantColumn(**exact, column_type);
    if (!ticks.ok()) return std::nullopt;
    return core::Value((*ticks)->Get<int64_t>(0));
  }
  if (from == TypeId::kDate && core::IsDateTime(type)) {
    // A Date compares with a DateTime as its midnight (UTC; a zoned column's pruning is skipped).
    if (core::TimeZoneOf(type) != 0) return std::nullopt;
    if (const auto* days = std::get_if<uint64_t>(&*value)) return core::Value(*days * 86400);
    return std::nullopt;
  }
  if (core::IsDateTime(from) && type == TypeId::kDate) return std::nullopt;
  if (core::IsNumeric(from) && core::IsNumeric(type)) {
    // Comparisons between numbers are exact across types: keep the constant's own value (a UInt8
    // column compared with 300 matches nothing, which the range then says).
    if (const auto* d = std::get_if<double>(&*value)) {
      if (*d != *d) return std::nullopt;  // NaN
    }
    return value;
  }
  return std::nullopt;
}

std::optional<ColumnRanges> Derive(const core::plan::Expr& expr, const Context& context);

// Returns the range of a decimal column (bounds: scaled int64 values) that `column op constant`
// may keep. An integer constant scales exactly; a float or decimal constant that may fall between
// two scaled values (the comparison then runs in Float64 or at a larger scale) widens the range
// by one step on each side, so the range never drops a row the comparison keeps.
std::optional<ValueRange> DecimalRange(const std::string& op, const core::plan::Expr& expr,
                                       TypeId type) {
  // Decimal128 keys in the primary index are not exact int64 values: no ranges on them.
  if (expr.is_column() || core::ValueSize(type) > 8) return std::nullopt;
  absl::StatusOr<std::unique_ptr<core::Expression>> compiled = core::Expression::Compile(expr);
  if (!compiled.ok()) return std::nullopt;
  std::optional<core::Value> value = (*compiled)->constant();
  if (!value) return std::nullopt;
  const TypeId from = (*compiled)->type();
  const int scale = core::ScaleOf(type);
  core::Int128 scaled = 0;
  bool exact = false;
  if (const auto* i = std::get_if<int64_t>(&*value); i && core::IsInteger(from)) {
    scaled = static_cast<core::Int128>(*i) * core::PowerOf10(scale);
    exact = true;
  } else if (const auto* u = std::get_if<uint64_t>(&*value); u && core::IsInteger(from)) {
    scaled = static_cast<core::Int128>(*u) * core::PowerOf10(scale);
    exact = true;
  } else if (const auto* d = std::get_if<double>(&*value)) {
    const double x = *d * static_cast<double>(core::PowerOf10(scale));
    if (!(std::fabs(x) < 9e18)) return std::nullopt;  // NaN or beyond the bounds' range
    scaled = static_cast<core::Int128>(std::trunc(x));
  } else if (const auto* text = std::get_if<std::string>(&*value); text && core::IsDecimal(from)) {
    if (!core::ParseDecimalText(*text, core::kMaxDecimalPrecision, scale, &scaled).ok()) {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  constexpr core::Int128 kLimit = core::Int128{1} << 62;
  if (scaled >= kLimit || scaled <= -kLimit) return std::nullopt;
  const auto at = [](core::Int128 v) { return core::Value(static_cast<int64_t>(v)); };
  if (exact) {
    if (op == "equals") return ValueRange::Point(at(scaled));
    if (op == "less") return ValueRange::AtMost(at(scaled), false);
    if (op == "lessOrEquals") return ValueRange::AtMost(at(scaled), true);
    if (op == "greater") return ValueRange::AtLeast(at(scaled), false);
    if (op == "greaterOrEquals") return ValueRange::AtLeast(at(scaled), true);
    return std::nullopt;
  }
  if (op == "less" || op == "lessOrEquals") return ValueRange::AtMost(at(scaled + 1), true);
  if (op == "greater" || op == "greaterOrEquals") return ValueRange::AtLeast(at(scaled - 1), true);
  if (op == "equals") {
    ValueRange range = ValueRange::AtLeast(at(scaled - 1), true);
    range.IntersectWith(ValueRange::AtMost(at(scaled + 1), true));
    return range;
  }
  return std::nullopt;
}

// A comparison `column op constant` (or mirrored) as a range.
std::optional<ColumnRanges> Comparison(const std::string& name, const core::plan::Expr& a,
                                       const core::plan::Expr& b, const Context& context) {
  int column = context.SchemaColumn(a);
  const core::plan::Expr* constant = &b;
  bool mirrored = false;
  if (column < 0) {
    column = context.SchemaColumn(b);
    constant = &a;
    mirrored = true;
  }
  // Arrays keep no bounds in parts: no range of one prunes anything.
  if (column < 0 || core::IsArray(context.schema.columns[column].type)) return std::nullopt;
  std::string op = name;
  if (mirrored) {
    if (op == "less") op = "greater";
    else if (op == "greater") op = "less";
    else if (op == "lessOrEquals") op = "greaterOrEquals";
    else if (op == "greaterOrEquals") op = "lessOrEquals";
  }
  if (core::IsDecimal(context.schema.columns[column].type)) {
    std::optional<ValueRange> range =
        DecimalRange(op, *constant, context.schema.columns[column].type);
    if (!range) return std::nullopt;
    return ColumnRanges{{column, *std::move(range)}};
  }
  std::optional<core::Value> value = ConstantFor(*constant, context.schema.columns[column].type);
  if (!value) return std::nullopt;
  ValueRange range;
  if (op == "equals") range = ValueRange::Point(*value);
  else if (op == "less") range = ValueRange::AtMost(*value, false);
  else if (op == "lessOrEquals") range = ValueRange::AtMost(*value, true);
  else if (op == "greater") range = ValueRange::AtLeast(*value, false);
  else if (op == "greaterOrEquals") range = ValueRange::AtLeast(*value, true);
  else return std::nullopt;
  return ColumnRanges{{column, range}};
}

// The most values of an IN set (a kSet column) pruning compares one by one; a larger set prunes
// by its smallest and largest value.
constexpr size_t kMaxSetPoints = 10000;

// The range of `column IN <set>` for a set held as a column (plan::Expr::Kind::kSet), when the
// set's values compare with the column's in GranuleBounds form: numbers with numbers, strings
// with strings, dates and times of the same type.
std::optional<ValueRange> SetRange(const core::Column& set, TypeId column_type) {
  const TypeId type = core::RemoveNullable(column_type);
  const TypeId set_type = set.type();
  const bool numbers = core::IsNumeric(type) && core::IsNumeric(set_type) &&
                       !core::IsDateOrDateTime(type) && !core::IsDateOrDateTime(set_type);
  const bool strings = core::IsString(type) && core::IsString(set_type);
  const bool same_plain = type == set_type && core::IsDateOrDateTime(type);
  if (!numbers && !strings && !same_plain) return std::nullopt;
  if (set.size() > kMaxSetPoints && numbers && !core::IsFloat(set_type)) {
    // A large set of integers (the key set of a join partner: 100k+ order keys) prunes by its
    // smallest and largest value, read from the typed column without a Value per element.
    return core::DispatchFixed(set_type, [&](auto tag) -> std::optional<ValueRange> {
      using T = typename decltype(tag)::Type;
      if constexpr (std::is_floating_point_v<T> || sizeof(T) > sizeof(int64_t)) {
        return std::nullopt;
      } else {
        const T* data = set.Data<T>();
        T low = data[0];
        T high = data[0];
        for (size_t row = 1; row < set.size(); ++row) {
          low = std::min(low, data[row]);
          high = std::max(high, data[row]);
        }
        auto value_of = [](T v) -> core::Value {
          if constexpr (std::is_signed_v<T>) return static_cast<int64_t>(v);
          else return static_cast<uint64_t>(v);
        };
        ValueRange range = ValueRange::AtLeast(value_of(low), true);
        range.IntersectWith(ValueRange::AtMost(value_of(high), true));
        return range;
      }
    });
  }
  std::vector<core::Value> values;
  values.reserve(set.size());
  for (size_t row = 0; row < set.size(); ++row) {
    core::Value value = storage::ValueAt(set, row);
    if (const auto* d = std::get_if<double>(&value); d != nullptr && *d != *d) return std::nullopt;
    values.push_back(std::move(value));
  }
  if (values.size() <= kMaxSetPoints) return ValueRange::Points(std::move(values));
  const core::Value* low = &values[0];
  const core::Value* high = &values[0];
  for (const core::Value& value : values) {
    std::optional<int> below = storage::CompareValues(value, *low);
    std::optional<int> above = storage::CompareValues(value, *high);
    if (!below || !above) return std::nullopt;
    if (*below < 0) low = &value;
    if (*above > 0) high = &value;
  }
  ValueRange range = ValueRange::AtLeast(*low, true);
  range.IntersectWith(ValueRange::AtMost(*high, true));
  return range;
}

std::optional<ColumnRanges> In(const core::plan::Expr& call, const Context& context) {
  if (call.args.size() != 2) return std::nullopt;
  int column = context.SchemaColumn(call.args[0]);
  if (column < 0) return std::nullopt;
  TypeId type = context.schema.columns[column].type;
  const core::plan::Expr& set = call.args[1];
  if (set.is_set()) {
    if (set.set == nullptr) return std::nullopt;
    std::optional<ValueRange> range = SetRange(*set.set, type);
    if (!range) return std::nullopt;
    return ColumnRanges{{column, *std::move(range)}};
  }
  std::vector<core::Value> values;
  if (set.IsCall("tuple")) {
    for (const core::plan::Expr& element : set.args) {
      std::optional<core::Value> value = ConstantFor(element, type);
      if (!value) return std::nullopt;
      values.push_back(*std::move(value));
    }
  } else {
    std::optional<core::Value> value = ConstantFor(set, type);
    if (!value) return std::nullopt;
    values.push_back(*std::move(value));
  }
  return ColumnRanges{{column, ValueRange::Points(std::move(values))}};
}

std::optional<ColumnRanges> Derive(const core::plan::Expr& expr, const Context& context) {
  if (!expr.is_call()) return std::nullopt;
  const core::plan::Expr& call = expr;
  const std::string& name = call.function;
  if (name == "and") {
    ColumnRanges out;
    for (const core::plan::Expr& arg : call.args) {
      std::optional<ColumnRanges> part = Derive(arg, context);
      if (!part) continue;  // an unknown conjunct constrains nothing
      for (auto& [column, range] : *part) {
        auto [it, inserted] = out.emplace(column, range);
        if (!inserted) it->second.IntersectWith(range);
      }
    }
    return out;
  }
  if (name == "or") {
    std::optional<ColumnRanges> out;
    for (const core::plan::Expr& arg : call.args) {
      std::optional<ColumnRanges> part = Derive(arg, context);
      if (!part) return std::nullopt;  // an unknown branch may match anything
      if (!out) {
        out = std::move(part);
        continue;
      }
      ColumnRanges united;
      for (auto& [column, range] : *out) {
        auto it = part->find(column);
        if (it == part->end()) continue;  // unconstrained in this branch
        ValueRange both = range;
        both.UniteWith(it->second);
        united.emplace(column, std::move(both));
      }
      out = std::move(united);
    }
    return out;
  }
  if (name == "in") return In(call, context);
  if (call.args.size() == 2) return Comparison(name, call.args[0], call.args[1], context);
  return std::nullopt;
}

}  // namespace

storage::ColumnRanges RangesFromFilter(const core::plan::Fragment& fragment,
                                       const storage::TableSchema& schema) {
  // The filter as bound, before a rewrite to string sizes (Scan::prune_filter).
  const std::optional<core::plan::Expr>& filter =
      fragment.scan.prune_filter ? fragment.scan.prune_filter : fragment.filter;
  if (!filter) return {};
  Context context{fragment, schema};
  std::optional<ColumnRanges> ranges = Derive(*filter, context);
  return ranges ? *std::move(ranges) : ColumnRanges{};
}

}  // namespace granite::worker
