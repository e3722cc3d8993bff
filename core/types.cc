#include "core/types.h"

#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include <optional>
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/mutex.h"
#include "absl/container/flat_hash_map.h"
#include <memory>
#include "core/status_macros.h"
#include "core/time_zone.h"
#include "core/tuple_type.h"

namespace granite::core {

namespace {

// Holds "Decimal(P, S)" for every valid precision and scale, built once.
const std::vector<std::string>& DecimalNames() {
  static const std::vector<std::string>* names = [] {
    auto* v = new std::vector<std::string>((kMaxDecimalPrecision + 1) * (kMaxDecimalPrecision + 1));
    for (int p = 1; p <= kMaxDecimalPrecision; ++p) {
      for (int s = 0; s <= p; ++s) {
        (*v)[p * (kMaxDecimalPrecision + 1) + s] = absl::StrCat("Decimal(", p, ", ", s, ")");
      }
    }
    return v;
  }();
  return *names;
}

// Parses the comma-separated non-negative integers inside "(...)" of `text` (after `open`).
bool ParseTypeArguments(std::string_view text, size_t open, std::vector<int>* out) {
  const size_t close = text.rfind(')');
  if (open == std::string_view::npos) return true;
  if (close == std::string_view::npos || close < open) return false;
  std::string_view inner = text.substr(open + 1, close - open - 1);
  if (!absl::StripAsciiWhitespace(ToAbsl(inner)).empty()) {
    for (absl::string_view piece : absl::StrSplit(ToAbsl(inner), ',')) {
      piece = absl::StripAsciiWhitespace(piece);
      int value = 0;
      if (piece.empty() || piece.size() > 3 || !absl::SimpleAtoi(piece, &value) || value < 0) {
        return false;
      }
      out->push_back(value);
    }
  }
  return absl::StripAsciiWhitespace(ToAbsl(text.substr(close + 1))).empty();
}

absl::StatusOr<TypeId> CheckedDecimal(std::string_view text, int precision, int scale) {
  if (precision < 1 || precision > kMaxDecimalPrecision) {
    return Error(ErrorCode::kArgumentOutOfBound,
                 absl::StrCat("Precision ", precision, " is out of bounds (precision range: [1, ",
                              kMaxDecimalPrecision, "]) in type ", ToAbsl(text)));
  }
  if (scale < 0 || scale > precision) {
    return Error(ErrorCode::kArgumentOutOfBound,
                 absl::StrCat("Scale ", scale, " is out of bounds (max scale: ", precision,
                              ") in type ", ToAbsl(text)));
  }
  return MakeDecimal(precision, scale);
}

// Parses the decimal spellings; nullopt if `base` is not one.
std::optional<absl::StatusOr<TypeId>> ParseDecimalType(std::string_view text,
                                                       std::string_view base, size_t open) {
  int fixed_precision = 0;
  if (base == "decimal32") fixed_precision = 9;
  else if (base == "decimal64") fixed_precision = 18;
  else if (base == "decimal128") fixed_precision = 38;
  else if (base != "decimal" && base != "numeric" && base != "dec") return std::nullopt;
  std::vector<int> args;
  if (!ParseTypeArguments(text, open, &args)) {
    return Error(ErrorCode::kSyntaxError, absl::StrCat("Cannot parse type ", ToAbsl(text)));
  }
  if (fixed_precision != 0) {
    if (args.size() != 1) {
      return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                   absl::StrCat("Type ", ToAbsl(text), " takes one argument (the scale)"));
    }
    return CheckedDecimal(text, fixed_precision, args[0]);
  }
  if (args.size() > 2) {
    return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                 absl::StrCat("Type ", ToAbsl(text), " takes at most two arguments: precision and scale"));
  }
  // ClickHouse's defaults: DECIMAL = Decimal(10, 0), DECIMAL(P) = Decimal(P, 0).
  return CheckedDecimal(text, args.empty() ? 10 : args[0], args.size() < 2 ? 0 : args[1]);
}

