#include "core/functions/type_rules.h"

#include <algorithm>

#include "core/decimal.h"

namespace granite::core {
namespace {

// Returns the common type of two different plain number types, or nullopt for UInt64 with a
// signed integer.
std::optional<TypeId> NumberSupertype(TypeId a, TypeId b) {
  if (a == b) return a;
  if (IsFloat(a) || IsFloat(b)) {
    TypeId f = IsFloat(a) ? a : b;
    TypeId other = IsFloat(a) ? b : a;
    if (f == TypeId::kFloat32 && !IsFloat(other) && ValueSize(other) <= 2) return TypeId::kFloat32;
    return TypeId::kFloat64;
  }
  const size_t sa = ValueSize(a), sb = ValueSize(b);
  if (IsSignedInteger(a) == IsSignedInteger(b)) {
    return IntegerType(IsSignedInteger(a), std::max(sa, sb));
  }
  const size_t unsigned_size = IsSignedInteger(a) ? sb : sa;
  const size_t signed_size = IsSignedInteger(a) ? sa : sb;
  if (unsigned_size == 8) return std::nullopt;
  return IntegerType(true, std::max(NextSize(unsigned_size), signed_size));
}

// The common type when either side is UUID, DateTime64 or FixedString: DateTime64 of the larger
// precision with any date or date-time; FixedString(max N) of two FixedStrings, String with a
// String. kNothing when there is none; nullopt when neither side is such a type (Bool is a
// number: its pairs go the numbers' way).
std::optional<TypeId> ExtendedSupertype(TypeId a, TypeId b) {
  const auto extended = [](TypeId t) { return IsUuid(t) || IsDateTime64(t) || IsFixedString(t); };
  if (!extended(a) && !extended(b)) return std::nullopt;
  if (IsDateTime64(a) || IsDateTime64(b)) {
    const auto date_like = [](TypeId t) { return IsDateTime64(t) || IsDateOrDateTime(t); };
    if (!date_like(a) || !date_like(b)) return TypeId::kNothing;
    const int precision = std::max(IsDateTime64(a) ? PrecisionOf(a) : 0,
                                   IsDateTime64(b) ? PrecisionOf(b) : 0);
    const bool utc = (IsDateTime64(a) && ScaleOf(a) != 0) || (IsDateTime64(b) && ScaleOf(b) != 0);
    return MakeDateTime64(precision, utc);
  }
  if (IsFixedString(a) && IsFixedString(b)) {
    return MakeFixedString(std::max(FixedStringSizeOf(a), FixedStringSizeOf(b)));
  }
  if ((IsFixedString(a) && IsString(b)) || (IsString(a) && IsFixedString(b))) {
    return TypeId::kString;
  }
  return TypeId::kNothing;
}

}  // namespace

TypeId IntegerType(bool is_signed, size_t bytes) {
  switch (bytes) {
    case 1: return is_signed ? TypeId::kInt8 : TypeId::kUInt8;
    case 2: return is_signed ? TypeId::kInt16 : TypeId::kUInt16;
    case 4: return is_signed ? TypeId::kInt32 : TypeId::kUInt32;
    default: return is_signed ? TypeId::kInt64 : TypeId::kUInt64;
  }
}

size_t NextSize(size_t bytes) { return bytes >= 8 ? 8 : bytes * 2; }

TypeId NumberCarrier(TypeId type) {
  if (type == TypeId::kBool) return TypeId::kUInt8;
  if (type == TypeId::kDate) return TypeId::kUInt16;
  if (IsDateTime(type)) return TypeId::kUInt32;
  return type;
}

std::optional<TypeId> CommonSupertype(TypeId a, TypeId b) {
  if (a == b) return a;
  if (IsArray(a) || IsArray(b)) {
    if (!IsArray(a) || !IsArray(b)) return std::nullopt;
    std::optional<TypeId> element = ElementSupertype({ArrayElementOf(a), ArrayElementOf(b)});
    if (!element) return std::nullopt;
    return MakeArray(*element);
  }
  if (std::optional<TypeId> t = ExtendedSupertype(a, b)) return *t == TypeId::kNothing ? std::nullopt : t;
  if (IsString(a) || IsString(b)) return std::nullopt;
  if (IsDecimal(a) || IsDecimal(b)) {
    // Decimals with decimals or integers: room for the larger integer part and the larger scale.
    const bool plain_a = IsDecimal(a) || (IsInteger(a) && !IsDateOrDateTime(a));
    const bool plain_b = IsDecimal(b) || (IsInteger(b) && !IsDateOrDateTime(b));
    if (!plain_a || !plain_b) return std::nullopt;
    const TypeId da = IsDecimal(a) ? a : IntegerAsDecimal(a);
    const TypeId db = IsDecimal(b) ? b : IntegerAsDecimal(b);
    const int scale = std::max(ScaleOf(da), ScaleOf(db));
    const int digits = std::max(PrecisionOf(da) - ScaleOf(da), PrecisionOf(db) - ScaleOf(db));
    return MakeDecimal(std::min(kMaxDecimalPrecision, digits + scale), scale);
  }
  if (IsDateOrDateTime(a) || IsDateOrDateTime(b)) {
    if (IsDateOrDateTime(a) && IsDateOrDateTime(b)) return TypeId::kDateTime;
    return std::nullopt;
  }
  std::optional<TypeId> t = NumberSupertype(a, b);
  return t ? t : std::optional<TypeId>(TypeId::kFloat64);
}

std::optional<TypeId> ElementSupertype(const std::vector<TypeId>& types) {
  std::optional<TypeId> common;
  bool nullable = false;
  for (TypeId type : types) {
    nullable |= IsNullable(type);
    type = RemoveNullable(type);
    if (type == TypeId::kNothing) continue;  // NULL, or the element of []
    common = common ? CommonSupertype(*common, type) : std::optional<TypeId>(type);
    if (!common) return std::nullopt;
  }
  const TypeId result = common.value_or(TypeId::kNothing);
  return nullable ? MakeNullable(result) : result;
}

std::optional<TypeId> ComparisonType(TypeId a, TypeId b) {
  if (a == b) return a;
  if (std::optional<TypeId> t = ExtendedSupertype(a, b)) return *t == TypeId::kNothing ? std::nullopt : t;
  if (IsDateOrDateTime(a) && IsDateOrDateTime(b)) return TypeId::kDateTime;
  return NumberSupertype(NumberCarrier(a), NumberCarrier(b));
}

}  // namespace granite::core
