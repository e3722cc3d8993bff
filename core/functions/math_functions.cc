// Mathematical functions, ClickHouse's names, every result Float64 unless noted:
//   exp, log (ln), exp2, log2, exp10, log10, log1p, sqrt, cbrt, erf, erfc, lgamma, tgamma, sin, cos,
//   tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, degrees, radians (x);
//   pow (power), atan2, hypot (x, y); pi(), e(); sign(x) -> Int8; isNaN, isFinite, isInfinite
//   (x) -> UInt8; intExp2, intExp10 (x) -> UInt64 (0 below 0, saturating above 2^64 like ClickHouse).
// Arguments of any numeric type are converted to Float64 first (SimpleFunction).
#include <cmath>
#include <limits>
#include <numbers>

#include "core/functions/simple_function.h"

namespace granite::core {
namespace {

template <double (*G)(double)>
void Unary(const Operand* ops, size_t i, Column* out) {
  out->Append<double>(G(F64(ops[0], i)));
}
template <double (*G)(double, double)>
void Binary(const Operand* ops, size_t i, Column* out) {
  out->Append<double>(G(F64(ops[0], i), F64(ops[1], i)));
}
template <uint8_t (*G)(double)>
void Predicate(const Operand* ops, size_t i, Column* out) {
  out->Append<uint8_t>(G(F64(ops[0], i)));
}

double Exp(double x) { return std::exp(x); }
double Log(double x) { return std::log(x); }
double Exp2(double x) { return std::exp2(x); }
double Log2(double x) { return std::log2(x); }
double Exp10(double x) { return std::pow(10.0, x); }
double Log10(double x) { return std::log10(x); }
double Log1p(double x) { return std::log1p(x); }
double Sqrt(double x) { return std::sqrt(x); }
double Cbrt(double x) { return std::cbrt(x); }
double Erf(double x) { return std::erf(x); }
double Erfc(double x) { return std::erfc(x); }
double Lgamma(double x) { return std::lgamma(x); }
double Tgamma(double x) { return std::tgamma(x); }
double Sin(double x) { return std::sin(x); }
double Cos(double x) { return std::cos(x); }
double Tan(double x) { return std::tan(x); }
double Asin(double x) { return std::asin(x); }
double Acos(double x) { return std::acos(x); }
double Atan(double x) { return std::atan(x); }
double Sinh(double x) { return std::sinh(x); }
double Cosh(double x) { return std::cosh(x); }
double Tanh(double x) { return std::tanh(x); }
double Asinh(double x) { return std::asinh(x); }
double Acosh(double x) { return std::acosh(x); }
double Atanh(double x) { return std::atanh(x); }
double Degrees(double x) { return x * (180.0 / std::numbers::pi); }
double Radians(double x) { return x * (std::numbers::pi / 180.0); }
double Pow(double x, double y) { return std::pow(x, y); }
double Atan2(double y, double x) { return std::atan2(y, x); }
double Hypot(double x, double y) { return std::hypot(x, y); }
uint8_t IsNaN(double x) { return std::isnan(x); }
uint8_t IsFinite(double x) { return std::isfinite(x); }
uint8_t IsInfinite(double x) { return std::isinf(x); }

void Pi(const Operand*, size_t, Column* out) { out->Append<double>(std::numbers::pi); }
void E(const Operand*, size_t, Column* out) { out->Append<double>(std::numbers::e); }

void Sign(const Operand* ops, size_t i, Column* out) {
  const double x = F64(ops[0], i);
  out->Append<int8_t>(x > 0 ? 1 : (x < 0 ? -1 : 0));
}

void IntExp2(const Operand* ops, size_t i, Column* out) {
  const double x = F64(ops[0], i);
  if (!(x >= 0)) return out->Append<uint64_t>(0);
  if (x >= 64) return out->Append<uint64_t>(std::numeric_limits<uint64_t>::max());
  out->Append<uint64_t>(uint64_t{1} << static_cast<int>(x));
}

void IntExp10(const Operand* ops, size_t i, Column* out) {
  const double x = F64(ops[0], i);
  if (!(x >= 0)) return out->Append<uint64_t>(0);
  if (x >= 20) return out->Append<uint64_t>(std::numeric_limits<uint64_t>::max());
  uint64_t r = 1;
  for (int k = 0; k < static_cast<int>(x); ++k) r *= 10;
  out->Append<uint64_t>(r);
}

using A = Arg;
constexpr TypeId kF64 = TypeId::kFloat64;

}  // namespace

void RegisterMathFunctions(FunctionTable& table) {
  AddSimpleFunctions(table, {
      {"exp", {A::kFloat}, 1, 1, true, kF64, MakeRowKernel<Unary<Exp>>},
      {"log", {A::kFloat}, 1, 1, true, kF64, MakeRowKernel<Unary<Log>>},
      {"exp2", {A::kFloat}, 1, 1, false, kF64, MakeRowKernel<Unary<Exp2>>},
      {"log2", {A::kFloat}, 1, 1, true, kF64, MakeRowKernel<Unary<Log2>>},
      {"exp10", {A::kFloat}, 1, 1, false, kF64, MakeRowKernel<Unary<Exp10>>},
      {"log10", {A::kFloat}, 1, 1, true, kF64, MakeRowKernel<Unary<Log10>>},
      {"log1p", {A::kFloat}, 1, 1, false, kF64, MakeRowKernel<Unary<Log1p>>},
      {"sqrt", {A::kFloat}, 1, 1, true, kF64, MakeRowKernel<Unary<Sqrt>>},
      {"cbrt", {A::kFloat}, 1, 1, false, kF64, MakeRowKernel<Unary<Cbrt>>},
      {"erf", {A::kFloat}, 1, 1, false, kF64, MakeRowKernel<Unary<Erf>>},
      {"erfc", {A::kFloat}, 1, 1, false, kF64, MakeRowKernel<Unary<Erfc>>},
      {"lgamma", {A::kFloat}, 1, 1, false, kF64, MakeRowKernel<Unary<Lgamma>>},
      {"tgamma", {A::kFloat}, 1, 1, false, kF64, MakeRowKernel<Unary<Tgamma>>},
      {"sin", {A::kFloat}, 1, 1, true, kF64, MakeRowKernel<Unary<Sin>>},
      {"cos", {A::kFloat}, 1, 1, true, kF64, MakeRowKernel<Unary<Cos>>},
      {"tan", {A::kFloat}, 1, 1, true, kF64, MakeRowKernel<Unary<Tan>>},
      {"asin", {A::kFloat}, 1, 1, true, kF64, MakeRowKernel<Unary<Asin>>},
      {"acos", {A::kFloat}, 1, 1, true, kF64, MakeRowKernel<Unary<Acos>>},
      {"atan", {A::kFloat}, 1, 1, true, kF64, MakeRowKernel<Unary<Atan>>},
      {"sinh", {A::kFloat}, 1, 1, false, kF64, MakeRowKernel<Unary<Sinh>>},
      {"cosh", {A::kFloat}, 1, 1, false, kF64, MakeRowKernel<Unary<Cosh>>},
      {"tanh", {A::kFloat}, 1, 1, true, kF64, MakeRowKernel<Unary<Tanh>>},
      {"asinh", {A::kFloat}, 1, 1, false, kF64, MakeRowKernel<Unary<Asinh>>},
      {"acosh", {A::kFloat}, 1, 1, false, kF64, MakeRowKernel<Unary<Acosh>>},
      {"atanh", {A::kFloat}, 1, 1, false, kF64, MakeRowKernel<Unary<Atanh>>},
      {"degrees", {A::kFloat}, 1, 1, true, kF64, MakeRowKernel<Unary<Degrees>>},
      {"radians", {A::kFloat}, 1, 1, true, kF64, MakeRowKernel<Unary<Radians>>},
      {"pow", {A::kFloat}, 2, 2, true, kF64, MakeRowKernel<Binary<Pow>>},
      {"atan2", {A::kFloat}, 2, 2, true, kF64, MakeRowKernel<Binary<Atan2>>},
      {"hypot", {A::kFloat}, 2, 2, true, kF64, MakeRowKernel<Binary<Hypot>>},
      {"pi", {}, 0, 0, true, kF64, MakeRowKernel<Pi>},
      {"e", {}, 0, 0, false, kF64, MakeRowKernel<E>},
      {"sign", {A::kFloat}, 1, 1, true, TypeId::kInt8, MakeRowKernel<Sign>},
      {"isNaN", {A::kFloat}, 1, 1, false, TypeId::kUInt8, MakeRowKernel<Predicate<IsNaN>>},
      {"isFinite", {A::kFloat}, 1, 1, false, TypeId::kUInt8, MakeRowKernel<Predicate<IsFinite>>},
      {"isInfinite", {A::kFloat}, 1, 1, false, TypeId::kUInt8,
       MakeRowKernel<Predicate<IsInfinite>>},
      {"intExp2", {A::kFloat}, 1, 1, false, TypeId::kUInt64, MakeRowKernel<IntExp2>},
      {"intExp10", {A::kFloat}, 1, 1, false, TypeId::kUInt64, MakeRowKernel<IntExp10>},
  });
  table.AddAlias("ln", "log", true);
  table.AddAlias("power", "pow", true);
}

}  // namespace granite::core