// Reads the zone argument of DateTime('tz') / DateTime64(p, 'tz'): a quoted name of the zone table.
absl::StatusOr<uint32_t> ParseZoneArgument(std::string_view text, std::string_view zone) {
  if (zone.size() < 2 || zone.front() != '\'' || zone.back() != '\'') {
    return Error(ErrorCode::kIllegalTypeOfArgument,
                 absl::StrCat("The time zone argument of a date-time type must be a string "
                              "literal: ", ToAbsl(text)));
  }
  return TimeZoneId(zone.substr(1, zone.size() - 2));
}

// Parses DateTime64(p[, 'tz']) and FixedString(N); nullopt if `base` is neither.
std::optional<absl::StatusOr<TypeId>> ParseParameterizedType(std::string_view text,
                                                             std::string_view base, size_t open) {
  if (base != "datetime64" && base != "fixedstring") return std::nullopt;
  std::string_view inner;
  if (open != std::string::npos) {
    const size_t close = text.rfind(')');
    if (close == std::string_view::npos || close < open ||
        !absl::StripAsciiWhitespace(ToAbsl(text.substr(close + 1))).empty()) {
      return Error(ErrorCode::kSyntaxError, absl::StrCat("Cannot parse type ", ToAbsl(text)));
    }
    inner = text.substr(open + 1, close - open - 1);
  }
  std::vector<std::string> args;
  if (!absl::StripAsciiWhitespace(ToAbsl(inner)).empty()) {
    for (absl::string_view piece : absl::StrSplit(ToAbsl(inner), ',')) {
      args.emplace_back(absl::StripAsciiWhitespace(piece));
    }
  }
  int number = 0;
  const bool has_number = !args.empty() && args[0].size() <= 9 &&
                          absl::SimpleAtoi(args[0], &number) && number >= 0;
  if (base == "fixedstring") {
    if (args.size() != 1) {
      return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                   absl::StrCat("FixedString data type family must have exactly one argument - "
                                "size in bytes: ", ToAbsl(text)));
    }
    if (!has_number || number == 0 || static_cast<uint32_t>(number) > kMaxFixedStringSize) {
      return Error(ErrorCode::kArgumentOutOfBound,
                   absl::StrCat("FixedString size ", args[0], " is out of bounds (1 to ",
                                kMaxFixedStringSize, ") in type ", ToAbsl(text)));
    }
    return MakeFixedString(static_cast<uint32_t>(number));
  }
  if (args.empty()) return MakeDateTime64(3);  // ClickHouse's default precision
  if (args.size() > 2) {
    return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                 absl::StrCat("DateTime64 takes one or two arguments (precision, time zone): ",
                              ToAbsl(text)));
  }
  if (!has_number || number > kMaxDateTime64Precision) {
    return Error(ErrorCode::kArgumentOutOfBound,
                 absl::StrCat("Precision ", args[0], " is out of bounds (precision range: [0, ",
                              kMaxDateTime64Precision, "]) in type ", ToAbsl(text)));
  }
  uint32_t zone = kNoTimeZone;
  if (args.size() == 2) {
    ASSIGN_OR_RETURN(zone, ParseZoneArgument(text, args[1]));
  }
  return MakeDateTime64(number, zone);
}

// Parses DateTime[('tz')]; nullopt if `base` is not DateTime.
std::optional<absl::StatusOr<TypeId>> ParseDateTimeType(std::string_view text,
                                                        std::string_view base, size_t open) {
  if (base != "datetime") return std::nullopt;
  if (open == std::string_view::npos) return TypeId::kDateTime;
  const size_t close = text.rfind(')');
  if (close == std::string_view::npos || close < open ||
      !absl::StripAsciiWhitespace(ToAbsl(text.substr(close + 1))).empty()) {
    return Error(ErrorCode::kSyntaxError, absl::StrCat("Cannot parse type ", ToAbsl(text)));
  }
  const std::string inner(absl::StripAsciiWhitespace(ToAbsl(text.substr(open + 1, close - open - 1))));
  if (inner.empty()) return TypeId::kDateTime;
  absl::StatusOr<uint32_t> zone = ParseZoneArgument(text, inner);
  if (!zone.ok()) return zone.status();
  return WithTimeZone(TypeId::kDateTime, *zone);
}

