// Data types of granite columns: logical type ids, their physical C++ representation, and the
// ClickHouse / SQL spellings the parser accepts. Shared by every layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace granite::core {

// Logical column types, a packed 32-bit value. Values are stable: they travel in protobuf plans
// (uint32) and on disk (a base byte, then a type's parameters; see storage/part_format.cc).
//
// Bit layout:
//   bits  0..7   base kind: the enumerators below (0..12, 17 and 18 are the parameterless types,
//                whose ids are the whole value; 13..15 the decimals, by physical width; 19 and 20
//                carry parameters too)
//   bits  8..15  decimal precision P (1..38); DateTime64's precision p (0..9)
//   bits 16..23  decimal scale S (0..P); DateTime64: the low 8 bits of its zone id
//   bits  8..23  FixedString's N (1..65535); DateTime's zone id (core/time_zone.h: 0 = no zone
//                written, 1 = 'UTC', the index of the name in an append-only table)
//   bit  24      Nullable: the column has a null map beside its values (kNullableFlag)
//   bits 25..27  array depth d (kArrayDepthShift): d > 0 makes the type Array^d(E), where E is
//                the innermost element type held whole in bits 0..24 (its own Nullable flag
//                included): Array(Nullable(String)) is String | kNullableFlag | 1 << 25, and
//                Array(Array(UInt8)) is UInt8 | 2 << 25. Nullable(Array(T)) does not exist (as
//                in ClickHouse), so depth plus E describes every array. BaseOf(array) is kArray.
//   bits 28..31  DateTime64: the high 4 bits of its zone id (ids are 12 bits); else 0
// Two types are equal only if every bit is: Decimal(15, 2) != Decimal(15, 4). A `switch` on a
// type that may be a decimal must switch on BaseOf(type).
enum class TypeId : uint32_t {
  kUInt8 = 0,
  kUInt16 = 1,
  kUInt32 = 2,
  kUInt64 = 3,
  kInt8 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kFloat32 = 8,
  kFloat64 = 9,
  kString = 10,
  kDate = 11,       // days since 1970-01-01, stored as uint16_t
  kDateTime = 12,   // seconds since the epoch (UTC), stored as uint32_t; DateTime('tz') adds a zone
  kDecimal32 = 13,  // Decimal(P <= 9, S): value * 10^S stored as int32_t
  kDecimal64 = 14,  // Decimal(P <= 18, S): int64_t
  kDecimal128 = 15, // Decimal(P <= 38, S): __int128
  kNothing = 16,    // the type of a bare NULL (only as Nullable(Nothing)); stored as uint8_t 0
  kBool = 17,       // true / false, stored as uint8_t 0 / 1
  kUUID = 18,       // 16 bytes as UnsignedInt128, ordered as ClickHouse (core/extended_value_text.h)
  kDateTime64 = 19, // DateTime64(p[, 'tz']): ticks of 10^-p s since the epoch (UTC), int64_t
  kFixedString = 20,  // FixedString(N): N bytes per value, zero padded (a String-layout column)
  kArray = 21,        // only as BaseOf(Array(T)); never a complete id (see the layout above)
  kTuple = 22,  // Tuple(T1, ..., Tn): bits 8..23 index the process's table of element lists
                // (core/tuple_type.h), so the id means nothing to another process: a Tuple is
                // built only for a query's result on the coordinator, never stored or sent to
                // a worker (IsValidType refuses it)
};

// The number of parameterless types (ids 0 .. kTypeCount - 1, each a complete TypeId).
inline constexpr int kTypeCount = 13;
// Bases 0 .. kBaseTypeCount - 1 exist; a base >= kTypeCount needs parameters.
inline constexpr int kBaseTypeCount = 21;
// Marks Nullable(T): T's values plus a null map (1 = NULL). Kernels see T; see core/column.h.
inline constexpr uint32_t kNullableFlag = 1u << 24;
inline constexpr int kArrayDepthShift = 25;
inline constexpr uint32_t kArrayDepthMask = 7u << kArrayDepthShift;
inline constexpr int kMaxArrayDepth = 7;
inline constexpr int kMaxDecimalPrecision = 38;

using Int128 = __int128;
using UnsignedInt128 = unsigned __int128;  // UUID values
inline constexpr int kMaxDateTime64Precision = 9;
inline constexpr uint32_t kMaxFixedStringSize = 0xffff;

