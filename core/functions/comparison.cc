// Comparisons: equals, notEquals, less, greater, lessOrEquals, greaterOrEquals -> UInt8.
//
// Numbers compare by value across signedness and width (-1 < 1::UInt64 is true); Date with
// DateTime compares as DateTime; Date and DateTime with numbers as day numbers / timestamps;
// strings compare as bytes; Decimals as decimal_arithmetic.h says. A String constant on the other side of a number or date is parsed
// once, at compile time ('2013-07-01' against a Date column); a String column against a
// Date/DateTime is parsed per batch.
//
// Plan, chosen at compile time: a constant that has an exact value in the other side's type is
// converted to it (x = 5 on an Int32 column compares int32 with int32); otherwise both sides go to
// their comparison type (type_rules.h); UInt64 against signed values runs an exact mixed loop.
#include <cstring>
#include <memory>
#include <type_traits>

#include "core/error.h"
#include "core/functions/constant_column.h"
#include "core/functions/decimal_arithmetic.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/functions/operand_caster.h"
#include "core/functions/type_rules.h"
#include "core/functions/vector_loops.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

// Exact a < b and a == b for any two physical types (mixed signed/unsigned integers included).
template <typename A, typename B>
inline bool LessExact(A a, B b) {
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B> &&
                std::is_signed_v<A> != std::is_signed_v<B>) {
    if constexpr (std::is_signed_v<A>) {
      return a < 0 || static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
    } else {
      return b >= 0 && static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
    }
  } else {
    return a < b;
  }
}

template <typename A, typename B>
inline bool EqualsExact(A a, B b) {
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B> &&
                std::is_signed_v<A> != std::is_signed_v<B>) {
    if constexpr (std::is_signed_v<A>) {
      return a >= 0 && static_cast<uint64_t>(a) == static_cast<uint64_t>(b);
    } else {
      return b >= 0 && static_cast<uint64_t>(a) == static_cast<uint64_t>(b);
    }
  } else {
    return a == b;
  }
}

// Each op compares numbers (operator()) and strings (FromOrder of memcmp's sign). Same-type
// operands use the native operator, which keeps IEEE semantics for NaN.
struct EqualsOp {
  static constexpr bool kEquality = true;
  static constexpr bool kNegated = false;
  template <typename A, typename B>
  uint8_t operator()(A a, B b) const { return EqualsExact(a, b); }
  static bool FromOrder(int c) { return c == 0; }
};
struct NotEqualsOp {
  static constexpr bool kEquality = true;
  static constexpr bool kNegated = true;
  template <typename A, typename B>
  uint8_t operator()(A a, B b) const {
    if constexpr (std::is_same_v<A, B>) return a != b;
    return !EqualsExact(a, b);
  }
  static bool FromOrder(int c) { return c != 0; }
};
struct LessOp {
  static constexpr bool kEquality = false;
  template <typename A, typename B>
  uint8_t operator()(A a, B b) const { return LessExact(a, b); }
  static bool FromOrder(int c) { return c < 0; }
};
struct GreaterOp {
  static constexpr bool kEquality = false;
  template <typename A, typename B>
  uint8_t operator()(A a, B b) const { return LessExact(b, a); }
  static bool FromOrder(int c) { return c > 0; }
};
struct LessOrEqualsOp {
  static constexpr bool kEquality = false;
  template <typename A, typename B>
  uint8_t operator()(A a, B b) const {
    if constexpr (std::is_same_v<A, B>) return a <= b;
    return !LessExact(b, a);
  }
  static bool FromOrder(int c) { return c <= 0; }
};
struct GreaterOrEqualsOp {
  static constexpr bool kEquality = false;
  template <typename A, typename B>
  uint8_t operator()(A a, B b) const {
    if constexpr (std::is_same_v<A, B>) return a >= b;
    return !LessExact(a, b);
  }
  static bool FromOrder(int c) { return c >= 0; }
};

// Compares every row of a String column with a constant of N bytes: the size first, then the
// bytes by a memcmp of constant size, which compiles to a load and a compare (no call per row).
template <typename Op, size_t N>
void EqualsSized(const uint64_t* offsets, const char* chars, size_t rows, const char* constant,
                 uint8_t* out) {
  uint64_t begin = 0;
  for (size_t i = 0; i < rows; ++i) {
    const uint64_t end = offsets[i];
    const bool equal = end - begin == N && std::memcmp(chars + begin, constant, N) == 0;
    out[i] = equal != Op::kNegated;
    begin = end;
  }
}