// Returns T's text of `wrapper`(T) (`name` matched case-insensitively, spaces allowed before the
// parenthesis), or nullopt when `trimmed` is not that wrapper.
std::optional<std::string_view> WrappedType(std::string_view trimmed, std::string_view name) {
  if (trimmed.size() <= name.size() + 1 || trimmed.back() != ')' ||
      !absl::EqualsIgnoreCase(ToAbsl(trimmed.substr(0, name.size())), ToAbsl(name))) {
    return std::nullopt;
  }
  std::string_view rest = trimmed.substr(name.size());
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) {
    rest.remove_prefix(1);
  }
  if (rest.empty() || rest.front() != '(') return std::nullopt;
  return rest.substr(1, rest.size() - 2);
}

}  // namespace

bool IsValidType(uint32_t raw) {
  if ((raw & kArrayDepthMask) != 0) {
    raw &= ~kArrayDepthMask;
    if (raw == static_cast<uint32_t>(TypeId::kNothing)) return true;  // [] is Array(Nothing)
  }
  if ((raw & kNullableFlag) != 0) {
    raw &= ~kNullableFlag;
    if (raw == static_cast<uint32_t>(TypeId::kNothing)) return true;
  }
  if (raw < static_cast<uint32_t>(kTypeCount)) return true;
  if (IsDateTime(static_cast<TypeId>(raw))) {
    return (raw >> 24) == 0 && IsValidTimeZoneId(TimeZoneOf(static_cast<TypeId>(raw)));
  }
  if (raw == static_cast<uint32_t>(TypeId::kBool) || raw == static_cast<uint32_t>(TypeId::kUUID)) {
    return true;
  }
  const TypeId type = static_cast<TypeId>(raw);
  if (BaseOf(type) == TypeId::kDateTime64) {
    return ((raw >> 24) & 0xfu) == 0 && PrecisionOf(type) <= kMaxDateTime64Precision &&
           IsValidTimeZoneId(TimeZoneOf(type));
  }
  if (BaseOf(type) == TypeId::kFixedString) {
    return (raw >> 24) == 0 && FixedStringSizeOf(type) >= 1;
  }
  if (!IsDecimal(type) || (raw >> 24) != 0) return false;
  const int p = PrecisionOf(type), s = ScaleOf(type);
  return p >= 1 && p <= kMaxDecimalPrecision && s <= p && MakeDecimal(p, s) == type;
}

void AppendTypeBytes(TypeId type, std::string* out) {
  for (; IsArray(type); type = ArrayElementOf(type)) out->push_back(static_cast<char>(kArrayTypeByte));
  if (IsNullable(type)) {
    out->push_back(static_cast<char>(kNullableTypeByte));
    type = RemoveNullable(type);
  }
  const uint32_t zone = TimeZoneOf(type);
  if (zone != kNoTimeZone && (IsDateTime(type) || zone != kUtcTimeZone)) {
    out->push_back(static_cast<char>(kTimeZoneTypeByte));
    out->push_back(static_cast<char>(zone & 0xffu));
    out->push_back(static_cast<char>(zone >> 8));
    type = RemoveTimeZone(type);
  }
  out->push_back(static_cast<char>(BaseOf(type)));
  if (IsDecimal(type) || IsDateTime64(type) || IsFixedString(type)) {
    out->push_back(static_cast<char>(PrecisionOf(type)));
    out->push_back(static_cast<char>(ScaleOf(type)));
  }
}

