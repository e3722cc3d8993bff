// Decimal kernels: both operands are brought to 128-bit scaled integers (operand_caster.h, so a
// constant converts once), the loop runs on Int128 with overflow flags collected over the batch,
// and the result is narrowed to its width. Sums, differences and products whose result is at most
// 64 bits wide (Decimal(P <= 18, S) columns with each other or with integers, the common shape of
// money arithmetic in a filtered aggregate) run on int64 instead, straight from the operands;
// a batch that overflows there is recomputed on Int128, which decides exactly. When the
// magnitudes of the batch's values leave no room for overflow (a discount subtracted from 1, a
// price times a small factor), the int64 loop checks nothing per row. Precisions do not bound the
// values (a Decimal(15, 2) column holds any 18 digits, as ClickHouse's), so only the values
// decide: each operand's bound (core/magnitude_bits.h) comes with a column read from a part (its
// granules' min / max), and an unchecked result carries the bound its operands' bounds imply, so
// a chain like price * (1 - discount) * (1 + tax) runs unchecked without a pass over any column.
// An operand of unknown bound runs the checked loop: scanning it first would cost as much.
#include "core/functions/decimal_arithmetic.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/decimal.h"
#include "core/error.h"
#include "core/functions/function_errors.h"
#include "core/functions/operand_caster.h"
#include "core/functions/vector_loops.h"
#include "core/magnitude_bits.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

enum class DecimalOp { kPlus, kMinus, kMultiply, kDivide };

bool IsPlainInteger(TypeId t) { return IsInteger(t) && !IsDateOrDateTime(t); }

// Returns the decimal width class of a decimal or plain integer: 32, 64 or 128 bits.
int WidthOf(TypeId t) {
  if (IsDecimal(t)) return static_cast<int>(ValueSize(t)) * 8;
  return ValueSize(t) <= 4 ? 32 : 64;
}

int MaxPrecisionOf(int width) { return width == 32 ? 9 : width == 64 ? 18 : 38; }

// Returns the argument as a decimal type: itself, or Decimal(P, 0) for an integer.
TypeId AsDecimal(TypeId t) { return IsDecimal(t) ? t : IntegerAsDecimal(t); }

absl::StatusOr<DecimalOp> OpOf(std::string_view name) {
  if (name == "plus") return DecimalOp::kPlus;
  if (name == "minus") return DecimalOp::kMinus;
  if (name == "multiply") return DecimalOp::kMultiply;
  if (name == "divide") return DecimalOp::kDivide;
  return Error(ErrorCode::kIllegalTypeOfArgument,
               absl::StrCat("Function ", ToAbsl(name), " does not support Decimal arguments yet"));
}

struct DecimalPlan {
  bool as_float = false;  // compute in Float64
  TypeId left;            // the operands' cast targets
  TypeId right;
  TypeId result;
};

absl::StatusOr<DecimalPlan> PlanDecimal(std::string_view name, const std::vector<ArgumentInfo>& args) {
  ASSIGN_OR_RETURN(DecimalOp op, OpOf(name));
  const TypeId a = args[0].type, b = args[1].type;
  for (size_t i = 0; i < 2; ++i) {
    const TypeId t = args[i].type;
    if (!IsDecimal(t) && !IsPlainInteger(t) && !IsFloat(t)) return IllegalArgumentType(name, i, t);
  }
  if (IsFloat(a) || IsFloat(b)) {
    return DecimalPlan{true, TypeId::kFloat64, TypeId::kFloat64, TypeId::kFloat64};
  }
  const int width = std::max(WidthOf(a), WidthOf(b));
  const int precision = MaxPrecisionOf(width);
  const int sa = ScaleOf(AsDecimal(a)), sb = ScaleOf(AsDecimal(b));
  int scale = 0;
  switch (op) {
    case DecimalOp::kPlus:
    case DecimalOp::kMinus: scale = std::max(sa, sb); break;
    case DecimalOp::kMultiply: scale = sa + sb; break;
    case DecimalOp::kDivide: scale = IsDecimal(a) ? sa : sb; break;
  }
  if (scale > precision) {
    return Error(ErrorCode::kArgumentOutOfBound,
                 absl::StrCat("Scale ", scale, " of the result of ", ToAbsl(name), "(",
                              ToAbsl(TypeName(a)), ", ", ToAbsl(TypeName(b)),
                              ") is out of bounds (max scale: ", precision, ")"));
  }
  DecimalPlan plan;
  plan.result = MakeDecimal(precision, scale);
  if (op == DecimalOp::kPlus || op == DecimalOp::kMinus) {
    plan.left = plan.right = MakeDecimal(kMaxDecimalPrecision, scale);
  } else if (op == DecimalOp::kDivide && !IsDecimal(a)) {
    // An integer dividend is read at the divisor's scale, so the quotient keeps it.
    plan.left = MakeDecimal(kMaxDecimalPrecision, sb);
    plan.right = MakeDecimal(kMaxDecimalPrecision, sb);
  } else {
    plan.left = MakeDecimal(kMaxDecimalPrecision, sa);
    plan.right = MakeDecimal(kMaxDecimalPrecision, sb);
  }
  return plan;
}

