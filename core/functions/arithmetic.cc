// Arithmetic: plus, minus, multiply, divide, intDiv, modulo, negate, abs.
//
// Result types follow ClickHouse:
//   plus, multiply: two integers -> one size wider than the wider operand (UInt8 + UInt8 ->
//     UInt16, UInt64 stays UInt64), signed if either is signed (UInt8 + Int8 -> Int16,
//     UInt64 + Int64 -> Int64); any float -> Float64.
//   minus: like plus but always signed (UInt8 - UInt8 -> Int16, UInt64 - UInt64 -> Int64).
//   Date +/- integer or float (truncated toward zero) -> Date, DateTime +/- integer or float ->
//   DateTime, integer + Date -> Date;
//   Date - Date and DateTime - DateTime -> Int32 (days / seconds).
//   divide -> Float64 (x / 0 is inf or nan).
//   intDiv(a, b) -> an integer of a's width, signed if either is signed (floats count as signed).
//   modulo(a, b) -> signed like a; the width of b, one size wider when a is signed (the
//     remainder takes b's magnitude and a's sign); Float64 if either is a float.
//   negate -> signed (UInt8 -> Int16, Int8 stays Int8); abs -> unsigned of the same width.
//   A Decimal argument: decimal_arithmetic.h.
// Integer results wrap like ClickHouse's. intDiv and modulo by integer zero fail with
// kIllegalDivision after the batch; float modulo by zero is nan. So does, as in ClickHouse, the
// minimum of the dividend's signed width divided by -1 (intDiv: any integer dividend, an unsigned
// one read as signed of its width; modulo: a signed dividend) — except that a column of Int32 or
// Int64 modulo a constant -1 is 0, as ClickHouse's modulo-by-constant path answers.
//
// Each kernel first brings both operands to one compute type (a constant once, at compile time),
// then runs a homogeneous loop: few template instantiations and no per-row type dispatch.
// Integer division by a constant multiplies by a precomputed reciprocal (constant_divider.h).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/functions/cast_column.h"
#include "core/functions/constant_divider.h"
#include "core/functions/decimal_arithmetic.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/functions/operand_caster.h"
#include "core/functions/type_rules.h"
#include "core/functions/vector_loops.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

enum class ArithmeticOp { kPlus, kMinus, kMultiply, kDivide, kIntDiv, kModulo };

ArithmeticOp OpOf(std::string_view name) {
  if (name == "plus") return ArithmeticOp::kPlus;
  if (name == "minus") return ArithmeticOp::kMinus;
  if (name == "multiply") return ArithmeticOp::kMultiply;
  if (name == "divide") return ArithmeticOp::kDivide;
  if (name == "intDiv") return ArithmeticOp::kIntDiv;
  return ArithmeticOp::kModulo;
}

bool IsPlainNumber(TypeId t) { return IsNumeric(t) && !IsDateOrDateTime(t); }
bool IsPlainInteger(TypeId t) { return IsInteger(t) && !IsDateOrDateTime(t); }
bool IsSignedOrFloat(TypeId t) { return IsSignedInteger(t) || IsFloat(t); }

// What a binary arithmetic call computes in: both operands are cast to `compute`, the loop
// writes `result`.
struct ArithmeticPlan {
  TypeId compute;
  TypeId result;
};