// Returns the array depth of a type: 0 for a scalar, 2 for Array(Array(UInt8)).
constexpr int ArrayDepthOf(TypeId type) {
  return static_cast<int>((static_cast<uint32_t>(type) & kArrayDepthMask) >> kArrayDepthShift);
}
constexpr bool IsArray(TypeId type) { return (static_cast<uint32_t>(type) & kArrayDepthMask) != 0; }
// Returns Array(element). REQUIRES: ArrayDepthOf(element) < kMaxArrayDepth.
constexpr TypeId MakeArray(TypeId element) {
  return static_cast<TypeId>(static_cast<uint32_t>(element) + (1u << kArrayDepthShift));
}
// Returns T for Array(T). REQUIRES: IsArray(array).
constexpr TypeId ArrayElementOf(TypeId array) {
  return static_cast<TypeId>(static_cast<uint32_t>(array) - (1u << kArrayDepthShift));
}
// Returns the innermost element type: UInt8 for Array(Array(UInt8)); `type` for a scalar.
constexpr TypeId ArrayInnermostOf(TypeId type) {
  return static_cast<TypeId>(static_cast<uint32_t>(type) & ~kArrayDepthMask);
}
// Returns the base kind (low 8 bits) of a type: kDecimal64 for Decimal(15, 2); kArray for arrays.
constexpr TypeId BaseOf(TypeId type) {
  return IsArray(type) ? TypeId::kArray : static_cast<TypeId>(static_cast<uint32_t>(type) & 0xffu);
}
constexpr bool IsDecimal(TypeId type) {
  const TypeId base = BaseOf(type);
  return base == TypeId::kDecimal32 || base == TypeId::kDecimal64 || base == TypeId::kDecimal128;
}
// An array is never Nullable (its bit 24 belongs to the element): IsNullable(Array(Nullable(T)))
// is false, and MakeNullable / RemoveNullable leave arrays as they are, so a column that must
// become Nullable (an outer join's missing side) keeps an array type and takes [] (ClickHouse's
// default) where other types take NULL.
constexpr bool IsNullable(TypeId type) {
  return (static_cast<uint32_t>(type) & (kNullableFlag | kArrayDepthMask)) == kNullableFlag;
}
// Returns Nullable(T) for T (and for Nullable(T) itself); an array unchanged.
constexpr TypeId MakeNullable(TypeId type) {
  return IsArray(type) ? type : static_cast<TypeId>(static_cast<uint32_t>(type) | kNullableFlag);
}
// Returns T for Nullable(T), else `type` (an array unchanged).
constexpr TypeId RemoveNullable(TypeId type) {
  return IsArray(type) ? type : static_cast<TypeId>(static_cast<uint32_t>(type) & ~kNullableFlag);
}
// Returns `type` made Nullable when `nullable`.
constexpr TypeId WithNullable(TypeId type, bool nullable) {
  return nullable ? MakeNullable(type) : type;
}
// Returns the decimal precision / scale of a type (0 for non-decimals; REQUIRES: not an array).
// DateTime64's ScaleOf is part of its zone: read TimeZoneOf.
constexpr int PrecisionOf(TypeId type) { return (static_cast<uint32_t>(type) >> 8) & 0xffu; }
constexpr int ScaleOf(TypeId type) { return (static_cast<uint32_t>(type) >> 16) & 0xffu; }
// Returns Decimal(precision, scale), stored in the narrowest of 32, 64 and 128 bits.
// REQUIRES: 1 <= precision <= 38, 0 <= scale <= precision.
constexpr TypeId MakeDecimal(int precision, int scale) {
  const TypeId base = precision <= 9    ? TypeId::kDecimal32
                      : precision <= 18 ? TypeId::kDecimal64
                                        : TypeId::kDecimal128;
  return static_cast<TypeId>(static_cast<uint32_t>(base) | (static_cast<uint32_t>(precision) << 8) |
                             (static_cast<uint32_t>(scale) << 16));
}
// Time zones (core/time_zone.h): a DateTime or DateTime64 type carries a zone id; the values stay
// UTC. DateTime keeps the id in bits 8..23; DateTime64 in bits 16..23 (low 8 bits: the old
// "'UTC' was written" flag 1 is zone 1, UTC) and 28..31 (high 4 bits).
constexpr uint32_t DateTime64ZoneBits(uint32_t zone) {
  return ((zone & 0xffu) << 16) | ((zone >> 8) << 28);
}
// Returns DateTime64(precision[, zone]). REQUIRES: 0 <= precision <= kMaxDateTime64Precision,
// zone <= 0xfff.
constexpr TypeId MakeDateTime64(int precision, uint32_t zone = 0) {
  return static_cast<TypeId>(static_cast<uint32_t>(TypeId::kDateTime64) |
                             (static_cast<uint32_t>(precision) << 8) | DateTime64ZoneBits(zone));
}
// Whether a type is DateTime or DateTime('tz') (looks through Nullable).
constexpr bool IsDateTime(TypeId type) { return BaseOf(type) == TypeId::kDateTime; }
// Returns the zone id of a DateTime or DateTime64 type (looks through Nullable); 0 for no zone
// and for every other type.
constexpr uint32_t TimeZoneOf(TypeId type) {
  const uint32_t raw = static_cast<uint32_t>(type);
  if (BaseOf(type) == TypeId::kDateTime) return (raw >> 8) & 0xffffu;
  if (BaseOf(type) == TypeId::kDateTime64) return ((raw >> 16) & 0xffu) | ((raw >> 28) << 8);
  return 0;
}
// Returns `type` (DateTime or DateTime64, maybe Nullable) with zone `zone`; other types unchanged.
constexpr TypeId WithTimeZone(TypeId type, uint32_t zone) {
  const uint32_t raw = static_cast<uint32_t>(type);
  if (BaseOf(type) == TypeId::kDateTime) {
    return static_cast<TypeId>((raw & ~0xffff00u) | ((zone & 0xffffu) << 8));
  }
  if (BaseOf(type) == TypeId::kDateTime64) {
    return static_cast<TypeId>((raw & ~(0xff0000u | 0xf0000000u)) | DateTime64ZoneBits(zone));
  }
  return type;
}
// Returns `type` without its zone: DateTime for DateTime('tz').
constexpr TypeId RemoveTimeZone(TypeId type) { return WithTimeZone(type, 0); }
// Returns FixedString(n). REQUIRES: 1 <= n <= kMaxFixedStringSize.
constexpr TypeId MakeFixedString(uint32_t n) {
  return static_cast<TypeId>(static_cast<uint32_t>(TypeId::kFixedString) | (n << 8));
}
// Returns N of FixedString(N) (looks through Nullable); 0 for other types.
constexpr uint32_t FixedStringSizeOf(TypeId type) {
  return BaseOf(type) == TypeId::kFixedString ? (static_cast<uint32_t>(type) >> 8) & 0xffffu : 0;
}
// The predicates below look through Nullable.
constexpr bool IsBool(TypeId type) { return RemoveNullable(type) == TypeId::kBool; }
constexpr bool IsUuid(TypeId type) { return RemoveNullable(type) == TypeId::kUUID; }
constexpr bool IsDateTime64(TypeId type) { return BaseOf(type) == TypeId::kDateTime64; }
constexpr bool IsFixedString(TypeId type) { return BaseOf(type) == TypeId::kFixedString; }
constexpr bool IsTuple(TypeId type) { return BaseOf(type) == TypeId::kTuple; }
// String or FixedString: values laid out as bytes plus end offsets.
constexpr bool HasStringLayout(TypeId type) {
  return BaseOf(type) == TypeId::kString || BaseOf(type) == TypeId::kFixedString;
}

