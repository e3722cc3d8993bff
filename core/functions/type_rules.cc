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
  if (type == TypeId::kDate) return TypeId::kUInt16;
  if (type == TypeId::kDateTime) return TypeId::kUInt32;
  return type;
}

std::optional<TypeId> CommonSupertype(TypeId a, TypeId b) {
  if (a == b) return a;
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

std::optional<TypeId> ComparisonType(TypeId a, TypeId b) {
  if (a == b) return a;
  if (IsDateOrDateTime(a) && IsDateOrDateTime(b)) return TypeId::kDateTime;
  return NumberSupertype(NumberCarrier(a), NumberCarrier(b));
}

}  // namespace granite::core
