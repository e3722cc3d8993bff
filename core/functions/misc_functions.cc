// Miscellaneous functions:
//   rand / rand32 (UInt32), rand64 (UInt64), randCanonical (Float64 in [0, 1)), randConstant
//     (UInt32, one value per block) — non-deterministic (SelectBinder::IsNonDeterministic);
//   toTypeName(x), hostName() (String); ignore(...) -> UInt8 0; identity(x), materialize(x) -> x;
//   throwIf(cond[, message]) -> UInt8 0, FUNCTION_THROW_IF_VALUE_IS_NON_ZERO when cond is set;
//   toUInt8OrZero ... toFloat64OrZero, toDateOrZero, toDateTimeOrZero(s): the parse, or 0;
//   IPv4NumToString, IPv4NumToStringClassC (UInt32 -> String), IPv4StringToNum (invalid input
//     fails with CANNOT_PARSE_IPV4), IPv4StringToNumOrDefault (0), isIPv4String;
//   formatReadableSize (1024-based, "1.00 KiB"), formatReadableDecimalSize ("1.00 KB"),
//   formatReadableQuantity ("1.00 thousand");
//   bitAnd, bitOr, bitXor, bitShiftLeft, bitShiftRight (integers; the wider operand's type,
//     signed if either is; a negative shift count is ARGUMENT_OUT_OF_BOUND), bitNot, bitCount,
//     roundToExp2 (the argument's type), gcd, lcm.
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/function_error_codes.h"
#include "core/functions/cast_column.h"
#include "core/functions/function_errors.h"
#include "core/functions/simple_function.h"
#include "core/functions/vector_loops.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

using A = Arg;

uint64_t NextRandom() {
  thread_local std::mt19937_64 engine(std::random_device{}());
  return engine();
}

void Rand32(const Operand*, size_t, Column* out) {
  out->Append<uint32_t>(static_cast<uint32_t>(NextRandom()));
}
void Rand64(const Operand*, size_t, Column* out) { out->Append<uint64_t>(NextRandom()); }
void RandCanonical(const Operand*, size_t, Column* out) {
  out->Append<double>(static_cast<double>(NextRandom() >> 11) * 0x1.0p-53);
}

// Functions of the argument types only, computed when compiled: toTypeName, randConstant...
absl::StatusOr<TypeId> ResolveAnyArgs(std::string_view name, const std::vector<ArgumentInfo>&) {
  if (name == "toTypeName" || name == "hostName") return TypeId::kString;
  if (name == "randConstant") return TypeId::kUInt32;
  return TypeId::kUInt8;  // ignore
}

class ConstantKernel : public ScalarKernel {
 public:
  explicit ConstantKernel(ColumnPtr value) : value_(std::move(value)) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>&, size_t rows) const override {
    auto out = std::make_shared<Column>(value_->type());
    for (size_t i = 0; i < rows; ++i) out->AppendFrom(*value_, 0);
    return ColumnPtr(std::move(out));
  }

 private:
  const ColumnPtr value_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileAnyArgs(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result) {
  auto value = std::make_shared<Column>(result);
  if (name == "toTypeName") {
    value->AppendString(TypeName(args[0].type));
  } else if (name == "hostName") {
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    value->AppendString(host);
  } else if (name == "randConstant") {
    value->Append<uint32_t>(static_cast<uint32_t>(NextRandom()));
  } else {
    value->Append<uint8_t>(0);
  }
  return std::make_unique<ConstantKernel>(std::move(value));
}

absl::StatusOr<TypeId> ResolveIdentity(std::string_view, const std::vector<ArgumentInfo>& args) {
  return args[0].type;
}

class IdentityKernel : public ScalarKernel {
 public:
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    if (!args[0].is_constant) return args[0].column;
    auto out = std::make_shared<Column>(args[0].type());
    for (size_t i = 0; i < rows; ++i) out->AppendFrom(*args[0].column, 0);
    return ColumnPtr(std::move(out));
  }
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileIdentity(std::string_view,
                                                              const std::vector<ArgumentInfo>&,
                                                              TypeId) {
  return std::make_unique<IdentityKernel>();
}