absl::Status OverflowError(std::string_view name, TypeId result) {
  return Error(ErrorCode::kDecimalOverflow,
               absl::StrCat("Decimal math overflow in function ", ToAbsl(name), " (result type ",
                            ToAbsl(TypeName(result)), ")"));
}

// Computes one Int128 operation; sets *bad on overflow or division by zero.
template <DecimalOp kOp>
struct Int128Op {
  Int128 divisor_scale;  // 10^(scale of the divisor), for divide
  bool* overflow;
  bool* zero;
  Int128 operator()(Int128 a, Int128 b) const {
    Int128 r = 0;
    if constexpr (kOp == DecimalOp::kPlus) {
      *overflow |= __builtin_add_overflow(a, b, &r);
    } else if constexpr (kOp == DecimalOp::kMinus) {
      *overflow |= __builtin_sub_overflow(a, b, &r);
    } else if constexpr (kOp == DecimalOp::kMultiply) {
      *overflow |= __builtin_mul_overflow(a, b, &r);
    } else {
      if (b == 0) {
        *zero = true;
        return 0;
      }
      Int128 scaled;
      *overflow |= __builtin_mul_overflow(a, divisor_scale, &scaled);
      r = scaled / b;
    }
    return r;
  }
};

// One int64 operation on operands already at the result's scale after multiplying by `ma` and
// `mb` (1 for multiply); sets *overflow when a step leaves int64.
template <DecimalOp kOp>
struct Int64Op {
  int64_t ma;
  int64_t mb;
  bool* overflow;
  int64_t operator()(int64_t a, int64_t b) const {
    int64_t r = 0;
    if constexpr (kOp == DecimalOp::kMultiply) {
      *overflow |= __builtin_mul_overflow(a, b, &r);
    } else {
      int64_t x, y;
      *overflow |= __builtin_mul_overflow(a, ma, &x) | __builtin_mul_overflow(b, mb, &y);
      if constexpr (kOp == DecimalOp::kPlus) {
        *overflow |= __builtin_add_overflow(x, y, &r);
      } else {
        *overflow |= __builtin_sub_overflow(x, y, &r);
      }
    }
    return r;
  }
};

// Unchecked int64 operations, for batches whose magnitudes cannot overflow (see NoOverflow).
template <DecimalOp kOp>
struct UncheckedInt64Op {
  int64_t ma;
  int64_t mb;
  int64_t operator()(int64_t a, int64_t b) const {
    if constexpr (kOp == DecimalOp::kMultiply) return a * b;
    if constexpr (kOp == DecimalOp::kPlus) return a * ma + b * mb;
    return a * ma - b * mb;
  }
};

// The bound of an operand's values (core/magnitude_bits.h): its one value when constant, else the
// bound its column was made with (read from a part, or made by a kernel), else -1. Unknown bounds
// are not found by a pass: the pass over one operand costs about what the checked loop costs.
// REQUIRES: FitsInt64(operand.type()).
int OperandBits(const Operand& operand, size_t rows) {
  if (!operand.is_constant) return KnownMagnitudeBits(operand.column);
  const Column& column = *operand.column;
  int bits = 0;
  DispatchFixed(column.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    if constexpr (std::is_integral_v<T> && sizeof(T) <= 8) {
      bits = MagnitudeBitsOf(column.Data<T>(), std::min<size_t>(rows, 1));
    }
  });
  return bits;
}

// True when a value of type `t` is an int64 without loss: decimals up to 64 bits and integers
// other than UInt64.
bool FitsInt64(TypeId t) {
  if (IsDecimal(t)) return ValueSize(t) <= 8;
  return IsPlainInteger(t) && BaseOf(t) != TypeId::kUInt64;
}