bool ReadTypeBytes(std::string_view* bytes, TypeId* type) {
  if (bytes->empty()) return false;
  uint32_t flags = 0;
  size_t used = 0;
  uint32_t depth = 0;
  while (used < bytes->size() && static_cast<uint8_t>((*bytes)[used]) == kArrayTypeByte) {
    if (++depth > kMaxArrayDepth) return false;
    ++used;
  }
  if (bytes->size() > used && static_cast<uint8_t>((*bytes)[used]) == kNullableTypeByte) {
    flags = kNullableFlag;
    ++used;
  }
  flags |= depth << kArrayDepthShift;
  uint32_t zone = kNoTimeZone;
  if (bytes->size() > used && static_cast<uint8_t>((*bytes)[used]) == kTimeZoneTypeByte) {
    if (bytes->size() < used + 3) return false;
    zone = static_cast<uint8_t>((*bytes)[used + 1]) |
           static_cast<uint32_t>(static_cast<uint8_t>((*bytes)[used + 2])) << 8;
    if (zone == kNoTimeZone || zone > kMaxTimeZoneId) return false;
    used += 3;
  }
  if (bytes->size() <= used) return false;
  uint32_t raw = static_cast<uint8_t>((*bytes)[used]);
  if (raw == static_cast<uint32_t>(TypeId::kNothing) && flags == 0) return false;
  ++used;
  const TypeId base = static_cast<TypeId>(raw);
  if (IsDecimal(base) || IsDateTime64(base) || IsFixedString(base)) {
    if (bytes->size() < used + 2) return false;
    raw |= static_cast<uint32_t>(static_cast<uint8_t>((*bytes)[used])) << 8;
    raw |= static_cast<uint32_t>(static_cast<uint8_t>((*bytes)[used + 1])) << 16;
    used += 2;
  }
  if (zone != kNoTimeZone) {
    if (!IsDateTime(base) && !IsDateTime64(base)) return false;
    if (TimeZoneOf(static_cast<TypeId>(raw)) != kNoTimeZone) return false;
    raw = static_cast<uint32_t>(WithTimeZone(static_cast<TypeId>(raw), zone));
  }
  raw |= flags;
  if (!IsValidType(raw)) return false;
  *type = static_cast<TypeId>(raw);
  bytes->remove_prefix(used);
  return true;
}

// Returns the name of a type whose name is built from parameters and kept for the process's life:
// Bool, UUID, DateTime('tz'), DateTime64(p[, 'tz']), FixedString(N), each also Nullable, and
// every array and every tuple.
std::string_view InternedTypeName(TypeId type) {
  static Mutex* mu = new Mutex("type_names");
  static auto* names = new absl::flat_hash_map<uint32_t, std::unique_ptr<std::string>>();
  const uint32_t raw = static_cast<uint32_t>(type);
  // An array's name is built from its element's outside the lock (which TypeName may take).
  // So is a tuple's, from its elements'.
  std::string array_name;
  if (IsArray(type)) array_name = absl::StrCat("Array(", ToAbsl(TypeName(ArrayElementOf(type))), ")");
  if (IsTuple(type)) array_name = TupleTypeName(type);
  MutexLock lock(*mu);
  auto& slot = (*names)[raw];
  if (slot == nullptr && (IsArray(type) || IsTuple(type))) {
    slot = std::make_unique<std::string>(std::move(array_name));
  }
  if (slot == nullptr) {
    const TypeId nested = RemoveNullable(type);
    std::string name;
    switch (BaseOf(nested)) {
      case TypeId::kBool: name = "Bool"; break;
      case TypeId::kUUID: name = "UUID"; break;
      case TypeId::kDateTime:
        name = absl::StrCat("DateTime('", ToAbsl(TimeZoneName(TimeZoneOf(nested))), "')");
        break;
      case TypeId::kDateTime64:
        name = absl::StrCat("DateTime64(", PrecisionOf(nested));
        if (TimeZoneOf(nested) != kNoTimeZone) {
          absl::StrAppend(&name, ", '", ToAbsl(TimeZoneName(TimeZoneOf(nested))), "'");
        }
        name += ")";
        break;
      case TypeId::kFixedString: name = absl::StrCat("FixedString(", FixedStringSizeOf(nested), ")"); break;
      default: name = "Unknown"; break;
    }
    if (IsNullable(type)) name = absl::StrCat("Nullable(", name, ")");
    slot = std::make_unique<std::string>(std::move(name));
  }
  return *slot;
}

