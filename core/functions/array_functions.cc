// Array functions that build arrays or look inside them, as ClickHouse types them:
//   array(a, ...) / [a, ...]     Array(ElementSupertype(a, ...)); [] is Array(Nothing)
//   arrayElement(arr, i), arr[i] T; 1-based, negative from the end, out of range T's default
//                                (NULL for Nullable(T) elements)
//   length, empty, notEmpty      UInt64, UInt8, UInt8 (overloads of the String functions)
//   has, indexOf, countEqual     UInt8, UInt64, UInt64; x compared in the elements' supertype
//   hasAll, hasAny               UInt8
//   equals, notEquals            UInt8: arrays of one supertype compared element by element
//   range(n), range(a, b[, s])   Array of the arguments' supertype (at least UInt8)
//   emptyArrayUInt8() ...        Array(T) with no elements
// Each kernel reads constants as one-row operands (RowOf) and builds its result row by row.
#include <limits>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/functions/array_cast.h"
#include "core/functions/array_columns.h"
#include "core/functions/cast_column.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/functions/type_rules.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

std::vector<TypeId> TypesOf(const std::vector<ArgumentInfo>& args) {
  std::vector<TypeId> types;
  for (const ArgumentInfo& arg : args) types.push_back(arg.type);
  return types;
}

// ---- array(...) -----------------------------------------------------------------------------