// The values of an operand as int64: the column's own buffer when it is 64-bit signed, else a
// widened copy in `*copy`. REQUIRES: FitsInt64(operand.type()).
const int64_t* Int64Values(const Operand& operand, std::vector<int64_t>* copy) {
  const Column& column = *operand.column;
  if (BaseOf(column.type()) == TypeId::kInt64 || BaseOf(column.type()) == TypeId::kDecimal64) {
    return column.Data<int64_t>();
  }
  copy->resize(column.size());
  DispatchFixed(column.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    if constexpr (std::is_integral_v<T>) {
      const T* src = column.Data<T>();
      for (size_t i = 0; i < copy->size(); ++i) (*copy)[i] = static_cast<int64_t>(src[i]);
    }
  });
  return copy->data();
}

class DecimalArithmeticKernel : public ScalarKernel {
 public:
  DecimalArithmeticKernel(std::string_view name, DecimalOp op, DecimalPlan plan,
                          OperandCaster caster, const std::vector<ArgumentInfo>& args)
      : name_(name), op_(op), plan_(plan), caster_(std::move(caster)) {
    narrow_ = !plan.as_float && op != DecimalOp::kDivide && ValueSize(plan.result) <= 8 &&
              FitsInt64(args[0].type) && FitsInt64(args[1].type);
    if (narrow_ && op != DecimalOp::kMultiply) {
      const int scale = ScaleOf(plan.result);
      ma_ = static_cast<int64_t>(PowerOf10(scale - ScaleOf(AsDecimal(args[0].type))));
      mb_ = static_cast<int64_t>(PowerOf10(scale - ScaleOf(AsDecimal(args[1].type))));
    }
  }

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    if (narrow_) {
      if (ColumnPtr out = ExecuteInt64(args, rows)) return out;
    }
    ASSIGN_OR_RETURN(std::vector<Operand> ops, caster_.CastAll(args));
    if (plan_.as_float) return ExecuteFloat(ops, rows);
    std::vector<Int128> wide(rows);
    bool overflow = false, zero = false;
    const Int128 divisor_scale = PowerOf10(ScaleOf(plan_.right));
    switch (op_) {
      case DecimalOp::kPlus:
        BinaryLoop<Int128, Int128>(ops[0], ops[1], wide.data(), rows,
                                   Int128Op<DecimalOp::kPlus>{divisor_scale, &overflow, &zero});
        break;
      case DecimalOp::kMinus:
        BinaryLoop<Int128, Int128>(ops[0], ops[1], wide.data(), rows,
                                   Int128Op<DecimalOp::kMinus>{divisor_scale, &overflow, &zero});
        break;
      case DecimalOp::kMultiply:
        BinaryLoop<Int128, Int128>(ops[0], ops[1], wide.data(), rows,
                                   Int128Op<DecimalOp::kMultiply>{divisor_scale, &overflow, &zero});
        break;
      case DecimalOp::kDivide:
        BinaryLoop<Int128, Int128>(ops[0], ops[1], wide.data(), rows,
                                   Int128Op<DecimalOp::kDivide>{divisor_scale, &overflow, &zero});
        break;
    }
    if (zero) return Error(ErrorCode::kIllegalDivision, "Division by zero");
    auto out = NewColumn(plan_.result, rows);
    switch (BaseOf(plan_.result)) {
      case TypeId::kDecimal32: overflow |= Narrow<int32_t>(wide, out.get()); break;
      case TypeId::kDecimal64: overflow |= Narrow<int64_t>(wide, out.get()); break;
      default: std::copy(wide.begin(), wide.end(), out->Data<Int128>()); break;
    }
    if (overflow) return OverflowError(name_, plan_.result);
    return ColumnPtr(std::move(out));
  }

 private:
  // The int64 loop (file comment); returns null when a step overflowed, for the Int128 loop to
  // decide.
  ColumnPtr ExecuteInt64(const std::vector<Operand>& args, size_t rows) const {
    std::vector<int64_t> copy_a, copy_b, wide;
    const int64_t* a = Int64Values(args[0], &copy_a);
    const int64_t* b = Int64Values(args[1], &copy_b);
    const int result_bits = ResultBits(OperandBits(args[0], rows), OperandBits(args[1], rows));
    // An unchecked result carries its bound, so the next kernel or sum reading it scans nothing.
    auto out = result_bits <= 63 ? NewBoundedColumn(plan_.result, result_bits)
                                 : std::make_shared<Column>(plan_.result);
    out->ResizeUninitialized(rows);
    const bool decimal64 = BaseOf(plan_.result) == TypeId::kDecimal64;
    if (!decimal64) wide.resize(rows);
    int64_t* dst = decimal64 ? out->Data<int64_t>() : wide.data();
    bool overflow = false;
    auto loop = [&](auto op) {
      BinaryLoop(a, args[0].is_constant, b, args[1].is_constant, dst, rows, op);
    };
    if (result_bits <= 63) {
      switch (op_) {
        case DecimalOp::kPlus: loop(UncheckedInt64Op<DecimalOp::kPlus>{ma_, mb_}); break;
        case DecimalOp::kMinus: loop(UncheckedInt64Op<DecimalOp::kMinus>{ma_, mb_}); break;
        default: loop(UncheckedInt64Op<DecimalOp::kMultiply>{1, 1}); break;
      }
    } else {
      switch (op_) {
        case DecimalOp::kPlus: loop(Int64Op<DecimalOp::kPlus>{ma_, mb_, &overflow}); break;
        case DecimalOp::kMinus: loop(Int64Op<DecimalOp::kMinus>{ma_, mb_, &overflow}); break;
        default: loop(Int64Op<DecimalOp::kMultiply>{1, 1, &overflow}); break;
      }
    }
    if (!decimal64) {
      int32_t* narrow = out->Data<int32_t>();
      for (size_t i = 0; i < rows; ++i) {
        overflow |= wide[i] < std::numeric_limits<int32_t>::min() ||
                    wide[i] > std::numeric_limits<int32_t>::max();
        narrow[i] = static_cast<int32_t>(wide[i]);
      }
    }
    if (overflow) return nullptr;
    return out;
  }

  // Returns a bound (bits) of every result of operands bounded by `ba` and `bb` bits, computed in
  // unbounded integers: over 63 when the int64 loop might overflow, or when an operand's bound
  // is unknown (-1). The product of |a| < 2^ba and |b| < 2^bb is below 2^(ba + bb); a sum or
  // difference of two values below 2^m is below 2^(m+1).
  int ResultBits(int ba, int bb) const {
    if (ba < 0 || bb < 0) return 64;
    if (op_ == DecimalOp::kMultiply) return ba + bb;
    return std::max(ba + BitsOfFactor(ma_), bb + BitsOfFactor(mb_)) + 1;
  }

  template <typename T>
  static bool Narrow(const std::vector<Int128>& wide, Column* out) {
    T* dst = out->Data<T>();
    bool overflow = false;
    for (size_t i = 0; i < wide.size(); ++i) {
      overflow |= wide[i] < std::numeric_limits<T>::min() || wide[i] > std::numeric_limits<T>::max();
      dst[i] = static_cast<T>(wide[i]);
    }
    return overflow;
  }

  absl::StatusOr<ColumnPtr> ExecuteFloat(const std::vector<Operand>& ops, size_t rows) const {
    auto out = NewColumn(TypeId::kFloat64, rows);
    double* dst = out->Data<double>();
    switch (op_) {
      case DecimalOp::kPlus:
        BinaryLoop<double, double>(ops[0], ops[1], dst, rows, [](double a, double b) { return a + b; });
        break;
      case DecimalOp::kMinus:
        BinaryLoop<double, double>(ops[0], ops[1], dst, rows, [](double a, double b) { return a - b; });
        break;
      case DecimalOp::kMultiply:
        BinaryLoop<double, double>(ops[0], ops[1], dst, rows, [](double a, double b) { return a * b; });
        break;
      case DecimalOp::kDivide:
        BinaryLoop<double, double>(ops[0], ops[1], dst, rows, [](double a, double b) { return a / b; });
        break;
    }
    return ColumnPtr(std::move(out));
  }

  const std::string name_;
  const DecimalOp op_;
  const DecimalPlan plan_;
  const OperandCaster caster_;
  bool narrow_ = false;  // the int64 loop applies
  int64_t ma_ = 1;       // plus / minus: the operands' factors to the result's scale
  int64_t mb_ = 1;
};