void ThrowIf(const Operand* ops, size_t i, Column* out) {
  if (I64(ops[0], i) != 0) {
    std::string message = ops[1].column != nullptr ? std::string(Str(ops[1], i))
                                                   : "Value passed to 'throwIf' function is non-zero";
    FailRow(Error(kFunctionThrowIfValueIsNonZero, message));
  }
  out->Append<uint8_t>(0);
}

// to<T>OrZero(s).
struct OrZero {
  std::string_view name;
  TypeId type;
};
constexpr OrZero kOrZero[] = {
    {"toUInt8OrZero", TypeId::kUInt8},     {"toUInt16OrZero", TypeId::kUInt16},
    {"toUInt32OrZero", TypeId::kUInt32},   {"toUInt64OrZero", TypeId::kUInt64},
    {"toInt8OrZero", TypeId::kInt8},       {"toInt16OrZero", TypeId::kInt16},
    {"toInt32OrZero", TypeId::kInt32},     {"toInt64OrZero", TypeId::kInt64},
    {"toFloat32OrZero", TypeId::kFloat32}, {"toFloat64OrZero", TypeId::kFloat64},
    {"toDateOrZero", TypeId::kDate},       {"toDateTimeOrZero", TypeId::kDateTime},
    {"toUUIDOrZero", TypeId::kUUID},
};

absl::StatusOr<TypeId> ResolveOrZero(std::string_view name,
                                     const std::vector<ArgumentInfo>& args) {
  if (!IsString(args[0].type)) return IllegalArgumentType(name, 0, args[0].type);
  for (const OrZero& f : kOrZero) {
    if (f.name == name) return f.type;
  }
  return TypeId::kUInt8;
}

class OrZeroKernel : public ScalarKernel {
 public:
  explicit OrZeroKernel(TypeId type) : type_(type) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    auto out = std::make_shared<Column>(type_);
    out->Reserve(rows);
    for (size_t i = 0; i < rows; ++i) {
      const size_t before = out->size();
      if (!ParseValueText(StringOf(args[0], i), type_, out.get()).ok() || out->size() == before) {
        out->Resize(before + 1);
      }
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const TypeId type_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileOrZero(std::string_view,
                                                            const std::vector<ArgumentInfo>&,
                                                            TypeId result) {
  return std::make_unique<OrZeroKernel>(result);
}

// IPv4.
std::string Ipv4Text(uint32_t ip, bool class_c) {
  if (class_c) return absl::StrCat(ip >> 24, ".", (ip >> 16) & 255, ".", (ip >> 8) & 255, ".xxx");
  return absl::StrCat(ip >> 24, ".", (ip >> 16) & 255, ".", (ip >> 8) & 255, ".", ip & 255);
}

bool ParseIpv4(std::string_view s, uint32_t* ip) {
  uint32_t result = 0;
  size_t pos = 0;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (pos >= s.size() || s[pos] != '.') return false;
      ++pos;
    }
    uint32_t v = 0;
    size_t digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9' && digits < 4) {
      v = v * 10 + (s[pos++] - '0');
      ++digits;
    }
    if (digits == 0 || digits > 3 || v > 255) return false;
    result = (result << 8) | v;
  }
  if (pos != s.size()) return false;
  *ip = result;
  return true;
}

template <bool kClassC>
void Ipv4NumToString(const Operand* ops, size_t i, Column* out) {
  out->AppendString(Ipv4Text(static_cast<uint32_t>(U64(ops[0], i)), kClassC));
}

void Ipv4StringToNum(const Operand* ops, size_t i, Column* out) {
  uint32_t ip = 0;
  std::string_view s = Str(ops[0], i);
  if (!ParseIpv4(s, &ip)) {
    FailRow(Error(kCannotParseIpv4,
                  absl::StrCat("Invalid IPv4 value '", std::string(s), "'")));
  }
  out->Append<uint32_t>(ip);
}

void Ipv4StringToNumOrDefault(const Operand* ops, size_t i, Column* out) {
  uint32_t ip = 0;
  if (!ParseIpv4(Str(ops[0], i), &ip)) ip = 0;
  out->Append<uint32_t>(ip);
}

