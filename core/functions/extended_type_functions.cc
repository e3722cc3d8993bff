// Functions of the Bool, UUID, DateTime64 and FixedString types, with ClickHouse's names and
// result types:
//   toBool(x) -> Bool (numbers: not zero; strings: the Bool words);
//   toUUID(s) -> UUID; generateUUIDv4([x]) -> UUID (random, version 4, variant 1; a new value per
//   row); toUUIDOrZero / toUUIDOrNull live with the other OrZero / OrNull functions;
//   toDateTime64(x, p[, 'tz']) -> DateTime64(p[, 'tz']) (text read in that zone); now64([p[, 'tz']])
//   -> DateTime64(p, default 3);
//   toUnixTimestamp64Second/Milli/Micro/Nano(t) -> Int64 ticks of that unit (truncated);
//   fromUnixTimestamp64Second/Milli/Micro/Nano(n[, 'tz']) -> DateTime64(0 / 3 / 6 / 9);
//   toFixedString(s, N) -> FixedString(N) (TOO_LARGE_STRING_SIZE when s is longer);
//   UUIDStringToNum(s) -> FixedString(16), the 16 bytes in text order (zeros for text that is no
//   UUID, as ClickHouse); UUIDNumToString(FixedString(16)) -> String.
// Conversions go through CastColumn (cast_column.h, extended_cast.h).
#include <chrono>
#include <memory>
#include <random>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/extended_value_text.h"
#include "core/functions/cast_column.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/status_macros.h"
#include "core/time_zone.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

// Reads a constant non-negative integer argument; -1 when it is not one.
int64_t ConstantInteger(const ArgumentInfo& arg) {
  if (!arg.constant || !IsInteger(arg.type) || IsDateOrDateTime(arg.type)) return -1;
  if (const auto* i = std::get_if<int64_t>(&*arg.constant)) return *i < 0 ? -1 : *i;
  if (const auto* u = std::get_if<uint64_t>(&*arg.constant)) {
    return *u > (uint64_t{1} << 32) ? (int64_t{1} << 32) : static_cast<int64_t>(*u);
  }
  return -1;
}

// Reads the optional time zone argument `index`: only UTC is known (see ParseType).
absl::StatusOr<uint32_t> ZoneArgument(std::string_view name, const std::vector<ArgumentInfo>& args,
                                      size_t index) {
  if (args.size() <= index) return kNoTimeZone;
  const ArgumentInfo& zone = args[index];
  if (!IsString(zone.type)) return IllegalArgumentType(name, index, zone.type);
  if (!zone.constant) return ArgumentMustBeConstant(name, index);
  return TimeZoneId(ValueToText(*zone.constant));
}

absl::StatusOr<int> PrecisionArgument(std::string_view name, const ArgumentInfo& arg,
                                      size_t index) {
  if (!IsInteger(arg.type) || IsDateOrDateTime(arg.type)) {
    return IllegalArgumentType(name, index, arg.type);
  }
  if (!arg.constant) return ArgumentMustBeConstant(name, index);
  const int64_t p = ConstantInteger(arg);
  if (p < 0 || p > kMaxDateTime64Precision) {
    return Error(ErrorCode::kArgumentOutOfBound,
                 absl::StrCat("Precision ", ValueToText(*arg.constant), " of function ", ToAbsl(name),
                              " is out of bounds (precision range: [0, ", kMaxDateTime64Precision,
                              "])"));
  }
  return static_cast<int>(p);
}

int UnixUnitPrecision(std::string_view name) {
  if (absl::EndsWith(ToAbsl(name), "Milli")) return 3;
  if (absl::EndsWith(ToAbsl(name), "Micro")) return 6;
  if (absl::EndsWith(ToAbsl(name), "Nano")) return 9;
  return 0;
}

