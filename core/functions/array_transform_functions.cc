// Array functions that make new arrays from old ones, fold them, or split strings into them, as
// ClickHouse types them:
//   arrayConcat(a, ...), arrayPushBack / arrayPushFront(a, x)   Array(supertype)
//   arrayReverse, arraySlice(a, offset[, length]), arrayPopBack, arrayPopFront,
//   arrayDistinct                                                the argument's type
//   arrayUniq                                                    UInt64
//   arraySum: UInt64 / Int64 / Float64 by the elements' kind; arrayMin / arrayMax: T;
//   arrayAvg: Float64 (NULL elements are skipped); with a lambda first, of its values
//   (arraySum(x -> x * 2, a); the lambda is evaluated by core::Expression)
//   arrayStringConcat(a[, sep])                                  String
//   splitByChar(sep, s), splitByString(sep, s), splitByWhitespace(s)   Array(String)
// The reordering functions pick nested rows per array row, then gather them once (AppendTaken).
#include <algorithm>
#include <cctype>
#include <functional>
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
#include "core/value_text.h"

namespace granite::core {
namespace {

// ---- reordering: reverse, slice, pop, distinct ----------------------------------------

// Appends to `picked` the nested rows of one array's result, given its rows [begin, end) of
// `array`'s nested column and the row's other operands.
using PickFn = std::function<void(const Column& nested, uint64_t begin, uint64_t end,
                                  const std::vector<int64_t>& params, std::vector<uint32_t>* picked)>;

absl::StatusOr<TypeId> ResolveSameArray(std::string_view name,
                                        const std::vector<ArgumentInfo>& args) {
  RETURN_IF_ERROR(RequireArray(name, args, 0));
  for (size_t i = 1; i < args.size(); ++i) {
    if (!IsInteger(args[i].type) || IsDateOrDateTime(args[i].type) ||
        IsNullable(args[i].type)) {
      return IllegalArgumentType(name, i, args[i].type);
    }
  }
  return args[0].type;
}

PickFn PickerFor(std::string_view name) {
  if (name == "arrayReverse") {
    return [](const Column&, uint64_t begin, uint64_t end, const std::vector<int64_t>&,
              std::vector<uint32_t>* picked) {
      for (uint64_t e = end; e > begin; --e) picked->push_back(static_cast<uint32_t>(e - 1));
    };
  }
  if (name == "arrayPopBack" || name == "arrayPopFront") {
    const bool back = name == "arrayPopBack";
    return [back](const Column&, uint64_t begin, uint64_t end, const std::vector<int64_t>&,
                  std::vector<uint32_t>* picked) {
      if (end == begin) return;
      for (uint64_t e = begin + (back ? 0 : 1); e < end - (back ? 1 : 0); ++e) {
        picked->push_back(static_cast<uint32_t>(e));
      }
    };
  }
  if (name == "arraySlice") {
    // ClickHouse: offset 1-based (negative from the end, 0 gives []), length may be negative
    // (elements to leave at the end).
    return [](const Column&, uint64_t begin, uint64_t end, const std::vector<int64_t>& params,
              std::vector<uint32_t>* picked) {
      const int64_t size = static_cast<int64_t>(end - begin);
      const int64_t offset = params[0];
      if (offset == 0) return;
      int64_t first = offset > 0 ? offset - 1 : size + offset;
      if (first < 0) first = 0;
      if (first >= size) return;
      int64_t last = size;
      if (params.size() > 1) {
        const int64_t length = params[1];
        last = length >= 0 ? std::min(size, first + length) : size + length;
      }
      for (int64_t e = first; e < last; ++e) picked->push_back(static_cast<uint32_t>(begin + e));
    };
  }
  // arrayDistinct: first occurrences in order; NULLs are dropped, as in ClickHouse.
  return [](const Column& nested, uint64_t begin, uint64_t end, const std::vector<int64_t>&,
            std::vector<uint32_t>* picked) {
    const size_t first = picked->size();
    for (uint64_t e = begin; e < end; ++e) {
      if (nested.IsNullAt(e)) continue;
      bool seen = false;
      for (size_t k = first; k < picked->size() && !seen; ++k) {
        seen = ElementsEqual(nested, (*picked)[k], nested, e);
      }
      if (!seen) picked->push_back(static_cast<uint32_t>(e));
    }
  };
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileReorder(std::string_view name,
                                                             const std::vector<ArgumentInfo>&,
                                                             TypeId result) {
  PickFn pick = PickerFor(name);
  return MakeArrayKernel([pick, result](const std::vector<Operand>& args,
                               size_t rows) -> absl::StatusOr<ColumnPtr> {
    const Column& array = *args[0].column;
    std::vector<ColumnPtr> params;
    for (size_t a = 1; a < args.size(); ++a) {
      ASSIGN_OR_RETURN(ColumnPtr value, CastColumn(args[a].column, TypeId::kInt64));
      params.push_back(std::move(value));
    }
    auto out = std::make_shared<Column>(result);
    std::vector<uint32_t> picked;
    std::vector<uint64_t>& offsets = out->MutableOffsets();
    std::vector<int64_t> row_params(params.size());
    for (size_t row = 0; row < rows; ++row) {
      const size_t r = RowOf(args[0], row);
      for (size_t p = 0; p < params.size(); ++p) {
        row_params[p] = params[p]->Get<int64_t>(RowOf(args[p + 1], row));
      }
      pick(array.Nested(), array.ArrayBegin(r), array.Offsets()[r], row_params, &picked);
      offsets.push_back(picked.size());
    }
    out->MutableNested().AppendTaken(array.Nested(), picked.data(), picked.size());
    out->SetSize(rows);
    return ColumnPtr(std::move(out));
  });
}

// ---- arrayUniq ------------------------------------------------------------------------------

absl::StatusOr<TypeId> ResolveUniq(std::string_view name, const std::vector<ArgumentInfo>& args) {
  RETURN_IF_ERROR(RequireArray(name, args, 0));
  return TypeId::kUInt64;
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileUniq(std::string_view,
                                                          const std::vector<ArgumentInfo>&,
                                                          TypeId) {
  PickFn distinct = PickerFor("arrayDistinct");
  return MakeArrayKernel([distinct](const std::vector<Operand>& args,
                           size_t rows) -> absl::StatusOr<ColumnPtr> {
    const Column& array = *args[0].column;
    auto out = std::make_shared<Column>(TypeId::kUInt64);
    std::vector<uint32_t> picked;
    for (size_t row = 0; row < rows; ++row) {
      const size_t r = RowOf(args[0], row);
      picked.clear();
      distinct(array.Nested(), array.ArrayBegin(r), array.Offsets()[r], {}, &picked);
      out->Append<uint64_t>(picked.size());
    }
    return ColumnPtr(std::move(out));
  });
}

// ---- arrayConcat, arrayPushBack, arrayPushFront ---------------------------------------------

absl::StatusOr<TypeId> ResolveConcat(std::string_view name, const std::vector<ArgumentInfo>& args) {
  std::vector<TypeId> elements;
  for (size_t i = 0; i < args.size(); ++i) {
    const bool pushed = name != "arrayConcat" && i == 1;
    if (!pushed) RETURN_IF_ERROR(RequireArray(name, args, i));
    elements.push_back(pushed ? args[i].type : ArrayElementOf(args[i].type));
  }
  ASSIGN_OR_RETURN(TypeId element, ElementSupertypeFor(name, elements));
  return MakeArray(element);
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileConcat(std::string_view name,
                                                            const std::vector<ArgumentInfo>&,
                                                            TypeId result) {
  const int pushed = name == "arrayPushBack" ? 1 : name == "arrayPushFront" ? 0 : -1;
  return MakeArrayKernel([pushed, result](const std::vector<Operand>& args,
                                 size_t rows) -> absl::StatusOr<ColumnPtr> {
    // A pushed value becomes a one-element array, so every part is an array of the result type.
    std::vector<ColumnPtr> parts;
    std::vector<const Operand*> order;
    for (size_t a = 0; a < args.size(); ++a) {
      if (pushed >= 0 && a == 1) {
        ASSIGN_OR_RETURN(ColumnPtr value, CastKeepingNulls(args[a].column, ArrayElementOf(result)));
        auto single = std::make_shared<Column>(result);
        for (size_t i = 0; i < value->size(); ++i) {
          single->MutableNested().AppendFrom(*value, i);
          single->AppendArrayEnd();
        }
        parts.push_back(std::move(single));
      } else {
        ASSIGN_OR_RETURN(ColumnPtr part, ArrayOperandAs(args[a], result));
        parts.push_back(std::move(part));
      }
      order.push_back(&args[a]);
    }
    if (pushed == 0) {
      std::swap(parts[0], parts[1]);
      std::swap(order[0], order[1]);
    }
    auto out = std::make_shared<Column>(result);
    Column& nested = out->MutableNested();
    for (size_t row = 0; row < rows; ++row) {
      for (size_t p = 0; p < parts.size(); ++p) {
        const size_t r = RowOf(*order[p], row);
        nested.AppendRange(parts[p]->Nested(), parts[p]->ArrayBegin(r), parts[p]->ArraySizeAt(r));
      }
      out->AppendArrayEnd();
    }
    return ColumnPtr(std::move(out));
  });
}

// ---- arraySum, arrayMin, arrayMax, arrayAvg -------------------------------------------------

absl::StatusOr<TypeId> ResolveFold(std::string_view name, const std::vector<ArgumentInfo>& args) {
  if (args[0].lambda) RETURN_IF_ERROR(RequireLambdaArrays(name, args));
  RETURN_IF_ERROR(RequireArray(name, args, 0));
  const TypeId element = ArrayElementOf(args[0].type);
  const TypeId value = RemoveNullable(element);
  if (IsArray(value) || !(IsNumeric(value) || (name != "arraySum" && name != "arrayAvg"))) {
    return IllegalArgumentType(name, 0, args[0].type);
  }
  if (IsDecimal(value) || IsUuid(value) || (IsDateOrDateTime(value) && name != "arrayMin" &&
                                            name != "arrayMax")) {
    return IllegalArgumentType(name, 0, args[0].type);
  }
  if (name == "arrayAvg") return TypeId::kFloat64;
  if (name == "arraySum") {
    return IsFloat(value) ? TypeId::kFloat64
           : IsSignedInteger(value) ? TypeId::kInt64
                                    : TypeId::kUInt64;
  }
  return element;
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileFold(std::string_view name,
                                                          const std::vector<ArgumentInfo>& args,
                                                          TypeId result) {
  const std::string function(name);
  return MakeArrayKernel([function, result](const std::vector<Operand>& args,
                                   size_t rows) -> absl::StatusOr<ColumnPtr> {
    const Column& array = *args[0].column;
    const Column& nested = array.Nested();
    auto out = std::make_shared<Column>(result);
    if (function == "arrayMin" || function == "arrayMax") {
      const bool min = function == "arrayMin";
      for (size_t row = 0; row < rows; ++row) {
        const size_t r = RowOf(args[0], row);
        int64_t best = -1;
        for (uint64_t e = array.ArrayBegin(r); e < array.Offsets()[r]; ++e) {
          if (nested.IsNullAt(e)) continue;
          if (best < 0) {
            best = static_cast<int64_t>(e);
            continue;
          }
          const int c = CompareElements(nested, e, static_cast<size_t>(best));
          if (min ? c < 0 : c > 0) best = static_cast<int64_t>(e);
        }
        if (best < 0) {
          AppendDefault(out.get());
        } else {
          out->AppendFrom(nested, static_cast<size_t>(best));
        }
      }
      return ColumnPtr(std::move(out));
    }
    // Sums in the result's type (Float64 for arrayAvg), as the elements cast to it.
    const TypeId sum_type = function == "arrayAvg" ? TypeId::kFloat64 : result;
    auto values = std::make_shared<Column>(nested);
    values->DropNullMap();
    ASSIGN_OR_RETURN(ColumnPtr cast, CastColumn(values, sum_type));
    DispatchFixed(sum_type, [&](auto tag) {
      using T = typename decltype(tag)::Type;
      for (size_t row = 0; row < rows; ++row) {
        const size_t r = RowOf(args[0], row);
        T sum{};
        uint64_t count = 0;
        for (uint64_t e = array.ArrayBegin(r); e < array.Offsets()[r]; ++e) {
          if (nested.IsNullAt(e)) continue;
          sum += cast->Get<T>(e);
          ++count;
        }
        if (function == "arrayAvg") {
          out->Append<double>(count == 0 ? std::numeric_limits<double>::quiet_NaN()
                                         : static_cast<double>(sum) / static_cast<double>(count));
        } else {
          out->Append<T>(sum);
        }
      }
    });
    return ColumnPtr(std::move(out));
  });
}

// ---- arrayStringConcat ----------------------------------------------------------------------

absl::StatusOr<TypeId> ResolveStringConcat(std::string_view name,
                                           const std::vector<ArgumentInfo>& args) {
  RETURN_IF_ERROR(RequireArray(name, args, 0));
  if (IsArray(ArrayElementOf(args[0].type))) return IllegalArgumentType(name, 0, args[0].type);
  if (args.size() == 2) {
    if (!IsString(args[1].type)) return IllegalArgumentType(name, 1, args[1].type);
    if (!args[1].constant) return ArgumentMustBeConstant(name, 1);
  }
  return TypeId::kString;
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileStringConcat(
    std::string_view, const std::vector<ArgumentInfo>& args, TypeId) {
  const std::string separator = args.size() == 2 ? ValueToText(*args[1].constant) : "";
  return MakeArrayKernel([separator](const std::vector<Operand>& args,
                            size_t rows) -> absl::StatusOr<ColumnPtr> {
    const Column& array = *args[0].column;
    const Column& nested = array.Nested();
    auto out = std::make_shared<Column>(TypeId::kString);
    std::string text;
    for (size_t row = 0; row < rows; ++row) {
      const size_t r = RowOf(args[0], row);
      text.clear();
      bool first = true;
      for (uint64_t e = array.ArrayBegin(r); e < array.Offsets()[r]; ++e) {
        if (nested.IsNullAt(e)) continue;  // ClickHouse skips NULLs
        if (!first) text.append(separator);
        first = false;
        AppendValueText(nested, e, &text);
      }
      out->AppendString(text);
    }
    return ColumnPtr(std::move(out));
  });
}

// ---- splitByChar, splitByString, splitByWhitespace ------------------------------------------

absl::StatusOr<TypeId> ResolveSplit(std::string_view name, const std::vector<ArgumentInfo>& args) {
  const size_t text = args.size() - 1;
  if (!IsString(args[text].type) || IsNullable(args[text].type)) {
    return IllegalArgumentType(name, text, args[text].type);
  }
  if (name != "splitByWhitespace") {
    if (!IsString(args[0].type)) return IllegalArgumentType(name, 0, args[0].type);
    if (!args[0].constant) return ArgumentMustBeConstant(name, 0);
    if (name == "splitByChar" && ValueToText(*args[0].constant).size() != 1) {
      return Error(ErrorCode::kBadArguments,
                   "Illegal separator for function splitByChar. Must be exactly one byte.");
    }
  }
  return MakeArray(TypeId::kString);
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileSplit(std::string_view name,
                                                           const std::vector<ArgumentInfo>& args,
                                                           TypeId result) {
  const bool whitespace = name == "splitByWhitespace";
  const std::string separator = whitespace ? "" : ValueToText(*args[0].constant);
  return MakeArrayKernel([whitespace, separator, result](const std::vector<Operand>& args,
                                                size_t rows) -> absl::StatusOr<ColumnPtr> {
    const Operand& text_operand = args.back();
    auto out = std::make_shared<Column>(result);
    Column& nested = out->MutableNested();
    for (size_t row = 0; row < rows; ++row) {
      const std::string_view text = text_operand.column->StringAt(RowOf(text_operand, row));
      if (whitespace) {
        size_t i = 0;
        while (i < text.size()) {
          while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
          const size_t start = i;
          while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
          if (i > start) nested.AppendString(text.substr(start, i - start));
        }
      } else if (separator.empty()) {
        for (size_t i = 0; i < text.size(); ++i) nested.AppendString(text.substr(i, 1));
      } else {
        size_t start = 0;
        while (true) {
          const size_t at = text.find(separator, start);
          if (at == std::string_view::npos) {
            nested.AppendString(text.substr(start));
            break;
          }
          nested.AppendString(text.substr(start, at - start));
          start = at + separator.size();
        }
      }
      out->AppendArrayEnd();
    }
    return ColumnPtr(std::move(out));
  });
}

}  // namespace

void RegisterArrayTransformFunctions(FunctionTable& table) {
  // arraySort and arrayReverseSort take a lambda: higher_order_functions.cc.
  for (std::string_view name : {"arrayReverse", "arrayPopBack", "arrayPopFront", "arrayDistinct"}) {
    table.Add({name, 1, 1, false, ResolveSameArray, CompileReorder, true, true});
  }
  table.Add({"arraySlice", 2, 3, false, ResolveSameArray, CompileReorder, true, true});
  table.Add({"arrayUniq", 1, 1, false, ResolveUniq, CompileUniq, true, true});
  table.Add({"arrayConcat", 1, kVariadic, false, ResolveConcat, CompileConcat, true, true});
  for (std::string_view name : {"arrayPushBack", "arrayPushFront"}) {
    table.Add({name, 2, 2, false, ResolveConcat, CompileConcat, true, true});
  }
  // With a lambda, arraySum(f, a, ...) folds f's values (the kernel's first operand).
  for (std::string_view name : {"arraySum", "arrayMin", "arrayMax", "arrayAvg"}) {
    table.Add({name, 1, 1, false, ResolveFold, CompileFold, true, true, /*takes_lambda=*/true});
  }
  table.Add({"arrayStringConcat", 1, 2, false, ResolveStringConcat, CompileStringConcat, true,
             true});
  for (std::string_view name : {"splitByChar", "splitByString"}) {
    table.Add({name, 2, 2, false, ResolveSplit, CompileSplit, true, true});
  }
  table.Add({"splitByWhitespace", 1, 1, false, ResolveSplit, CompileSplit, true, true});
}

}  // namespace granite::core