// Walks the rows of a String column without re-reading the previous offset.
template <typename Op>
void CompareStringColumnWithConstant(const Column& column, std::string_view constant,
                                     bool constant_on_left, uint8_t* out) {
  const uint64_t* offsets = column.Offsets().data();
  const char* chars = column.Chars().data();
  const size_t rows = column.size();
  uint64_t begin = 0;
  if constexpr (Op::kEquality) {
    if (constant.empty()) {
      // s = '' / s <> '' (filters on "has a value"): only the sizes, no call per row.
      for (size_t i = 0; i < rows; ++i) {
        const uint64_t end = offsets[i];
        out[i] = (end == begin) != Op::kNegated;
        begin = end;
      }
      return;
    }
    switch (constant.size()) {  // s = 'F', s = 'MAIL': a compare of known size, inlined
      case 1: return EqualsSized<Op, 1>(offsets, chars, rows, constant.data(), out);
      case 2: return EqualsSized<Op, 2>(offsets, chars, rows, constant.data(), out);
      case 3: return EqualsSized<Op, 3>(offsets, chars, rows, constant.data(), out);
      case 4: return EqualsSized<Op, 4>(offsets, chars, rows, constant.data(), out);
      case 5: return EqualsSized<Op, 5>(offsets, chars, rows, constant.data(), out);
      case 6: return EqualsSized<Op, 6>(offsets, chars, rows, constant.data(), out);
      case 7: return EqualsSized<Op, 7>(offsets, chars, rows, constant.data(), out);
      case 8: return EqualsSized<Op, 8>(offsets, chars, rows, constant.data(), out);
      default: break;
    }
    for (size_t i = 0; i < rows; ++i) {
      const uint64_t end = offsets[i];
      const bool equal = end - begin == constant.size() &&
                         std::memcmp(chars + begin, constant.data(), constant.size()) == 0;
      out[i] = equal != Op::kNegated;
      begin = end;
    }
  } else {
    for (size_t i = 0; i < rows; ++i) {
      const uint64_t end = offsets[i];
      std::string_view s(chars + begin, end - begin);
      out[i] = constant_on_left ? Op::FromOrder(constant.compare(s)) : Op::FromOrder(s.compare(constant));
      begin = end;
    }
  }
}

template <typename Op>
void CompareStrings(const Operand& a, const Operand& b, uint8_t* out, size_t rows) {
  if (b.is_constant && !a.is_constant) {
    return CompareStringColumnWithConstant<Op>(*a.column, b.column->StringAt(0), false, out);
  }
  if (a.is_constant && !b.is_constant) {
    return CompareStringColumnWithConstant<Op>(*b.column, a.column->StringAt(0), true, out);
  }
  for (size_t i = 0; i < rows; ++i) out[i] = Op::FromOrder(StringOf(a, i).compare(StringOf(b, i)));
}

struct ComparisonPlan {
  TypeId left;
  TypeId right;
};

bool IsStringConstant(const ArgumentInfo& arg) { return IsString(arg.type) && arg.constant; }

