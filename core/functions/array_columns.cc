#include "core/functions/array_columns.h"

#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/functions/array_cast.h"
#include "core/functions/function_errors.h"
#include "core/functions/type_rules.h"

namespace granite::core {
namespace {

class ArrayKernel : public ScalarKernel {
 public:
  explicit ArrayKernel(ArrayKernelBody body) : body_(std::move(body)) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    return body_(args, rows);
  }

 private:
  const ArrayKernelBody body_;
};

}  // namespace

std::unique_ptr<ScalarKernel> MakeArrayKernel(ArrayKernelBody body) {
  return std::make_unique<ArrayKernel>(std::move(body));
}

void AppendDefault(Column* column) {
  if (column->nullable() || IsArray(column->type())) return column->AppendNull();
  if (HasStringLayout(column->type())) {
    column->AppendString(std::string(FixedStringSizeOf(column->type()), '\0'));
    return;
  }
  column->Resize(column->size() + 1);
}

bool ElementsEqual(const Column& a, size_t i, const Column& b, size_t j) {
  const bool null_a = a.IsNullAt(i), null_b = b.IsNullAt(j);
  if (null_a || null_b) return null_a == null_b;
  if (IsArray(a.type())) {
    const uint64_t size = a.ArraySizeAt(i);
    if (size != b.ArraySizeAt(j)) return false;
    const uint64_t begin_a = a.ArrayBegin(i), begin_b = b.ArrayBegin(j);
    for (uint64_t k = 0; k < size; ++k) {
      if (!ElementsEqual(a.Nested(), begin_a + k, b.Nested(), begin_b + k)) return false;
    }
    return true;
  }
  if (HasStringLayout(a.type())) return a.StringAt(i) == b.StringAt(j);
  return DispatchFixed(a.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    return a.Get<T>(i) == b.Get<T>(j);
  });
}

int CompareElements(const Column& column, size_t i, size_t j) {
  const bool null_i = column.IsNullAt(i), null_j = column.IsNullAt(j);
  if (null_i || null_j) return static_cast<int>(null_i) - static_cast<int>(null_j);
  if (IsArray(column.type())) {
    const Column& nested = column.Nested();
    const uint64_t size_i = column.ArraySizeAt(i), size_j = column.ArraySizeAt(j);
    const uint64_t begin_i = column.ArrayBegin(i), begin_j = column.ArrayBegin(j);
    for (uint64_t k = 0; k < size_i && k < size_j; ++k) {
      // Both rows' elements live in one nested column, so one column compares them.
      if (int c = CompareElements(nested, begin_i + k, begin_j + k); c != 0) return c;
    }
    return size_i < size_j ? -1 : size_i > size_j ? 1 : 0;
  }
  if (HasStringLayout(column.type())) return column.StringAt(i).compare(column.StringAt(j));
  return DispatchFixed(column.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    const T x = column.Get<T>(i), y = column.Get<T>(j);
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x) || std::isnan(y)) {
        return static_cast<int>(std::isnan(x)) - static_cast<int>(std::isnan(y));
      }
    }
    return x < y ? -1 : (y < x ? 1 : 0);
  });
}

absl::StatusOr<ColumnPtr> ArrayOperandAs(const Operand& operand, TypeId to) {
  if (operand.column->type() == to) return operand.column;
  return CastArrayColumn(*operand.column, to);
}

absl::StatusOr<TypeId> ElementSupertypeFor(std::string_view name,
                                           const std::vector<TypeId>& types) {
  if (std::optional<TypeId> type = ElementSupertype(types)) return *type;
  std::vector<std::string> names;
  for (TypeId type : types) names.emplace_back(TypeName(type));
  return Error(ErrorCode::kNoCommonType,
               absl::StrCat("There is no supertype for types ", absl::StrJoin(names, ", "),
                            " in function ", ToAbsl(name)));
}

absl::Status RequireLambdaArrays(std::string_view name, const std::vector<ArgumentInfo>& args) {
  if (args.size() < 2) {
    return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                 absl::StrCat("Function ", ToAbsl(name), " needs at least 1 argument with data"));
  }
  for (size_t i = 1; i < args.size(); ++i) {
    if (IsArray(args[i].type)) continue;
    return Error(ErrorCode::kIllegalTypeOfArgument,
                 absl::StrCat("Argument ", i + 1, " of function ", ToAbsl(name),
                              " must be Array. Found ", ToAbsl(TypeName(args[i].type)),
                              " instead."));
  }
  return absl::OkStatus();
}

absl::Status RequireArray(std::string_view name, const std::vector<ArgumentInfo>& args,
                          size_t index) {
  if (!IsArray(args[index].type)) return IllegalArgumentType(name, index, args[index].type);
  return absl::OkStatus();
}

}  // namespace granite::core