void IsIpv4String(const Operand* ops, size_t i, Column* out) {
  uint32_t ip;
  out->Append<uint8_t>(ParseIpv4(Str(ops[0], i), &ip));
}

// formatReadable*.
// Appends `v` with two decimals and `unit`; past 1e60 (where ClickHouse's fixed notation gives
// up) the shortest round-trip text, in ClickHouse's spelling without '+' ("8.27e275").
void AppendReadable(double v, const char* unit, Column* out) {
  if (!(std::fabs(v) < 1e60)) {
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), v);
    std::string text(buffer, ec == std::errc() ? end : buffer);
    if (const size_t plus = text.find("e+"); plus != std::string::npos) text.erase(plus + 1, 1);
    return out->AppendString(text + unit);
  }
  out->AppendString(absl::StrFormat("%.2f%s", v, unit));
}

template <int kBase>
void FormatReadableSize(const Operand* ops, size_t i, Column* out) {
  static constexpr const char* kBinary[] = {" B",   " KiB", " MiB", " GiB", " TiB",
                                            " PiB", " EiB", " ZiB", " YiB"};
  static constexpr const char* kDecimal[] = {" B",  " KB", " MB", " GB", " TB",
                                             " PB", " EB", " ZB", " YB"};
  double v = F64(ops[0], i);
  size_t unit = 0;
  while (std::fabs(v) >= kBase && unit < 8) {
    v /= kBase;
    ++unit;
  }
  AppendReadable(v, kBase == 1024 ? kBinary[unit] : kDecimal[unit], out);
}

void FormatReadableQuantity(const Operand* ops, size_t i, Column* out) {
  static constexpr const char* kUnits[] = {
      "",                 " thousand",        " million",        " billion",
      " trillion",        " quadrillion",     " quintillion",    " sextillion",
      " septillion",      " octillion",       " nonillion",      " decillion",
      " undecillion",     " duodecillion",    " tredecillion",   " quattuordecillion",
      " quindecillion",   " sexdecillion",    " septendecillion", " octodecillion",
      " novemdecillion",  " vigintillion"};
  constexpr size_t kLast = sizeof(kUnits) / sizeof(kUnits[0]) - 1;
  double v = F64(ops[0], i);
  size_t unit = 0;
  while (std::fabs(v) >= 1000 && unit < kLast) {
    v /= 1000;
    ++unit;
  }
  AppendReadable(v, kUnits[unit], out);
}

// Bit functions: the result type follows ClickHouse for equal signedness (the wider type);
// mixed signedness gives the signed type of the wider width.
TypeId IntegerType(bool is_signed, size_t width) {
  switch (width) {
    case 1: return is_signed ? TypeId::kInt8 : TypeId::kUInt8;
    case 2: return is_signed ? TypeId::kInt16 : TypeId::kUInt16;
    case 4: return is_signed ? TypeId::kInt32 : TypeId::kUInt32;
    default: return is_signed ? TypeId::kInt64 : TypeId::kUInt64;
  }
}

absl::StatusOr<TypeId> ResolveBits(std::string_view name, const std::vector<ArgumentInfo>& args) {
  for (size_t k = 0; k < args.size(); ++k) {
    if (!IsInteger(args[k].type) || IsDateOrDateTime(args[k].type)) {
      return IllegalArgumentType(name, k, args[k].type);
    }
  }
  if (name == "bitCount") return TypeId::kUInt8;
  if (args.size() == 1 || name == "bitShiftLeft" || name == "bitShiftRight") return args[0].type;
  const bool is_signed = IsSignedInteger(args[0].type) || IsSignedInteger(args[1].type);
  return IntegerType(is_signed, std::max(ValueSize(args[0].type), ValueSize(args[1].type)));
}

