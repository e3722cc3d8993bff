// Type rules shared by the scalar functions: integer widths, the common supertype of branches
// (if, multiIf, CASE, greatest) and the type both sides of a comparison are brought to.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/types.h"

namespace granite::core {

// Returns the integer type of the given signedness and width in bytes (1, 2, 4 or 8).
TypeId IntegerType(bool is_signed, size_t bytes);

// Returns the next wider integer width: 1 -> 2 -> 4 -> 8, and 8 stays 8.
size_t NextSize(size_t bytes);

// Returns the plain number type that carries a value: UInt8 for Bool, UInt16 for Date, UInt32 for
// DateTime, the
// type itself otherwise.
TypeId NumberCarrier(TypeId type);

// Returns the least common supertype of two branch types, or nullopt when there is none.
// Equal types: that type. Date and DateTime: DateTime. Numbers: the wider type of the same
// signedness; unsigned with signed: the signed type one size wider than the unsigned one (UInt8
// and Int8 -> Int16), Float64 when that would exceed 64 bits (UInt64 and Int8); a float with
// integers up to 16 bits: Float32 if the float is Float32, otherwise Float64. String only with
// String; Date/DateTime never with numbers. Decimals with decimals or integers: a Decimal with the
// larger integer part and the larger scale (precision at most 38); with anything else, none.
// DateTime64 with Date, DateTime or DateTime64: DateTime64 of the larger precision. FixedString
// with FixedString: the larger one; with String: String. UUID only with UUID. Bool is UInt8.
// Arrays: Array(A) with Array(B) is Array(ElementSupertype({A, B})); with anything else, none.
std::optional<TypeId> CommonSupertype(TypeId a, TypeId b);

// Returns the element type of an array holding values of `types` (array(a, b, ...), [a, b]):
// their CommonSupertype, Nullable when any is (a NULL is Nullable(Nothing)); Nothing elements
// (NULL, the elements of []) fit any type; no types or only Nothing give Nothing. nullopt when
// two types have no supertype (NO_COMMON_TYPE).
std::optional<TypeId> ElementSupertype(const std::vector<TypeId>& types);

// Returns the type both sides of a comparison of numbers (Date and DateTime included) are
// converted to: Date with DateTime compares as DateTime; Date and DateTime with numbers as
// UInt16 / UInt32; otherwise like CommonSupertype, except that UInt64 with a signed type returns
// nullopt (the comparison then runs on UInt64 and Int64 operands with an exact mixed-sign loop).
// REQUIRES: both types numeric.
std::optional<TypeId> ComparisonType(TypeId a, TypeId b);

}  // namespace granite::core
