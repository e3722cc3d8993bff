#include "core/functions/constant_column.h"

#include "core/functions/cast_column.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/date_time.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

// Returns `v` as integer type T when it is exactly representable.
template <typename T>
std::optional<T> ExactInteger(const Value& v) {
  using Limits = std::numeric_limits<T>;
  if (const auto* i = std::get_if<int64_t>(&v)) {
    if (*i < 0) {
      if (!std::is_signed_v<T> || *i < static_cast<int64_t>(Limits::min())) return std::nullopt;
    } else if (static_cast<uint64_t>(*i) > static_cast<uint64_t>(Limits::max())) {
      return std::nullopt;
    }
    return static_cast<T>(*i);
  }
  if (const auto* u = std::get_if<uint64_t>(&v)) {
    if (*u > static_cast<uint64_t>(Limits::max())) return std::nullopt;
    return static_cast<T>(*u);
  }
  double d = std::get<double>(v);
  if (!std::isfinite(d) || std::trunc(d) != d) return std::nullopt;
  // max() + 1 is a power of two, so both bounds are exact doubles.
  const double upper = 2.0 * static_cast<double>(Limits::max() / 2 + 1);
  if (d < static_cast<double>(Limits::min()) || d >= upper) return std::nullopt;
  return static_cast<T>(d);
}

// Returns `v` as floating type T when it is exactly representable.
template <typename T>
std::optional<T> ExactFloat(const Value& v) {
  constexpr double kTwo63 = 9223372036854775808.0;
  if (const auto* i = std::get_if<int64_t>(&v)) {
    double d = static_cast<double>(*i);
    if (d >= kTwo63 || static_cast<int64_t>(d) != *i) return std::nullopt;
    if (static_cast<double>(static_cast<T>(d)) != d) return std::nullopt;
    return static_cast<T>(d);
  }
  if (const auto* u = std::get_if<uint64_t>(&v)) {
    double d = static_cast<double>(*u);
    if (d >= 2 * kTwo63 || static_cast<uint64_t>(d) != *u) return std::nullopt;
    if (static_cast<double>(static_cast<T>(d)) != d) return std::nullopt;
    return static_cast<T>(d);
  }
  double d = std::get<double>(v);
  if (static_cast<double>(static_cast<T>(d)) != d) return std::nullopt;  // also rejects NaN
  return static_cast<T>(d);
}

template <typename T>
Value Canonical(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<double>(v);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<int64_t>(v);
  } else {
    return static_cast<uint64_t>(v);
  }
}

}  // namespace

absl::StatusOr<ColumnPtr> MakeConstantColumn(const Value& value, TypeId type) {
  auto column = std::make_shared<Column>(type);
  if (RemoveNullable(type) == TypeId::kNothing) {
    column->AppendNull();  // Nullable(Nothing): the NULL literal
    return column;
  }
  RETURN_IF_ERROR(AppendValue(value, RemoveNullable(type), column.get()));
  return column;
}

Value ValueAt(const Column& column, size_t row) {
  if (HasStringLayout(column.type())) return std::string(column.StringAt(row));
  if (IsDecimal(column.type()) || IsUuid(column.type()) || IsDateTime64(column.type()) ||
      IsArray(column.type())) {
    // A decimal, UUID, DateTime64 or array constant is held as its exact text ("0.05",
    // "[1,'a']"), which AppendValue parses back (a number would mean a scaled value, or not fit).
    std::string text;
    AppendValueText(column, row, &text);
    return text;
  }
  return DispatchFixed(column.type(), [&](auto tag) -> Value {
    using T = typename decltype(tag)::Type;
    return Canonical(column.Get<T>(row));
  });
}

ColumnPtr Broadcast(const Column& one_row, size_t rows) {
  if (one_row.nullable()) {
    auto values = std::make_shared<Column>(one_row);
    values->DropNullMap();
    ColumnPtr broadcast = Broadcast(*values, rows);
    auto out = std::make_shared<Column>(*broadcast);
    out->MakeNullable();
    if (one_row.IsNullAt(0)) std::memset(out->MutableNullMap(), 1, rows);
    return out;
  }
  auto out = std::make_shared<Column>(one_row.type());
  if (IsArray(one_row.type())) {
    const std::vector<uint32_t> zeros(rows, 0);
    out->AppendTaken(one_row, zeros.data(), rows);
    return out;
  }
  if (HasStringLayout(one_row.type())) {
    std::string_view s = one_row.StringAt(0);
    std::string& chars = out->MutableChars();
    std::vector<uint64_t>& offsets = out->MutableOffsets();
    chars.reserve(s.size() * rows);
    offsets.resize(rows);
    for (size_t i = 0; i < rows; ++i) {
      chars.append(s);
      offsets[i] = chars.size();
    }
    out->SetSize(rows);
    return out;
  }
  out->Resize(rows);
  const size_t width = ValueSize(one_row.type());
  const char* src = one_row.RawData();
  char* dst = out->RawData();
  DispatchFixed(one_row.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    T v;
    std::memcpy(&v, src, width);
    T* typed = reinterpret_cast<T*>(dst);
    for (size_t i = 0; i < rows; ++i) typed[i] = v;
  });
  return out;
}