absl::StatusOr<TypeId> Resolve(std::string_view name, const std::vector<ArgumentInfo>& args) {
  const TypeId first = args.empty() ? TypeId::kNothing : args[0].type;
  if (name == "toBool") {
    if (!IsNumeric(first) && !IsString(first) && !IsDecimal(first)) {
      return IllegalArgumentType(name, 0, first);
    }
    return TypeId::kBool;
  }
  if (name == "toUUID") {
    if (!IsString(first) && !IsUuid(first)) return IllegalArgumentType(name, 0, first);
    return TypeId::kUUID;
  }
  if (name == "generateUUIDv4") return TypeId::kUUID;
  if (name == "toDateTime64") {
    if (!IsNumeric(first) && !IsString(first) && !IsDateTime64(first)) {
      return IllegalArgumentType(name, 0, first);
    }
    ASSIGN_OR_RETURN(int precision, PrecisionArgument(name, args[1], 1));
    if (args.size() < 3 && TimeZoneOf(first) != kNoTimeZone) {
      return MakeDateTime64(precision, TimeZoneOf(first));  // a zoned date-time keeps its zone
    }
    ASSIGN_OR_RETURN(const uint32_t zone, ZoneArgument(name, args, 2));
    return MakeDateTime64(precision, zone);
  }
  if (name == "now64") {
    int precision = 3;
    if (!args.empty()) {
      ASSIGN_OR_RETURN(precision, PrecisionArgument(name, args[0], 0));
    }
    ASSIGN_OR_RETURN(const uint32_t zone, ZoneArgument(name, args, 1));
    return MakeDateTime64(precision, zone);
  }
  if (absl::StartsWith(ToAbsl(name), "toUnixTimestamp64")) {
    if (!IsDateTime64(first)) return IllegalArgumentType(name, 0, first);
    return TypeId::kInt64;
  }
  if (absl::StartsWith(ToAbsl(name), "fromUnixTimestamp64")) {
    if (!IsInteger(first) || IsDateOrDateTime(first)) return IllegalArgumentType(name, 0, first);
    ASSIGN_OR_RETURN(const uint32_t zone, ZoneArgument(name, args, 1));
    return MakeDateTime64(UnixUnitPrecision(name), zone);
  }
  if (name == "toFixedString") {
    if (!IsString(first) && !IsFixedString(first)) return IllegalArgumentType(name, 0, first);
    if (!args[1].constant) return ArgumentMustBeConstant(name, 1);
    const int64_t n = ConstantInteger(args[1]);
    if (n < 1 || n > static_cast<int64_t>(kMaxFixedStringSize)) {
      return Error(ErrorCode::kArgumentOutOfBound,
                   absl::StrCat("FixedString size ", ValueToText(*args[1].constant),
                                " of function toFixedString is out of bounds (1 to ",
                                kMaxFixedStringSize, ")"));
    }
    return MakeFixedString(static_cast<uint32_t>(n));
  }
  if (name == "UUIDStringToNum") {
    if (!IsString(first)) return IllegalArgumentType(name, 0, first);
    return MakeFixedString(16);
  }
  if (name == "UUIDNumToString") {
    if (RemoveNullable(first) != MakeFixedString(16)) return IllegalArgumentType(name, 0, first);
    return TypeId::kString;
  }
  return Error(ErrorCode::kLogicalError, "Unhandled function of the extended types");
}

// UUIDStringToNum / UUIDNumToString: a UUID's 16 bytes in text order, each half big-endian.
class UuidBytesKernel : public ScalarKernel {
 public:
  explicit UuidBytesKernel(bool to_bytes) : to_bytes_(to_bytes) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    const Column& in = *args[0].column;
    const size_t n = args[0].is_constant ? 1 : rows;
    auto out = std::make_shared<Column>(to_bytes_ ? MakeFixedString(16) : TypeId::kString);
    out->Reserve(n);
    std::string text;
    for (size_t i = 0; i < n; ++i) {
      const std::string_view value = in.StringAt(i);
      if (to_bytes_) {
        UnsignedInt128 uuid = 0;
        if (!ParseUuidText(value, &uuid)) uuid = 0;
        char bytes[16];
        const uint64_t halves[2] = {static_cast<uint64_t>(uuid), static_cast<uint64_t>(uuid >> 64)};
        for (int b = 0; b < 16; ++b) bytes[b] = static_cast<char>(halves[b / 8] >> (56 - 8 * (b % 8)));
        out->AppendString(std::string_view(bytes, 16));
      } else {
        uint64_t halves[2] = {0, 0};
        for (int b = 0; b < 16; ++b) {
          halves[b / 8] = (halves[b / 8] << 8) | static_cast<unsigned char>(value[b]);
        }
        text.clear();
        AppendUuidText((static_cast<UnsignedInt128>(halves[1]) << 64) | halves[0], &text);
        out->AppendString(text);
      }
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const bool to_bytes_;
};

// Casts argument 0 to the result type.
class ConvertKernel : public ScalarKernel {
 public:
  explicit ConvertKernel(TypeId to) : to_(to) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    return CastColumn(args[0].column, to_);
  }

 private:
  const TypeId to_;
};

// Random version 4 UUIDs, one per row.
class GenerateUuidKernel : public ScalarKernel {
 public:
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    thread_local std::mt19937_64 engine{std::random_device{}()};
    auto out = std::make_shared<Column>(TypeId::kUUID);
    out->Reserve(rows);
    for (size_t i = 0; i < rows; ++i) {
      // The text's first half is the value's low 64 bits (extended_value_text.h): its digit 13
      // (bits 12..15 of the low half) is the version 4; digit 17 (the high half's top two bits)
      // the variant 0b10.
      uint64_t low = engine(), high = engine();
      low = (low & ~uint64_t{0xf000}) | 0x4000;
      high = (high & ~(uint64_t{3} << 62)) | (uint64_t{2} << 62);
      out->Append((static_cast<UnsignedInt128>(high) << 64) | low);
    }
    return ColumnPtr(std::move(out));
  }
};