// Holds "Nullable(T)" for every parameterless T and Nothing, and for every decimal, built once.
std::string_view NullableTypeName(TypeId nested) {
  static const std::vector<std::string>* names = [] {
    auto* v = new std::vector<std::string>();
    for (int t = 0; t < kTypeCount; ++t) {
      v->push_back(absl::StrCat("Nullable(", ToAbsl(TypeName(static_cast<TypeId>(t))), ")"));
    }
    v->push_back("Nullable(Nothing)");
    for (int p = 1; p <= kMaxDecimalPrecision; ++p) {
      for (int s = 0; s <= p; ++s) {
        v->push_back(absl::StrCat("Nullable(", ToAbsl(TypeName(MakeDecimal(p, s))), ")"));
      }
    }
    return v;
  }();
  if (nested == TypeId::kNothing) return (*names)[kTypeCount];
  if (IsDecimal(nested)) {
    const int p = PrecisionOf(nested), s = ScaleOf(nested);
    if (p < 1 || p > kMaxDecimalPrecision || s > p) return "Nullable(Decimal)";
    // Precisions 1 .. p - 1 hold 2 + 3 + ... + p names before precision p.
    const size_t before = static_cast<size_t>(p - 1) * (p + 2) / 2;
    return (*names)[kTypeCount + 1 + before + s];
  }
  const uint32_t raw = static_cast<uint32_t>(nested);
  if (raw < static_cast<uint32_t>(kTypeCount)) return (*names)[raw];
  return "Nullable(Unknown)";
}

std::string_view TypeName(TypeId type) {
  if ((BaseOf(type) >= TypeId::kBool && BaseOf(type) <= TypeId::kTuple) ||
      (IsDateTime(type) && TimeZoneOf(type) != kNoTimeZone)) {
    return InternedTypeName(type);
  }
  if (IsNullable(type)) return NullableTypeName(RemoveNullable(type));
  if (IsDecimal(type)) {
    const int p = PrecisionOf(type), s = ScaleOf(type);
    if (p < 1 || p > kMaxDecimalPrecision || s > p) return "Decimal";
    return DecimalNames()[p * (kMaxDecimalPrecision + 1) + s];
  }
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
    case TypeId::kNothing: return "Nothing";
    default: break;
  }
  return "Unknown";
}