// negate and abs keep the type; abs of a negative value and negate cannot overflow the precision.
class DecimalUnaryKernel : public ScalarKernel {
 public:
  explicit DecimalUnaryKernel(bool abs) : abs_(abs) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    const Column& in = *args[0].column;
    auto out = NewColumn(in.type(), rows);
    DispatchFixed(in.type(), [&](auto tag) {
      using T = typename decltype(tag)::Type;
      const T* src = in.Data<T>();
      T* dst = out->template Data<T>();
      for (size_t i = 0; i < rows; ++i) dst[i] = abs_ ? (src[i] < 0 ? -src[i] : src[i]) : -src[i];
    });
    return ColumnPtr(std::move(out));
  }

 private:
  const bool abs_;
};

// True when `constant` is a float constant equal, as a Float64, to a value d of `column`'s
// decimal type of precision at most 15 (0.05 against Decimal(15, 2)): such decimals convert to
// distinct doubles in their order, so comparing with d gives the Float64 comparison's answer
// without converting the column (a range filter on a money column).
bool FloatConstantIsExactDecimal(const ArgumentInfo& constant, const ArgumentInfo& column) {
  if (!constant.constant || constant.constant_is_null || !IsFloat(constant.type) ||
      column.constant || !IsDecimal(column.type) || PrecisionOf(column.type) > 15) {
    return false;
  }
  const TypeId decimal = RemoveNullable(column.type);
  absl::StatusOr<ColumnPtr> as_decimal = ConstantAs(constant, decimal);
  absl::StatusOr<ColumnPtr> as_double = ConstantAs(constant, TypeId::kFloat64);
  if (!as_decimal.ok() || !as_double.ok()) return false;
  return DecimalToDouble(DecimalAt(**as_decimal, 0), ScaleOf(decimal)) ==
         (*as_double)->Get<double>(0);
}

}  // namespace