class BitKernel : public ScalarKernel {
 public:
  BitKernel(std::string_view name, OperandCaster caster, TypeId result)
      : name_(name), caster_(std::move(caster)), result_(result) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    ASSIGN_OR_RETURN(std::vector<Operand> ops, caster_.CastAll(args));
    auto wide = NewColumn(TypeId::kUInt64, rows);
    uint64_t* r = wide->Data<uint64_t>();
    const uint64_t width_bits = ValueSize(result_) * 8;
    int64_t negative_shift = 0;
    for (size_t i = 0; i < rows; ++i) {
      const uint64_t a = U64(ops[0], i);
      const uint64_t b = ops.size() > 1 ? U64(ops[1], i) : 0;
      if (name_ == "bitAnd") {
        r[i] = a & b;
      } else if (name_ == "bitOr") {
        r[i] = a | b;
      } else if (name_ == "bitXor") {
        r[i] = a ^ b;
      } else if (name_ == "bitNot") {
        r[i] = ~a;
      } else if ((name_ == "bitShiftLeft" || name_ == "bitShiftRight") && signed_shift_ &&
                 static_cast<int64_t>(b) < 0) {
        negative_shift = static_cast<int64_t>(b);  // reported after the loop
        r[i] = 0;
      } else if (name_ == "bitShiftLeft") {
        r[i] = b >= width_bits ? 0 : a << b;
      } else if (name_ == "bitShiftRight") {
        r[i] = b >= width_bits ? 0 : ShiftRight(a, b);
      } else if (name_ == "bitCount") {
        r[i] = static_cast<uint64_t>(__builtin_popcountll(Truncated(a)));
      } else if (name_ == "roundToExp2") {
        r[i] = RoundToExp2(a);
      }
    }
    if (negative_shift < 0) {
      return Error(ErrorCode::kArgumentOutOfBound,
                   absl::StrCat("The number of shift positions needs to be a non-negative value: ",
                                negative_shift, " in function ", ToAbsl(name_)));
    }
    return CastColumn(wide, result_);
  }

 private:
  // The argument's bits in its own width (bitCount of Int8 -1 is 8).
  uint64_t Truncated(uint64_t a) const {
    const size_t bits = ValueSize(caster_.target(0) == TypeId::kUInt64 ? arg_type() : arg_type()) * 8;
    return bits >= 64 ? a : a & ((uint64_t{1} << bits) - 1);
  }
  TypeId arg_type() const { return result_ == TypeId::kUInt8 && name_ == "bitCount" ? source_ : result_; }
  uint64_t ShiftRight(uint64_t a, uint64_t b) const {
    if (IsSignedInteger(result_)) return static_cast<uint64_t>(static_cast<int64_t>(a) >> b);
    return a >> b;
  }
  uint64_t RoundToExp2(uint64_t a) const {
    if (IsSignedInteger(result_) && static_cast<int64_t>(a) <= 0) return 0;
    if (a == 0) return 0;
    return uint64_t{1} << (63 - __builtin_clzll(a));
  }

 public:
  TypeId source_ = TypeId::kUInt64;
  bool signed_shift_ = false;  // the shift count's type is signed: a negative count is an error

 private:
  const std::string_view name_;
  const OperandCaster caster_;
  const TypeId result_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileBits(std::string_view name,
                                                          const std::vector<ArgumentInfo>& args,
                                                          TypeId result) {
  // Signed arguments sign-extend into the 64-bit lanes: bitAnd(-1, x) keeps x.
  std::vector<TypeId> targets;
  for (const ArgumentInfo& a : args) {
    targets.push_back(IsSignedInteger(a.type) ? TypeId::kInt64 : TypeId::kUInt64);
  }
  ASSIGN_OR_RETURN(OperandCaster caster, OperandCaster::Create(args, targets));
  auto kernel = std::make_unique<BitKernel>(name, std::move(caster), result);
  kernel->source_ = args[0].type;
  kernel->signed_shift_ = args.size() > 1 && IsSignedInteger(args[1].type);
  return kernel;
}