absl::StatusOr<TypeId> ParseType(std::string_view text) {
  {
    std::string_view trimmed = text;
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front()))) {
      trimmed.remove_prefix(1);
    }
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) {
      trimmed.remove_suffix(1);
    }
    if (std::optional<std::string_view> inner = WrappedType(trimmed, "nullable")) {
      ASSIGN_OR_RETURN(const TypeId nested, ParseType(*inner));
      if (IsNullable(nested) || IsArray(nested)) {
        return Error(ErrorCode::kIllegalTypeOfArgument,
                     absl::StrCat("Nested type ", ToAbsl(TypeName(nested)),
                                  " cannot be inside Nullable type"));
      }
      return MakeNullable(nested);
    }
    // LowCardinality(T) is read as T: ClickHouse schemas load unchanged, and values, functions
    // and formats are T's; the column is stored as T (no dictionary yet) and named T.
    if (std::optional<std::string_view> inner = WrappedType(trimmed, "lowcardinality")) {
      ASSIGN_OR_RETURN(const TypeId nested, ParseType(*inner));
      if (IsArray(nested)) {
        return Error(ErrorCode::kIllegalTypeOfArgument,
                     absl::StrCat("LowCardinality can't be used with the type ",
                                  ToAbsl(TypeName(nested)), ": only with scalar types"));
      }
      return nested;
    }
    if (std::optional<std::string_view> inner = WrappedType(trimmed, "array")) {
      ASSIGN_OR_RETURN(const TypeId element, ParseType(*inner));
      if (ArrayDepthOf(element) >= kMaxArrayDepth) {
        return Error(ErrorCode::kArgumentOutOfBound,
                     absl::StrCat("Arrays nest at most ", kMaxArrayDepth,
                                  " deep in granite: ", ToAbsl(trimmed)));
      }
      return MakeArray(element);
    }
  }
  std::string t = absl::AsciiStrToLower(absl::StripAsciiWhitespace(ToAbsl(text)));
  // VARCHAR(255), CHAR(10): the parenthesised part does not change the type.
  std::string base = t.substr(0, t.find('('));
  base = std::string(absl::StripAsciiWhitespace(base));
  const size_t open = t.find('(');
  if (auto decimal = ParseDecimalType(text.substr(0, std::string_view::npos), base,
                                      open == std::string::npos ? std::string_view::npos
                                                                : text.find('('))) {
    return *decimal;
  }
  if (auto date_time = ParseDateTimeType(
          text, base, open == std::string::npos ? std::string_view::npos : text.find('('))) {
    return *date_time;
  }
  if (auto parameterized = ParseParameterizedType(
          text, base, open == std::string::npos ? std::string_view::npos : text.find('('))) {
    return *parameterized;
  }
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
      {"real", TypeId::kFloat32},      {"boolean", TypeId::kBool},   {"bool", TypeId::kBool},
      {"uuid", TypeId::kUUID},
      {"double precision", TypeId::kFloat64},
  };
  for (const auto& entry : kNames) {
    if (base == entry.name) return entry.type;
  }
  return Error(ErrorCode::kUnknownType, "Unknown data type family: " + std::string(text));
}

size_t ValueSize(TypeId type) {
  switch (BaseOf(type)) {
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
    case TypeId::kFloat64:
    case TypeId::kDecimal64: return 8;
    case TypeId::kDecimal32: return 4;
    case TypeId::kDecimal128: return 16;
    case TypeId::kString: return 0;
    case TypeId::kNothing:
    case TypeId::kBool: return 1;
    case TypeId::kUUID: return 16;
    case TypeId::kDateTime64: return 8;
    case TypeId::kFixedString: return 0;  // String layout: bytes plus end offsets
    case TypeId::kArray: return 0;        // end offsets plus a nested column
    case TypeId::kTuple: return 0;        // one column per element
  }
  return 0;
}

bool IsString(TypeId type) {
  type = RemoveNullable(type); return type == TypeId::kString; }
bool IsFloat(TypeId type) {
  type = RemoveNullable(type); return type == TypeId::kFloat32 || type == TypeId::kFloat64; }
bool IsSignedInteger(TypeId type) {
  type = RemoveNullable(type);
  return type == TypeId::kInt8 || type == TypeId::kInt16 || type == TypeId::kInt32 ||
         type == TypeId::kInt64;
}
bool IsUnsignedInteger(TypeId type) {
  type = RemoveNullable(type);
  return type == TypeId::kUInt8 || type == TypeId::kUInt16 || type == TypeId::kUInt32 ||
         type == TypeId::kUInt64 || type == TypeId::kDate || IsDateTime(type) ||
         type == TypeId::kBool;
}
bool IsInteger(TypeId type) { return IsSignedInteger(type) || IsUnsignedInteger(type); }
bool IsNumeric(TypeId type) { return IsInteger(type) || IsFloat(type); }
bool IsDateOrDateTime(TypeId type) {
  type = RemoveNullable(type); return type == TypeId::kDate || IsDateTime(type); }

}  // namespace granite::core