absl::StatusOr<ComparisonPlan> PlanComparison(std::string_view name,
                                              const std::vector<ArgumentInfo>& args) {
  const ArgumentInfo& a = args[0];
  const ArgumentInfo& b = args[1];
  if (a.type == b.type) return ComparisonPlan{a.type, a.type};
  if (IsDecimal(a.type) || IsDecimal(b.type)) {
    ASSIGN_OR_RETURN(auto types, DecimalComparisonTypes(name, args));
    return ComparisonPlan{types.first, types.second};
  }
  if (IsString(a.type) || IsString(b.type)) {
    // The String side is parsed as the other side's type: a constant always, a column only
    // against dates.
    const size_t string_index = IsString(a.type) ? 0 : 1;
    const TypeId other = IsString(a.type) ? b.type : a.type;
    const ArgumentInfo& text = args[string_index];
    if (IsStringConstant(text)) {
      // Surface a malformed constant ('yesterday' against a Date) when the call is resolved.
      RETURN_IF_ERROR(ConvertConstantExactly(*text.constant, text.type, other).status());
    } else if (IsFixedString(other)) {
      // A String column against a FixedString: both as String (the padding dropped).
      return ComparisonPlan{TypeId::kString, TypeId::kString};
    } else if (!IsDateOrDateTime(other) && !IsDateTime64(other) && !IsUuid(other)) {
      return IllegalArgumentType(name, string_index, TypeId::kString);
    }
    return ComparisonPlan{other, other};
  }
  // A constant that has an exact value in the column's type is compared in that type.
  if (a.constant.has_value() != b.constant.has_value()) {
    const ArgumentInfo& constant = a.constant ? a : b;
    const TypeId column_type = a.constant ? b.type : a.type;
    ASSIGN_OR_RETURN(std::optional<Value> exact,
                     ConvertConstantExactly(*constant.constant, constant.type, column_type));
    if (exact) return ComparisonPlan{column_type, column_type};
  }
  if (std::optional<TypeId> common = ComparisonType(a.type, b.type)) {
    return ComparisonPlan{*common, *common};
  }
  // UInt64 against a signed integer: exact mixed-sign comparison of UInt64 with Int64.
  return ComparisonPlan{IsSignedInteger(a.type) ? TypeId::kInt64 : TypeId::kUInt64,
                        IsSignedInteger(b.type) ? TypeId::kInt64 : TypeId::kUInt64};
}

template <typename Op>
class ComparisonKernel : public ScalarKernel {
 public:
  explicit ComparisonKernel(OperandCaster caster) : caster_(std::move(caster)) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    ASSIGN_OR_RETURN(std::vector<Operand> ops, caster_.CastAll(args));
    auto out = NewColumn(TypeId::kUInt8, rows);
    uint8_t* result = out->Data<uint8_t>();
    const TypeId left = caster_.target(0);
    const TypeId right = caster_.target(1);
    if (HasStringLayout(left)) {
      CompareStrings<Op>(ops[0], ops[1], result, rows);
    } else if (left == right) {
      DispatchFixed(left, [&](auto tag) {
        using T = typename decltype(tag)::Type;
        BinaryLoop<T, T>(ops[0], ops[1], result, rows, Op{});
      });
    } else if (left == TypeId::kUInt64) {
      BinaryLoop<uint64_t, int64_t>(ops[0], ops[1], result, rows, Op{});
    } else {
      BinaryLoop<int64_t, uint64_t>(ops[0], ops[1], result, rows, Op{});
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const OperandCaster caster_;
};

absl::StatusOr<TypeId> ResolveComparison(std::string_view name,
                                         const std::vector<ArgumentInfo>& args) {
  RETURN_IF_ERROR(PlanComparison(name, args).status());
  return TypeId::kUInt8;
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileComparison(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  ASSIGN_OR_RETURN(ComparisonPlan plan, PlanComparison(name, args));
  ASSIGN_OR_RETURN(OperandCaster caster, OperandCaster::Create(args, {plan.left, plan.right}));
  if (name == "equals") return std::make_unique<ComparisonKernel<EqualsOp>>(std::move(caster));
  if (name == "notEquals") {
    return std::make_unique<ComparisonKernel<NotEqualsOp>>(std::move(caster));
  }
  if (name == "less") return std::make_unique<ComparisonKernel<LessOp>>(std::move(caster));
  if (name == "greater") return std::make_unique<ComparisonKernel<GreaterOp>>(std::move(caster));
  if (name == "lessOrEquals") {
    return std::make_unique<ComparisonKernel<LessOrEqualsOp>>(std::move(caster));
  }
  if (name == "greaterOrEquals") {
    return std::make_unique<ComparisonKernel<GreaterOrEqualsOp>>(std::move(caster));
  }
  return Error(ErrorCode::kLogicalError, "Unhandled comparison function");
}

}  // namespace

void RegisterComparisonFunctions(FunctionTable& table) {
  for (std::string_view name :
       {"equals", "notEquals", "less", "greater", "lessOrEquals", "greaterOrEquals"}) {
    table.Add({name, 2, 2, false, ResolveComparison, CompileComparison});
  }
}

}  // namespace granite::core