absl::StatusOr<ArithmeticPlan> PlanBinary(std::string_view name, TypeId a, TypeId b) {
  const ArithmeticOp op = OpOf(name);
  // Date arithmetic: Date/DateTime with an integer or a float (truncated toward zero, as
  // ClickHouse: date - 2.5 is date - 2), or a difference of two dates.
  if (op == ArithmeticOp::kPlus || op == ArithmeticOp::kMinus) {
    const auto count = [](TypeId t) { return IsPlainInteger(t) || IsFloat(t); };
    if (IsDateOrDateTime(a) && count(b)) return ArithmeticPlan{NumberCarrier(a), a};
    if (op == ArithmeticOp::kPlus && count(a) && IsDateOrDateTime(b)) {
      return ArithmeticPlan{NumberCarrier(b), b};
    }
    if (op == ArithmeticOp::kMinus && IsDateOrDateTime(a) && a == b) {
      return ArithmeticPlan{TypeId::kInt32, TypeId::kInt32};
    }
  }
  if (!IsPlainNumber(a)) return IllegalArgumentType(name, 0, a);
  if (!IsPlainNumber(b)) return IllegalArgumentType(name, 1, b);
  const bool any_float = IsFloat(a) || IsFloat(b);
  const bool any_signed = IsSignedOrFloat(a) || IsSignedOrFloat(b);
  const size_t sa = ValueSize(a), sb = ValueSize(b);
  switch (op) {
    case ArithmeticOp::kPlus:
    case ArithmeticOp::kMultiply: {
      TypeId r = any_float ? TypeId::kFloat64 : IntegerType(any_signed, NextSize(std::max(sa, sb)));
      return ArithmeticPlan{r, r};
    }
    case ArithmeticOp::kMinus: {
      TypeId r = any_float ? TypeId::kFloat64 : IntegerType(true, NextSize(std::max(sa, sb)));
      return ArithmeticPlan{r, r};
    }
    case ArithmeticOp::kDivide:
      return ArithmeticPlan{TypeId::kFloat64, TypeId::kFloat64};
    case ArithmeticOp::kIntDiv: {
      TypeId compute = any_float ? TypeId::kFloat64 : (any_signed ? TypeId::kInt64 : TypeId::kUInt64);
      return ArithmeticPlan{compute, IntegerType(any_signed, sa)};
    }
    case ArithmeticOp::kModulo: {
      if (any_float) return ArithmeticPlan{TypeId::kFloat64, TypeId::kFloat64};
      const bool a_signed = IsSignedInteger(a);
      TypeId compute = any_signed ? TypeId::kInt64 : TypeId::kUInt64;
      return ArithmeticPlan{compute, IntegerType(a_signed, a_signed ? NextSize(sb) : sb)};
    }
  }
  return IllegalArgumentType(name, 0, a);
}

// Integer ops in the unsigned type of at least int width, so that overflow wraps instead of
// being undefined (uint16 * uint16 would otherwise promote to int).
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

struct PlusOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return a + b;
    } else {
      return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
    }
  }
};
struct MinusOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return a - b;
    } else {
      return static_cast<T>(static_cast<WrapType<T>>(a) - static_cast<WrapType<T>>(b));
    }
  }
};
struct MultiplyOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return a * b;
    } else {
      return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
    }
  }
};
struct DivideOp {
  double operator()(double a, double b) const { return a / b; }
};

// plus, minus, multiply, divide: compute type == result's physical type.
template <typename Op>
class SameTypeArithmeticKernel : public ScalarKernel {
 public:
  SameTypeArithmeticKernel(OperandCaster caster, TypeId result)
      : caster_(std::move(caster)), result_(result) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    ASSIGN_OR_RETURN(std::vector<Operand> ops, caster_.CastAll(args));
    auto out = NewColumn(result_, rows);
    DispatchFixed(caster_.target(0), [&](auto tag) {
      using T = typename decltype(tag)::Type;
      if constexpr (std::is_same_v<Op, DivideOp> && !std::is_same_v<T, double>) {
        return;  // divide always computes in Float64
      } else {
        BinaryLoop<T, T>(ops[0], ops[1], out->template Data<T>(), rows, Op{});
      }
    });
    return ColumnPtr(std::move(out));
  }

 private:
  const OperandCaster caster_;
  const TypeId result_;
};

// intDiv and modulo in compute type C, written as R. The divisor passed is never 0 (or -1 for
// signed integers); the caller substitutes and reports those.
template <bool kModulo, typename C, typename R>
inline R DivideOrRemainder(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if constexpr (kModulo) {
      return static_cast<R>(std::fmod(a, b));
    } else {
      return CastNumber<R>(std::trunc(a / b));
    }
  } else {
    if constexpr (kModulo) {
      return static_cast<R>(a % b);
    } else {
      return static_cast<R>(a / b);
    }
  }
}

