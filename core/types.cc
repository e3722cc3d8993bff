#include "core/types.h"

#include <cctype>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"

namespace granite::core {

std::string_view TypeName(TypeId type) {
  switch (type) {
    case TypeId::kUInt8: return "UInt8";
    case TypeId::kUInt16: return "UInt16";
    case TypeId::kUInt32: return "UInt32";
    case TypeId::kUInt64: return "UInt64";
    case TypeId::kInt8: return "Int8";
    case TypeId::kInt16: return "Int16";
    case TypeId::kInt32: return "Int32";
    case TypeId::kInt64: return "Int64";
    case TypeId::kFloat32: return "Float32";
    case TypeId::kFloat64: return "Float64";
    case TypeId::kString: return "String";
    case TypeId::kDate: return "Date";
    case TypeId::kDateTime: return "DateTime";
  }
  return "Unknown";
}

absl::StatusOr<TypeId> ParseType(std::string_view text) {
  std::string t = absl::AsciiStrToLower(absl::StripAsciiWhitespace(ToAbsl(text)));
  // VARCHAR(255), CHAR(10), DateTime('UTC'): the parenthesised part does not change the type.
  std::string base = t.substr(0, t.find('('));
  base = std::string(absl::StripAsciiWhitespace(base));
  static const struct {
    const char* name;
    TypeId type;
  } kNames[] = {
      {"uint8", TypeId::kUInt8},       {"uint16", TypeId::kUInt16},   {"uint32", TypeId::kUInt32},
      {"uint64", TypeId::kUInt64},     {"int8", TypeId::kInt8},       {"int16", TypeId::kInt16},
      {"int32", TypeId::kInt32},       {"int64", TypeId::kInt64},     {"float32", TypeId::kFloat32},
      {"float64", TypeId::kFloat64},   {"string", TypeId::kString},   {"date", TypeId::kDate},
      {"datetime", TypeId::kDateTime}, {"bigint", TypeId::kInt64},    {"integer", TypeId::kInt32},
      {"int", TypeId::kInt32},         {"smallint", TypeId::kInt16},  {"tinyint", TypeId::kInt8},
      {"text", TypeId::kString},       {"varchar", TypeId::kString},  {"char", TypeId::kString},
      {"timestamp", TypeId::kDateTime}, {"double", TypeId::kFloat64}, {"float", TypeId::kFloat32},
      {"real", TypeId::kFloat32},      {"boolean", TypeId::kUInt8},   {"bool", TypeId::kUInt8},
      {"double precision", TypeId::kFloat64},
  };
  for (const auto& entry : kNames) {
    if (base == entry.name) return entry.type;
  }
  return Error(ErrorCode::kUnknownType, "Unknown data type family: " + std::string(text));
}

size_t ValueSize(TypeId type) {
  switch (type) {
    case TypeId::kUInt8:
    case TypeId::kInt8: return 1;
    case TypeId::kUInt16:
    case TypeId::kInt16:
    case TypeId::kDate: return 2;
    case TypeId::kUInt32:
    case TypeId::kInt32:
    case TypeId::kFloat32:
    case TypeId::kDateTime: return 4;
    case TypeId::kUInt64:
    case TypeId::kInt64:
    case TypeId::kFloat64: return 8;
    case TypeId::kString: return 0;
  }
  return 0;
}

bool IsString(TypeId type) { return type == TypeId::kString; }
bool IsFloat(TypeId type) { return type == TypeId::kFloat32 || type == TypeId::kFloat64; }
bool IsSignedInteger(TypeId type) {
  return type == TypeId::kInt8 || type == TypeId::kInt16 || type == TypeId::kInt32 ||
         type == TypeId::kInt64;
}
bool IsUnsignedInteger(TypeId type) {
  return type == TypeId::kUInt8 || type == TypeId::kUInt16 || type == TypeId::kUInt32 ||
         type == TypeId::kUInt64 || type == TypeId::kDate || type == TypeId::kDateTime;
}
bool IsInteger(TypeId type) { return IsSignedInteger(type) || IsUnsignedInteger(type); }
bool IsNumeric(TypeId type) { return IsInteger(type) || IsFloat(type); }
bool IsDateOrDateTime(TypeId type) { return type == TypeId::kDate || type == TypeId::kDateTime; }

}  // namespace granite::core