uint64_t Gcd(uint64_t a, uint64_t b) {
  while (b != 0) {
    const uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

template <bool kLcm>
void GcdRow(const Operand* ops, size_t i, Column* out) {
  const int64_t a = I64(ops[0], i), b = I64(ops[1], i);
  const uint64_t ua = a < 0 ? uint64_t(0) - uint64_t(a) : uint64_t(a);
  const uint64_t ub = b < 0 ? uint64_t(0) - uint64_t(b) : uint64_t(b);
  const uint64_t g = Gcd(ua, ub);
  out->Append<int64_t>(kLcm ? (g == 0 ? 0 : static_cast<int64_t>(ua / g * ub))
                            : static_cast<int64_t>(g));
}

}  // namespace

void RegisterMiscFunctions(FunctionTable& table) {
  AddSimpleFunctions(table, {
      {"rand", {A::kAny}, 0, kVariadic, true, TypeId::kUInt32, MakeRowKernel<Rand32>},
      {"rand32", {A::kAny}, 0, kVariadic, false, TypeId::kUInt32, MakeRowKernel<Rand32>},
      {"rand64", {A::kAny}, 0, kVariadic, false, TypeId::kUInt64, MakeRowKernel<Rand64>},
      {"randCanonical", {A::kAny}, 0, kVariadic, false, TypeId::kFloat64,
       MakeRowKernel<RandCanonical>},
      {"throwIf", {A::kInt, A::kString}, 1, 2, false, TypeId::kUInt8, MakeRowKernel<ThrowIf>},
      {"IPv4NumToString", {A::kUInt32}, 1, 1, false, TypeId::kString,
       MakeRowKernel<Ipv4NumToString<false>>},
      {"IPv4NumToStringClassC", {A::kUInt32}, 1, 1, false, TypeId::kString,
       MakeRowKernel<Ipv4NumToString<true>>},
      {"IPv4StringToNum", {A::kString}, 1, 1, false, TypeId::kUInt32,
       MakeRowKernel<Ipv4StringToNum>},
      {"IPv4StringToNumOrDefault", {A::kString}, 1, 1, false, TypeId::kUInt32,
       MakeRowKernel<Ipv4StringToNumOrDefault>},
      {"isIPv4String", {A::kString}, 1, 1, false, TypeId::kUInt8, MakeRowKernel<IsIpv4String>},
      {"formatReadableSize", {A::kFloat}, 1, 1, false, TypeId::kString,
       MakeRowKernel<FormatReadableSize<1024>>},
      {"formatReadableDecimalSize", {A::kFloat}, 1, 1, false, TypeId::kString,
       MakeRowKernel<FormatReadableSize<1000>>},
      {"formatReadableQuantity", {A::kFloat}, 1, 1, false, TypeId::kString,
       MakeRowKernel<FormatReadableQuantity>},
      {"gcd", {A::kInt}, 2, 2, false, TypeId::kInt64, MakeRowKernel<GcdRow<false>>},
      {"lcm", {A::kInt}, 2, 2, false, TypeId::kInt64, MakeRowKernel<GcdRow<true>>},
  });
  table.Add({"toTypeName", 1, 1, false, ResolveAnyArgs, CompileAnyArgs, /*accepts_arrays=*/true});
  table.Add({"hostName", 0, 0, false, ResolveAnyArgs, CompileAnyArgs});
  table.Add({"randConstant", 0, kVariadic, false, ResolveAnyArgs, CompileAnyArgs});
  table.Add({"ignore", 0, kVariadic, false, ResolveAnyArgs, CompileAnyArgs, true});
  table.Add({"identity", 1, 1, false, ResolveIdentity, CompileIdentity, true});
  table.Add({"materialize", 1, 1, false, ResolveIdentity, CompileIdentity, true});
  for (const OrZero& f : kOrZero) table.Add({f.name, 1, 1, false, ResolveOrZero, CompileOrZero});
  for (std::string_view name : {"bitAnd", "bitOr", "bitXor", "bitShiftLeft", "bitShiftRight"}) {
    table.Add({name, 2, 2, false, ResolveBits, CompileBits});
  }
  for (std::string_view name : {"bitNot", "bitCount", "roundToExp2"}) {
    table.Add({name, 1, 1, false, ResolveBits, CompileBits});
  }
  table.AddAlias("hostname", "hostName", false);
  table.AddAlias("FQDN", "hostName", true);
  table.AddAlias("INET_NTOA", "IPv4NumToString", true);
  table.AddAlias("INET_ATON", "IPv4StringToNum", true);
}

}  // namespace granite::core