template <bool kModulo, typename C, typename R>
inline R SafeDivideOrRemainder(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    return DivideOrRemainder<kModulo, C, R>(a, b);
  } else if constexpr (std::is_signed_v<C>) {
    // x / -1 = -x (wrapping: INT64_MIN / -1 = INT64_MIN), x % -1 = 0; avoids the trap on x86.
    const bool minus_one = b == -1;
    const C divisor = (b == 0 || minus_one) ? C{1} : b;
    const R regular = DivideOrRemainder<kModulo, C, R>(a, divisor);
    const R negated = kModulo ? R{0} : static_cast<R>(uint64_t{0} - static_cast<uint64_t>(a));
    return minus_one ? negated : regular;
  } else {
    return DivideOrRemainder<kModulo, C, R>(a, b == 0 ? C{1} : b);
  }
}

// Divides with ConstantDivider's 32-bit form, branch-free on the divider's flags so the loop
// vectorizes (32x32->64 multiplies). Returns the OR of the dividends: the results are right only
// if it is below 2^32.
std::atomic<DivideIsa> divide_isa_cap{DivideIsa::kAvx512};

template <bool kModulo, bool kAdd, typename R>
__attribute__((always_inline)) inline uint64_t Divide32Loop(const uint64_t* a, uint32_t magic,
                                                           int shift, uint32_t d, R* out,
                                                           size_t rows) {
  uint64_t bits = 0;
  for (size_t i = 0; i < rows; ++i) {
    bits |= a[i];
    const uint32_t n = static_cast<uint32_t>(a[i]);
    const uint32_t t = static_cast<uint32_t>((uint64_t{n} * magic) >> 32);
    const uint32_t q = kAdd ? (((n - t) >> 1) + t) >> shift : t >> shift;
    out[i] = static_cast<R>(kModulo ? n - q * d : q);
  }
  return bits;
}

template <bool kModulo, bool kAdd, typename R>
__attribute__((target("avx2"))) uint64_t Divide32Avx2(const uint64_t* a, uint32_t magic,
                                                      int shift, uint32_t d, R* out, size_t rows) {
  return Divide32Loop<kModulo, kAdd>(a, magic, shift, d, out, rows);
}

template <bool kModulo, bool kAdd, typename R>
__attribute__((target("avx512f,avx512bw,avx512vl"))) uint64_t Divide32Avx512(
    const uint64_t* a, uint32_t magic, int shift, uint32_t d, R* out, size_t rows) {
  return Divide32Loop<kModulo, kAdd>(a, magic, shift, d, out, rows);
}

template <bool kModulo, bool kAdd, typename R>
uint64_t Divide32Plain(const uint64_t* a, uint32_t magic, int shift, uint32_t d, R* out,
                       size_t rows) {
  return Divide32Loop<kModulo, kAdd>(a, magic, shift, d, out, rows);
}

// Unsigned dividends by a non-power-of-two divisor < 2^32, in chunks: each chunk takes the 32-bit
// loop, and one with a dividend of 2^32 or more is then redone (from L1) with the 64-bit form.
template <bool kModulo, typename R>
void DivideChunked(const ConstantDivider& divider, const uint64_t* a, R* out, size_t rows) {
  static const bool cpu_avx2 = __builtin_cpu_supports("avx2");
  static const bool cpu_avx512 =
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  const DivideIsa cap = divide_isa_cap.load(std::memory_order_relaxed);
  const bool has_avx2 = cpu_avx2 && cap >= DivideIsa::kAvx2;
  const bool has_avx512 = cpu_avx512 && cap >= DivideIsa::kAvx512;
  constexpr size_t kChunk = 2048;
  const uint32_t magic = divider.magic32();
  const int shift = divider.shift();
  const uint32_t d = static_cast<uint32_t>(divider.divisor());
  for (size_t begin = 0; begin < rows; begin += kChunk) {
    const size_t n = std::min(kChunk, rows - begin);
    const uint64_t* in = a + begin;
    uint64_t bits;
    if (has_avx512) {
      bits = divider.add32() ? Divide32Avx512<kModulo, true>(in, magic, shift, d, out + begin, n)
                             : Divide32Avx512<kModulo, false>(in, magic, shift, d, out + begin, n);
    } else if (divider.add32()) {
      bits = has_avx2 ? Divide32Avx2<kModulo, true>(in, magic, shift, d, out + begin, n)
                      : Divide32Plain<kModulo, true>(in, magic, shift, d, out + begin, n);
    } else {
      bits = has_avx2 ? Divide32Avx2<kModulo, false>(in, magic, shift, d, out + begin, n)
                      : Divide32Plain<kModulo, false>(in, magic, shift, d, out + begin, n);
    }
    if (bits >> 32) {
      for (size_t i = 0; i < n; ++i) {
        out[begin + i] =
            static_cast<R>(kModulo ? divider.Remainder(in[i]) : divider.Divide(in[i]));
      }
    }
  }
}