// Returns whether a raw id read from a file or the wire is a type: a parameterless id, or a
// decimal base with a valid precision and scale, either optionally with kNullableFlag
// (Nothing only with it, or as an array's element: Array(Nothing) is `[]`'s type), and no other
// bits but an array depth.
bool IsValidType(uint32_t raw);

// Marks a C++ type in generic lambdas: Dispatch(type, [&](auto tag) { using T = typename decltype(tag)::Type; }).
template <typename T>
struct TypeTag {
  using Type = T;
};

// Appends the compact byte form of a type used in part files and wire blocks: the base byte, then
// a precision byte and a scale byte for a decimal (bits 8..15 and 16..23 of DateTime64 and
// FixedString alike); Nullable(T) is the byte kNullableTypeByte, then
// T's form; Array(T) is the byte kArrayTypeByte, then T's form. A DateTime with a zone, or a
// DateTime64 whose zone is not 0 or UTC, is the byte kTimeZoneTypeByte and the zone id (two bytes,
// little-endian) before the zoneless type's base byte (DateTime64(p, 'UTC') keeps its older
// form: scale byte 1). Files written before decimals (one byte, ids below kTypeCount) read
// the same.
inline constexpr uint8_t kNullableTypeByte = 0x40;
inline constexpr uint8_t kArrayTypeByte = 0x41;
inline constexpr uint8_t kTimeZoneTypeByte = 0x42;
void AppendTypeBytes(TypeId type, std::string* out);
// Reads that form from the front of `*bytes` and advances past it; false if malformed.
bool ReadTypeBytes(std::string_view* bytes, TypeId* type);

