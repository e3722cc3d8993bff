#include "core/filter_counter.h"

#include <type_traits>
#include <variant>

#include "core/expression.h"
#include "core/functions/constant_column.h"
#include "core/value.h"
#include "granite/worker/v1/plan.pb.h"

namespace granite::core {

namespace pb = ::granite::worker::v1;

namespace {

// Counts data[i] != c (not_equals) or data[i] == c over `rows` values. The matches are summed in
// an accumulator as wide as T (for 1- and 2-byte T) over chunks short enough not to overflow it,
// so the vectorized loop is one compare and one subtract per 16 bytes.
template <typename T>
size_t CountMatches(const T* data, size_t rows, T c, bool not_equals) {
  using Acc = std::conditional_t<(sizeof(T) < 4), std::make_unsigned_t<T>, uint32_t>;
  constexpr size_t kChunk = sizeof(T) == 1 ? 240 : sizeof(T) == 2 ? 65520 : size_t{1} << 30;
  size_t equal = 0;
  for (size_t begin = 0; begin < rows; begin += kChunk) {
    const size_t end = rows - begin < kChunk ? rows : begin + kChunk;
    Acc chunk = 0;
    for (size_t i = begin; i < end; ++i) chunk += static_cast<Acc>(data[i] == c);
    equal += chunk;
  }
  return not_equals ? rows - equal : equal;
}

}  // namespace

std::optional<FilterCounter> FilterCounter::Match(const pb::Expr& filter) {
  if (filter.node_case() != pb::Expr::kCall) return std::nullopt;
  const pb::FunctionCall& call = filter.call();
  const bool not_equals = call.name() == "notEquals";
  if ((!not_equals && call.name() != "equals") || call.args_size() != 2) return std::nullopt;
  const pb::Expr* column = &call.args(0);
  const pb::Expr* literal = &call.args(1);
  if (column->node_case() != pb::Expr::kColumn) std::swap(column, literal);
  if (column->node_case() != pb::Expr::kColumn || literal->node_case() != pb::Expr::kLiteral) {
    return std::nullopt;
  }
  if (column->type() >= static_cast<uint32_t>(kTypeCount) ||
      literal->type() >= static_cast<uint32_t>(kTypeCount)) {
    return std::nullopt;
  }
  const TypeId column_type = static_cast<TypeId>(column->type());
  const TypeId literal_type = static_cast<TypeId>(literal->type());
  if (!IsInteger(column_type) || !IsInteger(literal_type)) return std::nullopt;
  absl::StatusOr<Value> value = LiteralValueOf(literal->literal());
  if (!value.ok()) return std::nullopt;
  absl::StatusOr<std::optional<Value>> exact =
      ConvertConstantExactly(*value, literal_type, column_type);
  if (!exact.ok() || !exact->has_value()) return std::nullopt;
  uint64_t bits = 0;
  if (const int64_t* s = std::get_if<int64_t>(&**exact)) {
    bits = static_cast<uint64_t>(*s);
  } else if (const uint64_t* u = std::get_if<uint64_t>(&**exact)) {
    bits = *u;
  } else {
    return std::nullopt;
  }
  return FilterCounter(column->column(), column_type, bits, not_equals);
}

std::optional<size_t> FilterCounter::Count(const Block& input) const {
  if (column_ >= input.columns.size()) return std::nullopt;
  const Column& column = *input.columns[column_];
  if (column.type() != type_ || column.size() != input.rows()) return std::nullopt;
  return DispatchFixed(type_, [&](auto tag) -> std::optional<size_t> {
    using T = typename decltype(tag)::Type;
    if constexpr (std::is_integral_v<T>) {
      return CountMatches<T>(column.Data<T>(), column.size(), static_cast<T>(constant_bits_),
                             not_equals_);
    } else {
      return std::nullopt;
    }
  });
}

}  // namespace granite::core
