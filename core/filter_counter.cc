#include "core/filter_counter.h"

#include <type_traits>
#include <variant>

#include "core/expression.h"
#include "core/functions/constant_column.h"
#include "core/value.h"

namespace granite::core {

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

std::optional<FilterCounter> FilterCounter::Match(const plan::Expr& filter) {
  if (!filter.is_call()) return std::nullopt;
  const bool not_equals = filter.function == "notEquals";
  if ((!not_equals && filter.function != "equals") || filter.args.size() != 2) return std::nullopt;
  const plan::Expr* column = &filter.args[0];
  const plan::Expr* literal = &filter.args[1];
  if (!column->is_column()) std::swap(column, literal);
  if (!column->is_column() || !literal->is_literal()) return std::nullopt;
  const TypeId column_type = column->type;
  const TypeId literal_type = literal->type;
  if (!IsInteger(column_type) || !IsInteger(literal_type) || IsNullable(column_type) ||
      IsNullable(literal_type)) {
    return std::nullopt;  // a NULL counts for no comparison; the values would say otherwise
  }
  const Value* value = &literal->literal;
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
  return FilterCounter(column->column, column_type, bits, not_equals);
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