// Returns the ClickHouse name, e.g. "UInt64", "String", "DateTime", "Decimal(15, 2)",
// "Nullable(Int32)", "Array(Nullable(String))".
std::string_view TypeName(TypeId type);

// Parses a type as written in CREATE TABLE or CAST: ClickHouse names (UInt8 … Float64, String,
// Date, DateTime, Decimal(P, S), Decimal32(S), Decimal64(S), Decimal128(S)) and SQL spellings
// (BIGINT, INTEGER, INT, SMALLINT, TINYINT, TEXT, VARCHAR(n), CHAR(n), TIMESTAMP, DOUBLE, FLOAT,
// REAL, BOOLEAN, DECIMAL(P[, S]), NUMERIC(P[, S]), DEC), Bool, UUID, DateTime[('tz')],
// DateTime64[(p[, 'tz'])] (an unknown zone is BAD_ARGUMENTS, core/time_zone.h), FixedString(N). Case-insensitive. A decimal with bad
// parameters is ARGUMENT_OUT_OF_BOUND naming them. Nullable(T) for every T but Nullable and
// Array (both ILLEGAL_TYPE_OF_ARGUMENT); Array(T) for every T, nested up to kMaxArrayDepth.
// LowCardinality(T) reads as T (stored and named as T; not over arrays).
absl::StatusOr<TypeId> ParseType(std::string_view text);

// Returns bytes per value for fixed-width types (4, 8, 16 for decimals), 0 for String and
// arrays; a Nullable type's values are T's (the null map is apart).
size_t ValueSize(TypeId type);

// The predicates below look through Nullable: Nullable(String) is IsString.
bool IsString(TypeId type);
bool IsFloat(TypeId type);
bool IsSignedInteger(TypeId type);
bool IsUnsignedInteger(TypeId type);  // includes Bool, Date and DateTime
bool IsInteger(TypeId type);          // includes Bool, Date and DateTime
bool IsNumeric(TypeId type);          // integers, floats, Date and DateTime; not decimals
bool IsDateOrDateTime(TypeId type);  // Date, DateTime or DateTime('tz')

// Calls f(TypeTag<T>{}) with the physical C++ type of a fixed-width `type` (decimals: int32_t,
// int64_t, Int128; Bool: uint8_t; UUID: UnsignedInt128; DateTime64: int64_t).
// REQUIRES: type is not String, FixedString, an array or a tuple.
template <typename F>
decltype(auto) DispatchFixed(TypeId type, F&& f) {
  switch (BaseOf(type)) {
    case TypeId::kUInt8: return f(TypeTag<uint8_t>{});
    case TypeId::kUInt16: return f(TypeTag<uint16_t>{});
    case TypeId::kUInt32: return f(TypeTag<uint32_t>{});
    case TypeId::kUInt64: return f(TypeTag<uint64_t>{});
    case TypeId::kInt8: return f(TypeTag<int8_t>{});
    case TypeId::kInt16: return f(TypeTag<int16_t>{});
    case TypeId::kInt32: return f(TypeTag<int32_t>{});
    case TypeId::kInt64: return f(TypeTag<int64_t>{});
    case TypeId::kFloat32: return f(TypeTag<float>{});
    case TypeId::kFloat64: return f(TypeTag<double>{});
    case TypeId::kDate: return f(TypeTag<uint16_t>{});
    case TypeId::kDateTime: return f(TypeTag<uint32_t>{});
    case TypeId::kDecimal32: return f(TypeTag<int32_t>{});
    case TypeId::kDecimal64: return f(TypeTag<int64_t>{});
    case TypeId::kDecimal128: return f(TypeTag<Int128>{});
    case TypeId::kNothing: return f(TypeTag<uint8_t>{});
    case TypeId::kBool: return f(TypeTag<uint8_t>{});
    case TypeId::kUUID: return f(TypeTag<UnsignedInt128>{});
    case TypeId::kDateTime64: return f(TypeTag<int64_t>{});
    case TypeId::kString:
    case TypeId::kFixedString:
    case TypeId::kArray:
    case TypeId::kTuple: break;
  }
  return f(TypeTag<uint8_t>{});  // unreachable for valid input
}

}  // namespace granite::core
