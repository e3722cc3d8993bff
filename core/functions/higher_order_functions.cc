// Higher-order array functions, as ClickHouse types them. core::Expression evaluates a lambda's
// body once over the flattened elements of the whole batch (expression.cc); the kernels here get
// its values as their first operand, an array column with the first array's offsets ("mapped"),
// followed by the arrays themselves, and fold them row by row. Without a lambda
// (arrayCount(arr)) the one array is both the mapped values and the source.
//   arrayMap(f, a, ...)                         Array(R), R the body's type
//   arrayFilter(f, a, ...)                      a's type: the elements where f holds
//   arrayExists / arrayAll([f,] a, ...)         UInt8
//   arrayCount([f,] a, ...)                     UInt32
//   arrayFirst / arrayLast(f, a, ...)           T: the first / last element where f holds, else
//                                               T's default
//   arrayFirstIndex / arrayLastIndex(f, a, ...) UInt32: its 1-based index, else 0
//   arrayCumSum([f,] a, ...)                    Array(UInt64 | Int64 | Float64) by the kind of
//                                               f's values (or a's)
//   arraySort / arrayReverseSort([f,] a, ...)   a's type: a ordered by f's values (stable; NULLs
//                                               last in both orders)
//   arrayFill / arrayReverseFill(f, a, ...)     a's type: each element where f fails replaced by
//                                               the previous (next) one where it holds; the
//                                               first (last) element stays
//   arraySplit / arrayReverseSplit(f, a, ...)   Array(a's type): a cut before (after) each
//                                               element where f holds, never before the first
//                                               (after the last)
// Where f is a condition it must return UInt8 or Nullable(UInt8) (a NULL counts as false).
// arraySum / arrayMin / arrayMax / arrayAvg take a lambda as well (array_transform_functions.cc).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/functions/array_columns.h"
#include "core/functions/cast_column.h"
#include "core/functions/constant_column.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

enum class Shape {
  kMap, kFilter, kExists, kAll, kCount, kFirst, kLast, kFirstIndex, kLastIndex, kCumSum,
  kSort, kReverseSort, kFill, kReverseFill, kSplit, kReverseSplit,
};

struct Spec {
  std::string_view name;
  Shape shape;
  bool lambda_required;
  bool condition;  // f's values are a condition (UInt8 or Nullable(UInt8))
};

constexpr Spec kSpecs[] = {
    {"arrayMap", Shape::kMap, true, false},
    {"arrayFilter", Shape::kFilter, true, true},
    {"arrayExists", Shape::kExists, false, true},
    {"arrayAll", Shape::kAll, false, true},
    {"arrayCount", Shape::kCount, false, true},
    {"arrayFirst", Shape::kFirst, true, true},
    {"arrayLast", Shape::kLast, true, true},
    {"arrayFirstIndex", Shape::kFirstIndex, true, true},
    {"arrayLastIndex", Shape::kLastIndex, true, true},
    {"arrayCumSum", Shape::kCumSum, false, false},
    {"arraySort", Shape::kSort, false, false},
    {"arrayReverseSort", Shape::kReverseSort, false, false},
    {"arrayFill", Shape::kFill, true, true},
    {"arrayReverseFill", Shape::kReverseFill, true, true},
    {"arraySplit", Shape::kSplit, true, true},
    {"arrayReverseSplit", Shape::kReverseSplit, true, true},
};

const Spec& SpecOf(std::string_view name) {
  for (const Spec& spec : kSpecs) {
    if (spec.name == name) return spec;
  }
  return kSpecs[0];  // unreachable: only registered names resolve here
}

bool IsConditionType(TypeId type) {
  const TypeId value = RemoveNullable(type);
  return value == TypeId::kUInt8 || value == TypeId::kBool || value == TypeId::kNothing;
}

// The sum type of arrayCumSum for values of `type`; nullopt when it does not sum them.
std::optional<TypeId> CumSumType(TypeId type) {
  if (IsNullable(type) || IsArray(type) || !IsNumeric(type) || IsDecimal(type) ||
      IsDateOrDateTime(type) || IsUuid(type) || type == TypeId::kBool) {
    return std::nullopt;
  }
  if (IsFloat(type)) return TypeId::kFloat64;
  return IsSignedInteger(type) ? TypeId::kInt64 : TypeId::kUInt64;
}