// intDiv / modulo of integer column `a` by the constant divisor `d` (not 0 or -1 when signed)
// through ConstantDivider: signed values divide by magnitudes, then the C++ signs are applied
// (quotient negative when the signs differ, remainder with the dividend's sign).
template <bool kModulo, typename C, typename R>
void DivideByConstant(const C* a, C d, R* out, size_t rows) {
  if constexpr (std::is_signed_v<C>) {
    const bool negative_divisor = d < 0;
    const ConstantDivider divider(negative_divisor ? uint64_t{0} - static_cast<uint64_t>(d)
                                                   : static_cast<uint64_t>(d));
    for (size_t i = 0; i < rows; ++i) {
      const bool negative = a[i] < 0;
      const uint64_t magnitude =
          negative ? uint64_t{0} - static_cast<uint64_t>(a[i]) : static_cast<uint64_t>(a[i]);
      if constexpr (kModulo) {
        const uint64_t r = divider.Remainder(magnitude);
        out[i] = static_cast<R>(negative ? uint64_t{0} - r : r);
      } else {
        const uint64_t q = divider.Divide(magnitude);
        out[i] = static_cast<R>(negative != negative_divisor ? uint64_t{0} - q : q);
      }
    }
  } else {
    const ConstantDivider divider(d);
    if (divider.fits32() && !divider.power_of_two()) {
      DivideChunked<kModulo>(divider, a, out, rows);
      return;
    }
    for (size_t i = 0; i < rows; ++i) {
      out[i] = static_cast<R>(kModulo ? divider.Remainder(a[i]) : divider.Divide(a[i]));
    }
  }
}

// Calls f(TypeTag<C>{}) for the compute types of intDiv and modulo: Int64, UInt64, Float64.
template <typename F>
void DispatchDivisionCompute(TypeId type, F&& f) {
  switch (type) {
    case TypeId::kInt64: return f(TypeTag<int64_t>{});
    case TypeId::kUInt64: return f(TypeTag<uint64_t>{});
    default: return f(TypeTag<double>{});
  }
}

// True if some row divides the minimum of a signed `bits`-wide integer by -1 (both read in
// the signed compute type; a constant operand is one value for every row).
bool DividesMinimumByMinusOne(const Operand& a, const Operand& b, int bits, size_t rows) {
  const int64_t* dividends = a.column->Data<int64_t>();
  const int64_t* divisors = b.column->Data<int64_t>();
  const size_t divisor_rows = b.is_constant ? 1 : rows;
  bool minus_one = false;
  for (size_t i = 0; i < divisor_rows; ++i) minus_one |= divisors[i] == -1;
  if (!minus_one || rows == 0) return false;
  // The low `bits` bits of the minimum are 1 followed by zeros: shifted to the top, 2^63.
  const int shift = 64 - bits;
  constexpr uint64_t kTop = uint64_t{1} << 63;
  bool found = false;
  for (size_t i = 0; i < rows; ++i) {
    const int64_t x = dividends[a.is_constant ? 0 : i];
    const int64_t d = divisors[b.is_constant ? 0 : i];
    found |= (d == -1) & ((static_cast<uint64_t>(x) << shift) == kTop);
  }
  return found;
}