bool AnyDecimalArgument(const std::vector<ArgumentInfo>& args) {
  return std::any_of(args.begin(), args.end(),
                     [](const ArgumentInfo& arg) { return IsDecimal(arg.type); });
}

absl::StatusOr<TypeId> ResolveDecimalArithmetic(std::string_view name,
                                                const std::vector<ArgumentInfo>& args) {
  if (args.size() == 1) {
    if (name != "negate" && name != "abs") return IllegalArgumentType(name, 0, args[0].type);
    return args[0].type;
  }
  ASSIGN_OR_RETURN(DecimalPlan plan, PlanDecimal(name, args));
  return plan.result;
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileDecimalArithmetic(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  if (args.size() == 1) return std::make_unique<DecimalUnaryKernel>(name == "abs");
  ASSIGN_OR_RETURN(DecimalOp op, OpOf(name));
  ASSIGN_OR_RETURN(DecimalPlan plan, PlanDecimal(name, args));
  ASSIGN_OR_RETURN(OperandCaster caster, OperandCaster::Create(args, {plan.left, plan.right}));
  return std::make_unique<DecimalArithmeticKernel>(name, op, plan, std::move(caster), args);
}

absl::StatusOr<std::pair<TypeId, TypeId>> DecimalComparisonTypes(
    std::string_view name, const std::vector<ArgumentInfo>& args) {
  const ArgumentInfo& a = args[0];
  const ArgumentInfo& b = args[1];
  for (size_t i = 0; i < 2; ++i) {
    const TypeId t = args[i].type;
    const bool string_constant = IsString(t) && args[i].constant;
    if (!IsDecimal(t) && !IsPlainInteger(t) && !IsFloat(t) && !string_constant) {
      return IllegalArgumentType(name, i, t);
    }
  }
  if (IsFloat(a.type) || IsFloat(b.type)) {
    if (FloatConstantIsExactDecimal(a, b) || FloatConstantIsExactDecimal(b, a)) {
      const TypeId column_type = a.constant ? b.type : a.type;
      return std::make_pair(column_type, column_type);
    }
    return std::make_pair(TypeId::kFloat64, TypeId::kFloat64);
  }
  if (IsString(a.type) || IsString(b.type)) {
    const TypeId other = IsString(a.type) ? b.type : a.type;
    return std::make_pair(other, other);
  }
  // A constant that converts exactly to the column's decimal type compares in that type.
  if (a.constant.has_value() != b.constant.has_value()) {
    const ArgumentInfo& constant = a.constant ? a : b;
    const TypeId column_type = a.constant ? b.type : a.type;
    if (IsDecimal(column_type) && ScaleOf(AsDecimal(constant.type)) <= ScaleOf(column_type) &&
        ConstantAs(constant, column_type).ok()) {
      return std::make_pair(column_type, column_type);
    }
  }
  const int scale = std::max(ScaleOf(AsDecimal(a.type)), ScaleOf(AsDecimal(b.type)));
  const TypeId common = MakeDecimal(kMaxDecimalPrecision, scale);
  return std::make_pair(common, common);
}

}  // namespace granite::core