absl::StatusOr<TypeId> ResolveHigherOrder(std::string_view name,
                                          const std::vector<ArgumentInfo>& args) {
  const Spec& spec = SpecOf(name);
  const bool lambda = args[0].lambda;
  if (lambda) {
    RETURN_IF_ERROR(RequireLambdaArrays(name, args));
  } else if (spec.lambda_required && args.size() < 2) {
    return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                 absl::StrCat("Function ", ToAbsl(name), " needs at least 2 arguments, passed ",
                              args.size()));
  } else if (spec.lambda_required || args.size() != 1) {
    return Error(ErrorCode::kIllegalTypeOfArgument,
                 absl::StrCat("First argument for function ", ToAbsl(name),
                              " must be a function. Actual ", ToAbsl(TypeName(args[0].type))));
  } else {
    RETURN_IF_ERROR(RequireArray(name, args, 0));
  }
  const TypeId mapped = ArrayElementOf(args[0].type);
  const TypeId source_array = args[lambda ? 1 : 0].type;
  const TypeId source = ArrayElementOf(source_array);
  if (spec.condition && !IsConditionType(mapped)) {
    if (!lambda) {
      return Error(ErrorCode::kIllegalTypeOfArgument,
                   absl::StrCat("The 1st and only argument for function ", ToAbsl(name),
                                " must be array of UInt8. Found ",
                                ToAbsl(TypeName(args[0].type)), " instead"));
    }
    return Error(ErrorCode::kIllegalTypeOfArgument,
                 absl::StrCat("Expression for function ", ToAbsl(name),
                              " must return UInt8 or Nullable(UInt8), found ",
                              ToAbsl(TypeName(mapped))));
  }
  switch (spec.shape) {
    case Shape::kMap:
      return args[0].type;
    case Shape::kFilter:
    case Shape::kSort:
    case Shape::kReverseSort:
    case Shape::kFill:
    case Shape::kReverseFill:
      return source_array;
    case Shape::kExists:
    case Shape::kAll:
      return TypeId::kUInt8;
    case Shape::kCount:
    case Shape::kFirstIndex:
    case Shape::kLastIndex:
      return TypeId::kUInt32;
    case Shape::kFirst:
    case Shape::kLast:
      return source;
    case Shape::kCumSum: {
      std::optional<TypeId> sum = CumSumType(mapped);
      if (!sum) return IllegalArgumentType(name, 0, args[0].type);
      return MakeArray(*sum);
    }
    case Shape::kSplit:
    case Shape::kReverseSplit:
      if (ArrayDepthOf(source_array) >= kMaxArrayDepth) {
        return IllegalArgumentType(name, lambda ? 1 : 0, source_array);
      }
      return MakeArray(source_array);
  }
  return Error(ErrorCode::kLogicalError, "unknown higher-order function");
}

// Reads the mapped values as a condition: non-zero and not NULL.
class Condition {
 public:
  explicit Condition(const Column& nested)
      : values_(nested.Data<uint8_t>()), nulls_(nested.NullMap()) {}
  bool operator()(uint64_t e) const {
    return values_[e] != 0 && (nulls_ == nullptr || nulls_[e] == 0);
  }

 private:
  const uint8_t* values_;
  const uint8_t* nulls_;
};

// The two arrays a kernel reads on one batch: the mapped values and the source elements.
struct Arrays {
  const Operand& mapped;
  const Operand& source;

  // Row `row`'s first element in each nested column, and its element count.
  uint64_t MappedBegin(size_t row) const { return mapped.column->ArrayBegin(RowOf(mapped, row)); }
  uint64_t SourceBegin(size_t row) const { return source.column->ArrayBegin(RowOf(source, row)); }
  uint64_t Size(size_t row) const { return source.column->ArraySizeAt(RowOf(source, row)); }
};

// Returns a column of one value per row, `value(row)` of type T.
template <typename T, typename F>
ColumnPtr PerRow(TypeId type, size_t rows, F&& value) {
  auto out = std::make_shared<Column>(type);
  out->Resize(rows);
  T* data = out->Data<T>();
  for (size_t row = 0; row < rows; ++row) data[row] = value(row);
  return out;
}

