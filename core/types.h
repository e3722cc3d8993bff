// Data types of granite columns: logical type ids, their physical C++ representation, and the
// ClickHouse / SQL spellings the parser accepts. Shared by every layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace granite::core {

// Logical column types. Values are stable: they travel in protobuf plans and on disk.
enum class TypeId : uint8_t {
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
  kDate = 11,      // days since 1970-01-01, stored as uint16_t
  kDateTime = 12,  // seconds since the epoch (UTC), stored as uint32_t
};

inline constexpr int kTypeCount = 13;

// Marks a C++ type in generic lambdas: Dispatch(type, [&](auto tag) { using T = typename decltype(tag)::Type; }).
template <typename T>
struct TypeTag {
  using Type = T;
};

// Returns the ClickHouse name, e.g. "UInt64", "String", "DateTime".
std::string_view TypeName(TypeId type);

// Parses a type as written in CREATE TABLE or CAST: ClickHouse names (UInt8 … Float64, String,
// Date, DateTime) and SQL spellings (BIGINT, INTEGER, INT, SMALLINT, TINYINT, TEXT, VARCHAR(n),
// CHAR(n), TIMESTAMP, DOUBLE, FLOAT, REAL, BOOLEAN). Case-insensitive for SQL spellings.
absl::StatusOr<TypeId> ParseType(std::string_view text);

// Returns bytes per value for fixed-width types, 0 for String.
size_t ValueSize(TypeId type);

bool IsString(TypeId type);
bool IsFloat(TypeId type);
bool IsSignedInteger(TypeId type);
bool IsUnsignedInteger(TypeId type);  // includes Date and DateTime
bool IsInteger(TypeId type);          // includes Date and DateTime
bool IsNumeric(TypeId type);          // integers, floats, Date and DateTime
bool IsDateOrDateTime(TypeId type);

// Calls f(TypeTag<T>{}) with the physical C++ type of a fixed-width `type`.
// REQUIRES: type is not String.
template <typename F>
decltype(auto) DispatchFixed(TypeId type, F&& f) {
  switch (type) {
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
    case TypeId::kString: break;
  }
  return f(TypeTag<uint8_t>{});  // unreachable for valid input
}

}  // namespace granite::core