absl::StatusOr<std::optional<Value>> ConvertConstantExactly(const Value& value, TypeId from,
                                                            TypeId to) {
  if (IsString(from)) {
    if (IsString(to)) return std::optional<Value>(value);
    Column parsed(to);
    const std::string* text = std::get_if<std::string>(&value);
    if (text == nullptr) return Error(ErrorCode::kLogicalError, "String constant without text");
    RETURN_IF_ERROR(ParseValueText(*text, to, &parsed));
    return std::optional<Value>(ValueAt(parsed, 0));
  }
  if (from == to) return std::optional<Value>(value);
  if (IsDateTime64(from) && (IsDateTime64(to) || IsDateOrDateTime(to))) {
    // Exact when the value survives the round trip through `to` (no fraction is lost).
    ASSIGN_OR_RETURN(ColumnPtr original, MakeConstantColumn(value, from));
    absl::StatusOr<ColumnPtr> converted = CastColumn(original, to);
    if (!converted.ok()) return std::optional<Value>();  // out of `to`'s range: not exact
    absl::StatusOr<ColumnPtr> back = CastColumn(*converted, from);
    if (!back.ok() || (*back)->Get<int64_t>(0) != original->Get<int64_t>(0)) {
      return std::optional<Value>();
    }
    return std::optional<Value>(ValueAt(**converted, 0));
  }
  if (IsUuid(from) || IsUuid(to) || IsDateTime64(from) || IsFixedString(from) ||
      IsFixedString(to)) {
    return std::optional<Value>();  // compared in a common type, not through a constant
  }
  if (IsDateTime64(to)) {
    if (IsDateOrDateTime(from)) {
      // A Date or DateTime is a whole number of seconds: exact at any precision.
      ASSIGN_OR_RETURN(ColumnPtr original, MakeConstantColumn(value, from));
      absl::StatusOr<ColumnPtr> converted = CastColumn(original, to);
      if (!converted.ok()) return std::optional<Value>();
      return std::optional<Value>(ValueAt(**converted, 0));
    }
    // An integer is whole seconds, exact at any precision; other types compare by casting.
    if (!IsInteger(from)) return std::optional<Value>();
    return std::optional<Value>(value);
  }
  if (to == TypeId::kBool) {
    // Only 0 and 1 are Bool values: true = 2 is false, compared as numbers.
    if (!IsInteger(from) || !(std::holds_alternative<uint64_t>(value) &&
                              std::get<uint64_t>(value) <= 1)) {
      return std::optional<Value>();
    }
    return std::optional<Value>(value);
  }
  if (IsString(to) || std::holds_alternative<std::string>(value)) {
    return Error(ErrorCode::kIllegalTypeOfArgument,
                 absl::StrCat("Cannot convert constant ", ValueToText(value), " of type ",
                              ToAbsl(TypeName(from)), " to ", ToAbsl(TypeName(to))));
  }
  if (IsDateTime(from) && IsDateTime(to)) return std::optional<Value>(value);  // one instant
  if ((from == TypeId::kDate && IsDateTime(to) && TimeZoneOf(to) != 0) ||
      (IsDateTime(from) && TimeZoneOf(from) != 0 && to == TypeId::kDate)) {
    return std::optional<Value>();  // a local midnight: compared in the common type
  }
  if (from == TypeId::kDate && to == TypeId::kDateTime) {
    uint64_t seconds = std::get<uint64_t>(value) * kSecondsPerDay;
    if (seconds > static_cast<uint64_t>(kMaxDateTime)) return std::optional<Value>();
    return std::optional<Value>(Value(seconds));
  }
  if (from == TypeId::kDateTime && to == TypeId::kDate) {
    uint64_t seconds = std::get<uint64_t>(value);
    if (seconds % kSecondsPerDay != 0) return std::optional<Value>();
    return std::optional<Value>(Value(seconds / kSecondsPerDay));
  }
  return DispatchFixed(to, [&](auto tag) -> std::optional<Value> {
    using T = typename decltype(tag)::Type;
    std::optional<T> converted;
    if constexpr (std::is_floating_point_v<T>) {
      converted = ExactFloat<T>(value);
    } else {
      converted = ExactInteger<T>(value);
    }
    if (!converted) return std::nullopt;
    return Canonical(*converted);
  });
}

bool IsTrue(const Value& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return *i != 0;
  if (const auto* u = std::get_if<uint64_t>(&value)) return *u != 0;
  if (const auto* d = std::get_if<double>(&value)) return *d != 0;
  return false;
}

namespace {

class StringConstant : public ScalarKernel {
 public:
  explicit StringConstant(std::string_view value) : value_(value) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>&, size_t rows) const override {
    Column one(TypeId::kString);
    one.AppendString(value_);
    return Broadcast(one, rows);
  }

 private:
  const std::string_view value_;
};

}  // namespace

std::unique_ptr<ScalarKernel> StringConstantKernel(std::string_view value) {
  return std::make_unique<StringConstant>(value);
}

}  // namespace granite::core