absl::StatusOr<TypeId> ResolveArray(std::string_view name, const std::vector<ArgumentInfo>& args) {
  ASSIGN_OR_RETURN(TypeId element, ElementSupertypeFor(name, TypesOf(args)));
  if (ArrayDepthOf(element) >= kMaxArrayDepth) {
    return Error(ErrorCode::kArgumentOutOfBound,
                 absl::StrCat("Arrays nest at most ", kMaxArrayDepth, " deep"));
  }
  return MakeArray(element);
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileArray(std::string_view,
                                                           const std::vector<ArgumentInfo>&,
                                                           TypeId result) {
  return MakeArrayKernel([result](const std::vector<Operand>& args, size_t rows) -> absl::StatusOr<ColumnPtr> {
    const TypeId element = ArrayElementOf(result);
    std::vector<ColumnPtr> values;
    for (const Operand& arg : args) {
      ASSIGN_OR_RETURN(ColumnPtr value, CastKeepingNulls(arg.column, element));
      values.push_back(std::move(value));
    }
    auto out = std::make_shared<Column>(result);
    Column& nested = out->MutableNested();
    nested.Reserve(rows * args.size());
    for (size_t row = 0; row < rows; ++row) {
      for (size_t a = 0; a < args.size(); ++a) nested.AppendFrom(*values[a], RowOf(args[a], row));
      out->AppendArrayEnd();
    }
    return ColumnPtr(std::move(out));
  });
}

// ---- arrayElement ---------------------------------------------------------------------------

absl::StatusOr<TypeId> ResolveArrayElement(std::string_view name,
                                           const std::vector<ArgumentInfo>& args) {
  RETURN_IF_ERROR(RequireArray(name, args, 0));
  if (!IsInteger(args[1].type) || IsDateOrDateTime(args[1].type) || IsNullable(args[1].type)) {
    return IllegalArgumentType(name, 1, args[1].type);
  }
  return ArrayElementOf(args[0].type);
}

// Returns the nested row of element `index` (1-based, negative from the end) of array `row`, or
// -1 when it is out of range.
int64_t ElementRow(const Column& array, size_t row, int64_t index) {
  const int64_t size = static_cast<int64_t>(array.ArraySizeAt(row));
  if (index == 0 || index > size || index < -size) return -1;
  const int64_t offset = index > 0 ? index - 1 : size + index;
  return static_cast<int64_t>(array.ArrayBegin(row)) + offset;
}

absl::StatusOr<ColumnPtr> IndexColumn(const Operand& operand) {
  return CastColumn(operand.column, IsSignedInteger(operand.type()) || operand.type() != TypeId::kUInt64
                                        ? TypeId::kInt64
                                        : TypeId::kUInt64);
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileArrayElement(std::string_view,
                                                                  const std::vector<ArgumentInfo>&,
                                                                  TypeId result) {
  return MakeArrayKernel([result](const std::vector<Operand>& args, size_t rows) -> absl::StatusOr<ColumnPtr> {
    const Column& array = *args[0].column;
    ASSIGN_OR_RETURN(ColumnPtr index, IndexColumn(args[1]));
    const bool unsigned_index = index->type() == TypeId::kUInt64;
    auto out = std::make_shared<Column>(result);
    out->Reserve(rows);
    for (size_t row = 0; row < rows; ++row) {
      const size_t i = RowOf(args[1], row);
      int64_t position = 0;
      if (unsigned_index) {
        const uint64_t u = index->Get<uint64_t>(i);
        position = u > static_cast<uint64_t>(INT64_MAX) ? 0 : static_cast<int64_t>(u);
      } else {
        position = index->Get<int64_t>(i);
      }
      const int64_t element = ElementRow(array, RowOf(args[0], row), position);
      if (element < 0) {
        AppendDefault(out.get());
      } else {
        out->AppendFrom(array.Nested(), static_cast<size_t>(element));
      }
    }
    return ColumnPtr(std::move(out));
  });
}

// ---- length, empty, notEmpty ----------------------------------------------------------------

absl::StatusOr<TypeId> ResolveSizeFunction(std::string_view name,
                                           const std::vector<ArgumentInfo>& args) {
  RETURN_IF_ERROR(RequireArray(name, args, 0));
  return name == "length" ? TypeId::kUInt64 : TypeId::kUInt8;
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileSizeFunction(
    std::string_view name, const std::vector<ArgumentInfo>&, TypeId result) {
  const int mode = name == "length" ? 0 : name == "empty" ? 1 : 2;
  return MakeArrayKernel([mode, result](const std::vector<Operand>& args,
                               size_t rows) -> absl::StatusOr<ColumnPtr> {
    const Column& array = *args[0].column;
    auto out = std::make_shared<Column>(result);
    out->Reserve(rows);
    for (size_t row = 0; row < rows; ++row) {
      const uint64_t size = array.ArraySizeAt(RowOf(args[0], row));
      if (mode == 0) {
        out->Append<uint64_t>(size);
      } else {
        out->Append<uint8_t>((size == 0) == (mode == 1) ? 1 : 0);
      }
    }
    return ColumnPtr(std::move(out));
  });
}

// ---- has, indexOf, countEqual, hasAll, hasAny, equals, notEquals -----------------------------

// The element type both sides are brought to: for has(arr, x) the supertype of T and x's type,
// for hasAll(a, b) / equals(a, b) that of both arrays' elements.
absl::StatusOr<TypeId> SearchElementType(std::string_view name,
                                         const std::vector<ArgumentInfo>& args) {
  RETURN_IF_ERROR(RequireArray(name, args, 0));
  const bool two_arrays = name == "hasAll" || name == "hasAny" || name == "equals" ||
                          name == "notEquals";
  if (two_arrays) RETURN_IF_ERROR(RequireArray(name, args, 1));
  const TypeId other = two_arrays ? ArrayElementOf(args[1].type) : args[1].type;
  return ElementSupertypeFor(name, {ArrayElementOf(args[0].type), other});
}

absl::StatusOr<TypeId> ResolveSearch(std::string_view name, const std::vector<ArgumentInfo>& args) {
  RETURN_IF_ERROR(SearchElementType(name, args).status());
  return name == "indexOf" || name == "countEqual" ? TypeId::kUInt64 : TypeId::kUInt8;
}

// Returns whether array row `i` of `a` equals array row `j` of `b` (both of one type).
bool ArraysEqual(const Column& a, size_t i, const Column& b, size_t j) {
  return ElementsEqual(a, i, b, j);
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileSearch(std::string_view name,
                                                            const std::vector<ArgumentInfo>& args,
                                                            TypeId result) {
  ASSIGN_OR_RETURN(const TypeId element, SearchElementType(name, args));
  const std::string function(name);
  return MakeArrayKernel([function, element, result](const std::vector<Operand>& args,
                                            size_t rows) -> absl::StatusOr<ColumnPtr> {
    ASSIGN_OR_RETURN(ColumnPtr array, ArrayOperandAs(args[0], MakeArray(element)));
    const bool two_arrays = IsArray(args[1].column->type()) && function != "has" &&
                            function != "indexOf" && function != "countEqual";
    ColumnPtr other;
    if (two_arrays) {
      ASSIGN_OR_RETURN(other, ArrayOperandAs(args[1], MakeArray(element)));
    } else {
      ASSIGN_OR_RETURN(other, CastKeepingNulls(args[1].column, element));
    }
    const Column& nested = array->Nested();
    auto out = std::make_shared<Column>(result);
    out->Reserve(rows);
    for (size_t row = 0; row < rows; ++row) {
      const size_t a = RowOf(args[0], row), b = RowOf(args[1], row);
      const uint64_t begin = array->ArrayBegin(a), end = array->Offsets()[a];
      if (function == "equals" || function == "notEquals") {
        const bool equal = ArraysEqual(*array, a, *other, b);
        out->Append<uint8_t>(equal == (function == "equals") ? 1 : 0);
        continue;
      }
      if (function == "hasAll" || function == "hasAny") {
        const bool all = function == "hasAll";
        bool answer = all;
        for (uint64_t k = other->ArrayBegin(b); k < other->Offsets()[b] && answer == all; ++k) {
          bool found = false;
          for (uint64_t e = begin; e < end && !found; ++e) {
            found = ElementsEqual(nested, e, other->Nested(), k);
          }
          answer = found;
        }
        out->Append<uint8_t>(answer ? 1 : 0);
        continue;
      }
      uint64_t count = 0, first = 0;
      for (uint64_t e = begin; e < end; ++e) {
        if (!ElementsEqual(nested, e, *other, b)) continue;
        ++count;
        if (first == 0) first = e - begin + 1;
        if (function != "countEqual") break;
      }
      if (function == "has") {
        out->Append<uint8_t>(count > 0 ? 1 : 0);
      } else {
        out->Append<uint64_t>(function == "indexOf" ? first : count);
      }
    }
    return ColumnPtr(std::move(out));
  });
}

// ---- range ----------------------------------------------------------------------------------

absl::StatusOr<TypeId> ResolveRange(std::string_view name, const std::vector<ArgumentInfo>& args) {
  std::vector<TypeId> types;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!IsInteger(args[i].type) || IsDateOrDateTime(args[i].type) || IsNullable(args[i].type) ||
        IsBool(args[i].type)) {
      return IllegalArgumentType(name, i, args[i].type);
    }
    types.push_back(args[i].type);
  }
  ASSIGN_OR_RETURN(TypeId element, ElementSupertypeFor(name, types));
  return MakeArray(element);
}

// Bounds the elements one range() call may build, as ClickHouse's function_range_max_elements_in_block.
constexpr int64_t kMaxRangeElements = 500'000'000;

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileRange(std::string_view,
                                                           const std::vector<ArgumentInfo>&,
                                                           TypeId result) {
  return MakeArrayKernel([result](const std::vector<Operand>& args, size_t rows) -> absl::StatusOr<ColumnPtr> {
    std::vector<ColumnPtr> values;
    for (const Operand& arg : args) {
      // A UInt64 past Int64's range would wrap to a negative bound and an empty array.
      if (arg.column->type() == TypeId::kUInt64) {
        const uint64_t* data = arg.column->Data<uint64_t>();
        for (size_t i = 0; i < arg.column->size(); ++i) {
          if (data[i] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            return Error(ErrorCode::kArgumentOutOfBound,
                         absl::StrCat("A call to function range would produce more than ",
                                      kMaxRangeElements, " array elements: bound ", data[i]));
          }
        }
      }
      ASSIGN_OR_RETURN(ColumnPtr value, CastColumn(arg.column, TypeId::kInt64));
      values.push_back(std::move(value));
    }
    auto built = std::make_shared<Column>(MakeArray(TypeId::kInt64));
    Column& nested = built->MutableNested();
    int64_t total = 0;
    for (size_t row = 0; row < rows; ++row) {
      auto at = [&](size_t a) { return values[a]->Get<int64_t>(RowOf(args[a], row)); };
      const int64_t start = args.size() == 1 ? 0 : at(0);
      const int64_t end = args.size() == 1 ? at(0) : at(1);
      const int64_t step = args.size() == 3 ? at(2) : 1;
      if (step <= 0) {
        return Error(ErrorCode::kArgumentOutOfBound,
                     absl::StrCat("A call to function range would produce an infinite array: "
                                  "step ", step));
      }
      for (int64_t v = start; v < end; v += step) {
        if (++total > kMaxRangeElements) {
          return Error(ErrorCode::kArgumentOutOfBound,
                       absl::StrCat("A call to function range would produce more than ",
                                    kMaxRangeElements, " array elements"));
        }
        nested.Append<int64_t>(v);
        if (end - v <= step) break;  // v + step would pass end (or overflow)
      }
      built->AppendArrayEnd();
    }
    return CastArrayColumn(*built, result);
  });
}

// ---- emptyArrayT() --------------------------------------------------------------------------

constexpr std::string_view kEmptyArrayTypes[] = {
    "UInt8", "UInt16", "UInt32", "UInt64", "Int8",   "Int16", "Int32",
    "Int64", "Float32", "Float64", "String", "Date", "DateTime"};

absl::StatusOr<TypeId> ResolveEmptyArray(std::string_view name, const std::vector<ArgumentInfo>&) {
  ASSIGN_OR_RETURN(TypeId element, ParseType(name.substr(std::string_view("emptyArray").size())));
  return MakeArray(element);
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileEmptyArray(std::string_view,
                                                                const std::vector<ArgumentInfo>&,
                                                                TypeId result) {
  return MakeArrayKernel([result](const std::vector<Operand>&, size_t rows) -> absl::StatusOr<ColumnPtr> {
    auto out = std::make_shared<Column>(result);
    out->Resize(rows);
    return ColumnPtr(std::move(out));
  });
}

}  // namespace

void RegisterArrayFunctions(FunctionTable& table) {
  table.Add({"array", 0, kVariadic, false, ResolveArray, CompileArray, true, true});
  table.Add({"arrayElement", 2, 2, false, ResolveArrayElement, CompileArrayElement, true, true});
  for (std::string_view name : {"has", "indexOf", "countEqual", "hasAll", "hasAny"}) {
    table.Add({name, 2, 2, false, ResolveSearch, CompileSearch, true, true});
  }
  table.Add({"range", 1, 3, false, ResolveRange, CompileRange, true, true});
  static const std::vector<std::string>* names = [] {
    auto* v = new std::vector<std::string>();
    for (std::string_view type : kEmptyArrayTypes) v->push_back(absl::StrCat("emptyArray", ToAbsl(type)));
    return v;
  }();
  for (const std::string& name : *names) {
    table.Add({name, 0, 0, false, ResolveEmptyArray, CompileEmptyArray, true, true});
  }
}

void RegisterArrayOverloads(FunctionTable& overloads) {
  for (std::string_view name : {"length", "empty", "notEmpty"}) {
    overloads.Add({name, 1, 1, name == "length", ResolveSizeFunction, CompileSizeFunction, true,
                   true});
  }
  for (std::string_view name : {"equals", "notEquals"}) {
    overloads.Add({name, 2, 2, false, ResolveSearch, CompileSearch, true, true});
  }
}

}  // namespace granite::core