// Exists, All, Count, FirstIndex, LastIndex: a number per row from the condition.
ColumnPtr CountLike(Shape shape, const Arrays& arrays, size_t rows) {
  const Condition holds(arrays.mapped.column->Nested());
  auto count = [&](size_t row) {
    const uint64_t begin = arrays.MappedBegin(row);
    const uint64_t end = begin + arrays.Size(row);
    uint32_t n = 0;
    for (uint64_t e = begin; e < end; ++e) n += holds(e) ? 1 : 0;
    return n;
  };
  switch (shape) {
    case Shape::kExists:
      return PerRow<uint8_t>(TypeId::kUInt8, rows, [&](size_t row) { return count(row) > 0; });
    case Shape::kAll:
      return PerRow<uint8_t>(TypeId::kUInt8, rows,
                             [&](size_t row) { return count(row) == arrays.Size(row); });
    case Shape::kCount:
      return PerRow<uint32_t>(TypeId::kUInt32, rows, count);
    default:
      break;
  }
  const bool first = shape == Shape::kFirstIndex;
  return PerRow<uint32_t>(TypeId::kUInt32, rows, [&](size_t row) -> uint32_t {
    const uint64_t begin = arrays.MappedBegin(row);
    const uint64_t size = arrays.Size(row);
    for (uint64_t k = 0; k < size; ++k) {
      const uint64_t i = first ? k : size - 1 - k;
      if (holds(begin + i)) return static_cast<uint32_t>(i + 1);
    }
    return 0;
  });
}

// First, Last: the element where the condition first (last) holds, else the default.
ColumnPtr FirstOrLast(bool first, const Arrays& arrays, size_t rows, TypeId result) {
  const Condition holds(arrays.mapped.column->Nested());
  const Column& elements = arrays.source.column->Nested();
  auto out = std::make_shared<Column>(result);
  out->Reserve(rows);
  for (size_t row = 0; row < rows; ++row) {
    const uint64_t begin = arrays.MappedBegin(row);
    const uint64_t size = arrays.Size(row);
    int64_t found = -1;
    for (uint64_t k = 0; k < size && found < 0; ++k) {
      const uint64_t i = first ? k : size - 1 - k;
      if (holds(begin + i)) found = static_cast<int64_t>(i);
    }
    if (found < 0) {
      AppendDefault(out.get());
    } else {
      out->AppendFrom(elements, arrays.SourceBegin(row) + static_cast<uint64_t>(found));
    }
  }
  return out;
}

// Filter, Sort, ReverseSort, Fill, ReverseFill: the source's elements picked per row, gathered
// once.
absl::StatusOr<ColumnPtr> Reordered(Shape shape, const Arrays& arrays, size_t rows,
                                    TypeId result) {
  const Column& mapped = arrays.mapped.column->Nested();
  auto out = std::make_shared<Column>(result);
  std::vector<uint64_t>& offsets = out->MutableOffsets();
  offsets.reserve(rows);
  std::vector<uint32_t> picked;
  picked.reserve(arrays.source.column->Nested().size());
  const Condition holds(mapped);  // read by the conditional shapes only
  std::vector<uint32_t> order;
  for (size_t row = 0; row < rows; ++row) {
    const uint64_t mb = arrays.MappedBegin(row);
    const uint64_t sb = arrays.SourceBegin(row);
    const uint64_t size = arrays.Size(row);
    switch (shape) {
      case Shape::kFilter:
        for (uint64_t k = 0; k < size; ++k) {
          if (holds(mb + k)) picked.push_back(static_cast<uint32_t>(sb + k));
        }
        break;
      case Shape::kFill: {
        uint64_t kept = 0;
        for (uint64_t k = 0; k < size; ++k) {
          if (k == 0 || holds(mb + k)) kept = k;
          picked.push_back(static_cast<uint32_t>(sb + kept));
        }
        break;
      }
      case Shape::kReverseFill: {
        const size_t first = picked.size();
        picked.resize(first + size);
        uint64_t kept = size;
        for (uint64_t k = size; k-- > 0;) {
          if (k + 1 == size || holds(mb + k)) kept = k;
          picked[first + k] = static_cast<uint32_t>(sb + kept);
        }
        break;
      }
      default: {  // kSort, kReverseSort: by the mapped values, NULLs last in both orders
        const bool reverse = shape == Shape::kReverseSort;
        order.resize(size);
        for (uint64_t k = 0; k < size; ++k) order[k] = static_cast<uint32_t>(k);
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
          const bool a_null = mapped.IsNullAt(mb + a);
          const bool b_null = mapped.IsNullAt(mb + b);
          if (a_null || b_null) return !a_null && b_null;
          const int c = CompareElements(mapped, mb + a, mb + b);
          return reverse ? c > 0 : c < 0;
        });
        for (uint32_t k : order) picked.push_back(static_cast<uint32_t>(sb + k));
        break;
      }
    }
    offsets.push_back(picked.size());
  }
  out->MutableNested().AppendTaken(arrays.source.column->Nested(), picked.data(), picked.size());
  out->SetSize(rows);
  return ColumnPtr(std::move(out));
}