template <bool kModulo>
class DivisionKernel : public ScalarKernel {
 public:
  // `dividend` is the dividend's type before the cast to the compute type.
  DivisionKernel(OperandCaster caster, TypeId result, TypeId dividend)
      : caster_(std::move(caster)),
        result_(result),
        // intDiv reads an unsigned dividend as signed of its width (ClickHouse's DivideIntegral).
        minimum_bits_(caster_.target(0) != TypeId::kInt64 ? 0
                      : IsSignedInteger(dividend) || (!kModulo && IsInteger(dividend))
                          ? static_cast<int>(8 * ValueSize(dividend))
                          : 0),
        constant_minus_one_is_zero_(kModulo && (dividend == TypeId::kInt32 ||
                                                dividend == TypeId::kInt64)) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    ASSIGN_OR_RETURN(std::vector<Operand> ops, caster_.CastAll(args));
    auto out = NewColumn(result_, rows);
    bool division_by_zero = false;
    DispatchDivisionCompute(caster_.target(0), [&](auto compute_tag) {
      using C = typename decltype(compute_tag)::Type;
      const C* b = ops[1].column->template Data<C>();
      const size_t divisor_rows = ops[1].is_constant ? 1 : rows;
      // Float modulo by zero is nan, as in ClickHouse; everything else by zero is an error.
      if (!(kModulo && std::is_floating_point_v<C>)) {
        bool zero = false;
        for (size_t i = 0; i < divisor_rows; ++i) zero |= b[i] == 0;
        division_by_zero = zero && rows > 0;
      }
      DispatchFixed(result_, [&](auto result_tag) {
        using R = typename decltype(result_tag)::Type;
        if constexpr (std::is_integral_v<C>) {
          if (ops[1].is_constant && !ops[0].is_constant) {
            const C d = b[0];
            if (d != 0 && !(std::is_signed_v<C> && d == C(-1))) {
              DivideByConstant<kModulo, C, R>(ops[0].column->template Data<C>(), d,
                                              out->template Data<R>(), rows);
              return;
            }
          }
        }
        BinaryLoop<C, C>(ops[0], ops[1], out->template Data<R>(), rows,
                         [](C a, C d) { return SafeDivideOrRemainder<kModulo, C, R>(a, d); });
      });
    });
    if (division_by_zero) return Error(ErrorCode::kIllegalDivision, "Division by zero");
    const bool column_by_constant = ops[1].is_constant && !ops[0].is_constant;
    if (minimum_bits_ != 0 && !(constant_minus_one_is_zero_ && column_by_constant) &&
        DividesMinimumByMinusOne(ops[0], ops[1], minimum_bits_, rows)) {
      return Error(ErrorCode::kIllegalDivision,
                   absl::StrCat("Division of minimal signed number by minus one: ",
                                kModulo ? "modulo" : "intDiv", "(",
                                minimum_bits_ == 64 ? std::numeric_limits<int64_t>::min()
                                                    : -(int64_t{1} << (minimum_bits_ - 1)),
                                ", -1)"));
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const OperandCaster caster_;
  const TypeId result_;
  // Width of the signed minimum that fails when divided by -1; 0 = none can (unsigned or float
  // compute, or a modulo of an unsigned dividend).
  const int minimum_bits_;
  // modulo of an Int32 / Int64 column by a constant -1 is 0 rather than an error.
  const bool constant_minus_one_is_zero_;
};

absl::StatusOr<TypeId> ResolveBinary(std::string_view name, const std::vector<ArgumentInfo>& args) {
  if (AnyDecimalArgument(args)) return ResolveDecimalArithmetic(name, args);
  ASSIGN_OR_RETURN(ArithmeticPlan plan, PlanBinary(name, args[0].type, args[1].type));
  return plan.result;
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileBinary(std::string_view name,
                                                            const std::vector<ArgumentInfo>& args,
                                                            TypeId result_type) {
  if (AnyDecimalArgument(args)) return CompileDecimalArithmetic(name, args, result_type);
  ASSIGN_OR_RETURN(ArithmeticPlan plan, PlanBinary(name, args[0].type, args[1].type));
  ASSIGN_OR_RETURN(OperandCaster caster, OperandCaster::Create(args, {plan.compute, plan.compute}));
  switch (OpOf(name)) {
    case ArithmeticOp::kPlus:
      return std::make_unique<SameTypeArithmeticKernel<PlusOp>>(std::move(caster), plan.result);
    case ArithmeticOp::kMinus:
      return std::make_unique<SameTypeArithmeticKernel<MinusOp>>(std::move(caster), plan.result);
    case ArithmeticOp::kMultiply:
      return std::make_unique<SameTypeArithmeticKernel<MultiplyOp>>(std::move(caster),
                                                                    plan.result);
    case ArithmeticOp::kDivide:
      return std::make_unique<SameTypeArithmeticKernel<DivideOp>>(std::move(caster), plan.result);
    case ArithmeticOp::kIntDiv:
      return std::make_unique<DivisionKernel<false>>(std::move(caster), plan.result,
                                                     args[0].type);
    case ArithmeticOp::kModulo:
      return std::make_unique<DivisionKernel<true>>(std::move(caster), plan.result, args[0].type);
  }
  return Error(ErrorCode::kLogicalError, "Unhandled arithmetic function");
}

// negate and abs.
absl::StatusOr<TypeId> ResolveUnary(std::string_view name, const std::vector<ArgumentInfo>& args) {
  if (AnyDecimalArgument(args)) return ResolveDecimalArithmetic(name, args);
  const TypeId t = args[0].type;
  if (!IsPlainNumber(t)) return IllegalArgumentType(name, 0, t);
  if (IsFloat(t)) return t;
  if (name == "abs") return IntegerType(false, ValueSize(t));
  return IntegerType(true, IsSignedInteger(t) ? ValueSize(t) : NextSize(ValueSize(t)));
}

// Negates in the (signed) result type.
class NegateKernel : public ScalarKernel {
 public:
  explicit NegateKernel(OperandCaster caster) : caster_(std::move(caster)) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    ASSIGN_OR_RETURN(Operand x, caster_.Cast(0, args[0]));
    auto out = NewColumn(x.type(), rows);
    DispatchFixed(x.type(), [&](auto tag) {
      using T = typename decltype(tag)::Type;
      UnaryLoop(x.column->template Data<T>(), out->template Data<T>(), rows,
                [](T v) { return MinusOp{}(T{0}, v); });
    });
    return ColumnPtr(std::move(out));
  }

 private:
  const OperandCaster caster_;
};

// Takes the absolute value of the input type into its unsigned twin (abs(-128::Int8) = 128).
class AbsKernel : public ScalarKernel {
 public:
  explicit AbsKernel(TypeId result) : result_(result) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    const Operand& x = args[0];
    auto out = NewColumn(result_, rows);
    DispatchFixed(x.type(), [&](auto tag) {
      using T = typename decltype(tag)::Type;
      if constexpr (std::is_floating_point_v<T>) {
        UnaryLoop(x.column->template Data<T>(), out->template Data<T>(), rows,
                  [](T v) { return std::fabs(v); });
      } else {
        using U = std::make_unsigned_t<T>;
        UnaryLoop(x.column->template Data<T>(), out->template Data<U>(), rows, [](T v) {
          return v < 0 ? static_cast<U>(U{0} - static_cast<U>(v)) : static_cast<U>(v);
        });
      }
    });
    return ColumnPtr(std::move(out));
  }

 private:
  const TypeId result_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileUnary(std::string_view name,
                                                           const std::vector<ArgumentInfo>& args,
                                                           TypeId result_type) {
  if (AnyDecimalArgument(args)) return CompileDecimalArithmetic(name, args, result_type);
  if (name == "abs") return std::make_unique<AbsKernel>(result_type);
  ASSIGN_OR_RETURN(OperandCaster caster, OperandCaster::Create(args, {result_type}));
  return std::make_unique<NegateKernel>(std::move(caster));
}

}  // namespace

void SetDivideIsaCap(DivideIsa cap) { divide_isa_cap.store(cap, std::memory_order_relaxed); }

void RegisterArithmeticFunctions(FunctionTable& table) {
  for (std::string_view name : {"plus", "minus", "multiply", "divide", "intDiv", "modulo"}) {
    table.Add({name, 2, 2, false, ResolveBinary, CompileBinary});
  }
  table.AddAlias("mod", "modulo", true);
  table.Add({"negate", 1, 1, false, ResolveUnary, CompileUnary});
  table.Add({"abs", 1, 1, true, ResolveUnary, CompileUnary});
}

}  // namespace granite::core