class Now64Kernel : public ScalarKernel {
 public:
  // `result`: DateTime64(p[, 'tz']), the zone given as now64's second argument.
  explicit Now64Kernel(TypeId result) : result_(result), precision_(PrecisionOf(result)) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    const int64_t nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
    const int64_t ticks = nanos / TicksPerSecond(kMaxDateTime64Precision - precision_);
    auto out = std::make_shared<Column>(result_);
    out->Reserve(rows);
    for (size_t i = 0; i < rows; ++i) out->Append(ticks);
    return ColumnPtr(std::move(out));
  }

 private:
  const TypeId result_;
  const int precision_;
};

// toUnixTimestamp64*: ticks of precision `from` -> ticks of precision `to` (truncated toward
// zero); fromUnixTimestamp64*: the integer is already ticks of the result's precision.
class UnixTicksKernel : public ScalarKernel {
 public:
  UnixTicksKernel(int from, int to, TypeId result) : from_(from), to_(to), result_(result) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    ColumnPtr in = args[0].column;
    if (in->type() != TypeId::kInt64 && !IsDateTime64(in->type())) {
      ASSIGN_OR_RETURN(in, CastColumn(in, TypeId::kInt64));
    }
    const int64_t* src = in->Data<int64_t>();
    const size_t n = in->size();
    auto out = std::make_shared<Column>(result_);
    out->Resize(n);
    int64_t* dst = out->Data<int64_t>();
    bool overflow = false;
    for (size_t i = 0; i < n; ++i) {
      if (to_ >= from_) {
        overflow |= __builtin_mul_overflow(src[i], TicksPerSecond(to_ - from_), &dst[i]);
      } else {
        dst[i] = src[i] / TicksPerSecond(from_ - to_);
      }
    }
    if (overflow) {
      return Error(ErrorCode::kDecimalOverflow,
                   "A value does not fit Int64 ticks of " + std::string(TypeName(result_)));
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const int from_;
  const int to_;
  const TypeId result_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> Compile(std::string_view name,
                                                      const std::vector<ArgumentInfo>& args,
                                                      TypeId result) {
  if (name == "generateUUIDv4") return std::make_unique<GenerateUuidKernel>();
  if (name == "UUIDStringToNum") return std::make_unique<UuidBytesKernel>(true);
  if (name == "UUIDNumToString") return std::make_unique<UuidBytesKernel>(false);
  if (name == "now64") return std::make_unique<Now64Kernel>(result);
  if (absl::StartsWith(ToAbsl(name), "toUnixTimestamp64")) {
    return std::make_unique<UnixTicksKernel>(PrecisionOf(args[0].type), UnixUnitPrecision(name),
                                             result);
  }
  if (absl::StartsWith(ToAbsl(name), "fromUnixTimestamp64")) {
    return std::make_unique<UnixTicksKernel>(PrecisionOf(result), PrecisionOf(result), result);
  }
  return std::make_unique<ConvertKernel>(result);
}

}  // namespace

void RegisterExtendedTypeFunctions(FunctionTable& table) {
  table.Add({"toBool", 1, 1, false, Resolve, Compile});
  table.Add({"toUUID", 1, 1, false, Resolve, Compile});
  table.Add({"generateUUIDv4", 0, 1, false, Resolve, Compile});
  table.Add({"toDateTime64", 2, 3, false, Resolve, Compile});
  table.Add({"now64", 0, 2, false, Resolve, Compile});
  for (std::string_view name : {"toUnixTimestamp64Second", "toUnixTimestamp64Milli",
                                 "toUnixTimestamp64Micro", "toUnixTimestamp64Nano"}) {
    table.Add({name, 1, 1, false, Resolve, Compile});
  }
  for (std::string_view name : {"fromUnixTimestamp64Second", "fromUnixTimestamp64Milli",
                                 "fromUnixTimestamp64Micro", "fromUnixTimestamp64Nano"}) {
    table.Add({name, 1, 2, false, Resolve, Compile});
  }
  table.Add({"toFixedString", 2, 2, false, Resolve, Compile});
  table.Add({"UUIDStringToNum", 1, 1, false, Resolve, Compile});
  table.Add({"UUIDNumToString", 1, 1, false, Resolve, Compile});
}

}  // namespace granite::core