// Split, ReverseSplit: the source's elements in order, cut into pieces.
ColumnPtr Split(bool reverse, const Arrays& arrays, size_t rows, TypeId result) {
  const Condition holds(arrays.mapped.column->Nested());
  const Column& elements = arrays.source.column->Nested();
  auto out = std::make_shared<Column>(result);
  Column& pieces = out->MutableNested();
  Column& flat = pieces.MutableNested();
  for (size_t row = 0; row < rows; ++row) {
    const uint64_t mb = arrays.MappedBegin(row);
    const uint64_t sb = arrays.SourceBegin(row);
    const uint64_t size = arrays.Size(row);
    flat.AppendRange(elements, sb, size);
    const uint64_t base = flat.size() - size;
    for (uint64_t k = 0; k < size; ++k) {
      // A piece ends before element k (arraySplit) or after it (arrayReverseSplit).
      const bool cut = reverse ? (k + 1 < size && holds(mb + k)) : (k > 0 && holds(mb + k));
      if (!cut) continue;
      pieces.MutableOffsets().push_back(base + (reverse ? k + 1 : k));
      pieces.SetSize(pieces.MutableOffsets().size());
    }
    if (size > 0) pieces.AppendArrayEnd();
    out->AppendArrayEnd();
  }
  return out;
}

// CumSum: running sums of the mapped values in the sum type.
absl::StatusOr<ColumnPtr> CumSum(const Operand& mapped, size_t rows, TypeId result) {
  const Column& array = *mapped.column;
  const TypeId sum_type = ArrayElementOf(result);
  ASSIGN_OR_RETURN(ColumnPtr values,
                   CastColumn(std::make_shared<Column>(array.Nested()), sum_type));
  auto out = std::make_shared<Column>(result);
  Column& sums = out->MutableNested();
  sums.Resize(values->size());
  DispatchFixed(sum_type, [&](auto tag) {
    using T = typename decltype(tag)::Type;
    const T* in = values->Data<T>();
    T* running = sums.Data<T>();
    for (size_t row = 0; row < rows; ++row) {
      const size_t r = RowOf(mapped, row);
      T sum{};
      for (uint64_t e = array.ArrayBegin(r); e < array.Offsets()[r]; ++e) {
        sum += in[e];
        running[e] = sum;
      }
    }
  });
  out->MutableOffsets() = array.Offsets();
  out->SetSize(array.size());
  if (mapped.is_constant && rows != 1) return Broadcast(*out, rows);
  return ColumnPtr(std::move(out));
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileHigherOrder(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result) {
  const Shape shape = SpecOf(name).shape;
  const size_t source = args[0].lambda ? 1 : 0;
  return MakeArrayKernel([shape, source, result](const std::vector<Operand>& operands,
                                                 size_t rows) -> absl::StatusOr<ColumnPtr> {
    const Arrays arrays{operands[0], operands[source]};
    switch (shape) {
      case Shape::kMap:
        if (operands[0].is_constant && rows != 1) return Broadcast(*operands[0].column, rows);
        return operands[0].column;
      case Shape::kExists:
      case Shape::kAll:
      case Shape::kCount:
      case Shape::kFirstIndex:
      case Shape::kLastIndex:
        return CountLike(shape, arrays, rows);
      case Shape::kFirst:
      case Shape::kLast:
        return FirstOrLast(shape == Shape::kFirst, arrays, rows, result);
      case Shape::kCumSum:
        return CumSum(operands[0], rows, result);
      case Shape::kSplit:
      case Shape::kReverseSplit:
        return Split(shape == Shape::kReverseSplit, arrays, rows, result);
      default:
        return Reordered(shape, arrays, rows, result);
    }
  });
}

}  // namespace

void RegisterHigherOrderFunctions(FunctionTable& table) {
  for (const Spec& spec : kSpecs) {
    // Without a lambda one array (the resolve words ClickHouse's errors for other counts).
    FunctionDef def{spec.name, 1, kVariadic, false, ResolveHigherOrder, CompileHigherOrder};
    def.accepts_arrays = true;
    def.handles_nulls = true;
    def.takes_lambda = true;
    table.Add(def);
  }
}

}  // namespace granite::core
