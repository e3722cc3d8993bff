// Nullable in scalar functions: see null_functions.h. The file has three parts: column helpers
// (null maps in and out), the default implementation for NULLs (PropagateNullsKernel), and the
// functions that look at NULLs (isNull ... nullIf, the NULL-aware if / multiIf, and / or, CAST).
#include "core/functions/null_functions.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/functions/constant_column.h"
#include "core/functions/function_errors.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

bool IsNothing(TypeId type) { return RemoveNullable(type) == TypeId::kNothing; }
bool IsNullArgument(const ArgumentInfo& arg) { return arg.constant_is_null || IsNothing(arg.type); }
bool AnyNullable(const std::vector<ArgumentInfo>& args) {
  for (const ArgumentInfo& arg : args) {
    if (IsNullable(arg.type)) return true;
  }
  return false;
}

// Returns `args` with their types stripped of Nullable (constants keep their values).
std::vector<ArgumentInfo> Stripped(const std::vector<ArgumentInfo>& args) {
  std::vector<ArgumentInfo> out = args;
  for (ArgumentInfo& arg : out) {
    arg.type = RemoveNullable(arg.type);
    arg.constant_is_null = false;
  }
  return out;
}

// Returns whether row `row` of an operand is NULL (a constant's row 0 stands for every row).
bool NullAt(const Operand& operand, size_t row) {
  return operand.column->IsNullAt(operand.is_constant ? 0 : row);
}

// Returns whether the operand's value at `row` is true (non-zero).
// REQUIRES: a fixed-width nested type.
bool TrueAt(const Operand& operand, size_t row) {
  const size_t r = operand.is_constant ? 0 : row;
  return DispatchFixed(operand.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    return operand.column->template Get<T>(r) != T(0);
  });
}

ColumnPtr Materialized(const Operand& operand, size_t rows) {
  if (operand.is_constant && rows != 1) return Broadcast(*operand.column, rows);
  return operand.column;
}

// Returns `column`'s values without a null map (shared when it has none).
ColumnPtr ValuesOf(const ColumnPtr& column) {
  if (!column->nullable()) return column;
  auto values = std::make_shared<Column>(*column);
  values->DropNullMap();
  return values;
}

// Returns a NULL-aware kernel's inner call on the stripped arguments.
absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileInner(std::string_view name,
                                                           const std::vector<ArgumentInfo>& args) {
  ASSIGN_OR_RETURN(CompiledFunction compiled, CompileFunction(name, args));
  return std::move(compiled.kernel);
}

// --- The default implementation for NULLs -------------------------------------------------------

// Runs the nested function on the rows where no argument is NULL and gives NULL elsewhere.
class PropagateNullsKernel : public ScalarKernel {
 public:
  PropagateNullsKernel(std::unique_ptr<ScalarKernel> inner, TypeId type)
      : inner_(std::move(inner)), type_(RemoveNullable(type)) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    std::vector<uint8_t> nulls(rows, 0);
    size_t null_rows = 0;
    for (const Operand& arg : args) {
      const uint8_t* map = arg.column->NullMap();
      if (map == nullptr) continue;
      if (arg.is_constant) {
        if (map[0] != 0) std::fill(nulls.begin(), nulls.end(), 1);
        continue;
      }
      for (size_t i = 0; i < rows; ++i) nulls[i] |= map[i];
    }
    for (uint8_t n : nulls) null_rows += n;
    if (null_rows == 0) {
      ASSIGN_OR_RETURN(ColumnPtr values, inner_->Execute(args, rows));
      return values->nullable() ? values : WithNullMap(values, nulls);
    }
    // Only the rows without NULL reach the kernel: values under NULL are defaults, on which a
    // kernel may fail (division by zero, a string that does not parse).
    std::vector<uint8_t> keep(rows);
    for (size_t i = 0; i < rows; ++i) keep[i] = nulls[i] == 0;
    const size_t kept = rows - null_rows;
    std::vector<Operand> filtered;
    bool all_constant = true;
    for (const Operand& arg : args) {
      if (arg.is_constant) {
        filtered.push_back(arg);
      } else {
        all_constant = false;
        filtered.push_back(Operand{std::make_shared<Column>(arg.column->Filter(keep.data())), false});
      }
    }
    if (kept == 0 || all_constant) return AllNulls(type_, rows);
    ASSIGN_OR_RETURN(ColumnPtr values, inner_->Execute(filtered, kept));
    // Spreads the kept rows' results back, NULL elsewhere.
    const TypeId type = values->type();
    auto out = std::make_shared<Column>(MakeNullable(type));
    out->Reserve(rows);
    size_t next = 0;
    for (size_t i = 0; i < rows; ++i) {
      if (nulls[i] != 0) {
        out->AppendNull();
      } else {
        out->AppendFrom(*values, next++);
      }
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const std::unique_ptr<ScalarKernel> inner_;
  const TypeId type_;  // the nested result type
};

// Returns NULL in every row.
class AllNullsKernel : public ScalarKernel {
 public:
  explicit AllNullsKernel(TypeId type) : type_(RemoveNullable(type)) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>&, size_t rows) const override {
    return AllNulls(type_, rows);
  }

 private:
  const TypeId type_;
};

// --- isNull, isNotNull, assumeNotNull, toNullable -----------------------------------------------

absl::StatusOr<TypeId> ResolveNullCheck(std::string_view, const std::vector<ArgumentInfo>&) {
  return TypeId::kUInt8;
}

class NullCheckKernel : public ScalarKernel {
 public:
  explicit NullCheckKernel(bool is_null) : is_null_(is_null) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    auto out = std::make_shared<Column>(TypeId::kUInt8);
    out->Resize(rows);
    uint8_t* data = out->Data<uint8_t>();
    for (size_t i = 0; i < rows; ++i) data[i] = NullAt(args[0], i) == is_null_ ? 1 : 0;
    return ColumnPtr(std::move(out));
  }

 private:
  const bool is_null_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileNullCheck(
    std::string_view name, const std::vector<ArgumentInfo>&, TypeId) {
  return std::make_unique<NullCheckKernel>(name == "isNull");
}

absl::StatusOr<TypeId> ResolveAssumeNotNull(std::string_view name,
                                            const std::vector<ArgumentInfo>& args) {
  if (IsNothing(args[0].type)) return IllegalArgumentType(name, 0, args[0].type);
  return RemoveNullable(args[0].type);
}

absl::StatusOr<TypeId> ResolveToNullable(std::string_view, const std::vector<ArgumentInfo>& args) {
  return MakeNullable(args[0].type);
}

// assumeNotNull drops the null map; toNullable adds one.
class NullMapKernel : public ScalarKernel {
 public:
  explicit NullMapKernel(bool nullable) : nullable_(nullable) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    ColumnPtr column = Materialized(args[0], rows);
    if (!nullable_) return ValuesOf(column);
    if (column->nullable()) return column;
    auto out = std::make_shared<Column>(*column);
    out->MakeNullable();
    return ColumnPtr(std::move(out));
  }

 private:
  const bool nullable_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileNullMap(
    std::string_view name, const std::vector<ArgumentInfo>&, TypeId) {
  return std::make_unique<NullMapKernel>(name == "toNullable");
}

// --- coalesce, ifNull ---------------------------------------------------------------------------

// The arguments coalesce looks at: NULL literals dropped, and nothing after the first argument
// that is not Nullable (it is never NULL).
std::vector<size_t> CoalesceArguments(const std::vector<ArgumentInfo>& args) {
  std::vector<size_t> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    if (IsNullArgument(args[i])) continue;
    kept.push_back(i);
    if (!IsNullable(args[i].type)) break;
  }
  return kept;
}

// The multiIf that picks the first argument that is not NULL: (cond_0, a_0, ..., a_last).
std::vector<ArgumentInfo> CoalesceBranches(const std::vector<ArgumentInfo>& args,
                                           const std::vector<size_t>& kept) {
  std::vector<ArgumentInfo> branches;
  for (size_t k = 0; k < kept.size(); ++k) {
    ArgumentInfo value = args[kept[k]];
    value.type = RemoveNullable(value.type);
    if (k + 1 < kept.size()) branches.push_back({TypeId::kUInt8, std::nullopt});
    branches.push_back(value);
  }
  return branches;
}

absl::StatusOr<TypeId> ResolveCoalesce(std::string_view name,
                                       const std::vector<ArgumentInfo>& args) {
  const std::vector<size_t> kept = CoalesceArguments(args);
  if (kept.empty()) return MakeNullable(TypeId::kNothing);
  const bool nullable = IsNullable(args[kept.back()].type);
  if (kept.size() == 1) return WithNullable(RemoveNullable(args[kept[0]].type), nullable);
  absl::StatusOr<ResolvedFunction> resolved =
      ResolveFunction("multiIf", CoalesceBranches(args, kept));
  if (!resolved.ok()) {
    return Error(CodeOf(resolved.status()),
                 absl::StrCat(ToAbsl(name), ": ", resolved.status().message()));
  }
  return WithNullable(resolved->result_type, nullable);
}

class CoalesceKernel : public ScalarKernel {
 public:
  CoalesceKernel(std::vector<size_t> kept, std::unique_ptr<ScalarKernel> pick, bool nullable)
      : kept_(std::move(kept)), pick_(std::move(pick)), nullable_(nullable) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    if (kept_.empty()) return AllNulls(TypeId::kNothing, rows);
    if (pick_ == nullptr) {
      ColumnPtr only = Materialized(args[kept_[0]], rows);
      return nullable_ ? only : ValuesOf(only);
    }
    std::vector<Operand> operands;
    for (size_t k = 0; k < kept_.size(); ++k) {
      const Operand& arg = args[kept_[k]];
      if (k + 1 < kept_.size()) {
        auto condition = std::make_shared<Column>(TypeId::kUInt8);
        condition->Resize(rows);
        uint8_t* c = condition->Data<uint8_t>();
        for (size_t i = 0; i < rows; ++i) c[i] = NullAt(arg, i) ? 0 : 1;
        operands.push_back(Operand{std::move(condition), false});
      }
      operands.push_back(arg);
    }
    ASSIGN_OR_RETURN(ColumnPtr values, pick_->Execute(operands, rows));
    if (!nullable_) return ValuesOf(values);
    std::vector<uint8_t> nulls(rows, 1);
    for (size_t k = 0; k < kept_.size(); ++k) {
      for (size_t i = 0; i < rows; ++i) nulls[i] &= NullAt(args[kept_[k]], i) ? 1 : 0;
    }
    return WithNullMap(values, nulls);
  }

 private:
  const std::vector<size_t> kept_;
  const std::unique_ptr<ScalarKernel> pick_;
  const bool nullable_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileCoalesce(
    std::string_view, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  std::vector<size_t> kept = CoalesceArguments(args);
  std::unique_ptr<ScalarKernel> pick;
  if (kept.size() > 1) {
    ASSIGN_OR_RETURN(pick, CompileInner("multiIf", CoalesceBranches(args, kept)));
  }
  return std::make_unique<CoalesceKernel>(std::move(kept), std::move(pick),
                                          IsNullable(result_type));
}

// --- nullIf -------------------------------------------------------------------------------------

absl::StatusOr<TypeId> ResolveNullIf(std::string_view name,
                                     const std::vector<ArgumentInfo>& args) {
  if (IsNothing(args[0].type)) return MakeNullable(TypeId::kNothing);
  if (!IsNothing(args[1].type)) {
    absl::StatusOr<ResolvedFunction> equals = ResolveFunction("equals", Stripped(args));
    if (!equals.ok()) return IllegalArgumentType(name, 1, args[1].type);
  }
  return MakeNullable(args[0].type);
}

class NullIfKernel : public ScalarKernel {
 public:
  explicit NullIfKernel(std::unique_ptr<ScalarKernel> equals) : equals_(std::move(equals)) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    ColumnPtr a = Materialized(args[0], rows);
    std::vector<uint8_t> nulls(rows, 0);
    ColumnPtr equal;
    if (equals_ != nullptr) {
      ASSIGN_OR_RETURN(equal, equals_->Execute(args, rows));
    }
    for (size_t i = 0; i < rows; ++i) {
      const bool same = equal != nullptr && !NullAt(args[1], i) && equal->Get<uint8_t>(i) != 0;
      nulls[i] = a->IsNullAt(i) || same ? 1 : 0;
    }
    return WithNullMap(a, nulls);
  }

 private:
  const std::unique_ptr<ScalarKernel> equals_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileNullIf(
    std::string_view, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  if (IsNothing(result_type)) return std::make_unique<AllNullsKernel>(TypeId::kNothing);
  std::unique_ptr<ScalarKernel> equals;
  if (!IsNullArgument(args[1])) {
    ASSIGN_OR_RETURN(equals, CompileInner("equals", Stripped(args)));
  }
  return std::make_unique<NullIfKernel>(std::move(equals));
}

// --- if, multiIf with NULLs ---------------------------------------------------------------------

bool IsCondition(size_t index, size_t count) { return index % 2 == 0 && index + 1 < count; }

// The stripped call of if / multiIf: NULL conditions become constant false, NULL branches take
// the type of the first other branch (their rows are NULL in the result anyway).
absl::StatusOr<std::vector<ArgumentInfo>> ConditionalBranches(const std::vector<ArgumentInfo>& args,
                                                              bool* all_null) {
  std::vector<ArgumentInfo> out = Stripped(args);
  std::optional<TypeId> branch_type;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!IsCondition(i, args.size()) && !IsNothing(args[i].type)) {
      branch_type = RemoveNullable(args[i].type);
      break;
    }
  }
  *all_null = !branch_type.has_value();
  for (size_t i = 0; i < args.size(); ++i) {
    if (!IsNothing(args[i].type)) continue;
    if (IsCondition(i, args.size())) {
      out[i] = {TypeId::kUInt8, Value(uint64_t{0})};
    } else {
      out[i] = {branch_type.value_or(TypeId::kUInt8), std::nullopt};
    }
  }
  return out;
}

absl::StatusOr<TypeId> ResolveConditionalWithNulls(const FunctionDef& def,
                                                   const std::vector<ArgumentInfo>& args) {
  bool all_null = false;
  ASSIGN_OR_RETURN(std::vector<ArgumentInfo> branches, ConditionalBranches(args, &all_null));
  if (all_null) return MakeNullable(TypeId::kNothing);
  ASSIGN_OR_RETURN(TypeId nested, def.resolve(def.name, branches));
  bool nullable = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!IsCondition(i, args.size()) && IsNullable(args[i].type)) nullable = true;
  }
  return WithNullable(nested, nullable);
}

class ConditionalWithNullsKernel : public ScalarKernel {
 public:
  ConditionalWithNullsKernel(std::unique_ptr<ScalarKernel> inner, std::vector<TypeId> arg_types,
                             TypeId branch_type, bool nullable)
      : inner_(std::move(inner)), arg_types_(std::move(arg_types)), branch_type_(branch_type),
        nullable_(nullable) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    const size_t n = args.size();
    std::vector<Operand> operands = args;
    for (size_t i = 0; i < n; ++i) {
      if (!IsNothing(arg_types_[i])) continue;
      if (IsCondition(i, n)) {
        auto zero = std::make_shared<Column>(TypeId::kUInt8);
        zero->Append<uint8_t>(0);
        operands[i] = Operand{std::move(zero), true};
      } else {
        operands[i] = Operand{AllNulls(branch_type_, rows), false};
      }
    }
    ASSIGN_OR_RETURN(ColumnPtr values, inner_->Execute(operands, rows));
    if (!nullable_) return values;
    // The result is NULL where the chosen branch is: the first true condition's, else the last.
    std::vector<uint8_t> nulls(rows, 0);
    for (size_t row = 0; row < rows; ++row) {
      size_t chosen = n - 1;
      for (size_t c = 0; c + 1 < n; c += 2) {
        if (!NullAt(operands[c], row) && TrueAt(operands[c], row)) {
          chosen = c + 1;
          break;
        }
      }
      nulls[row] = NullAt(operands[chosen], row) ? 1 : 0;
    }
    return WithNullMap(values, nulls);
  }

 private:
  const std::unique_ptr<ScalarKernel> inner_;
  const std::vector<TypeId> arg_types_;
  const TypeId branch_type_;
  const bool nullable_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileConditionalWithNulls(
    const FunctionDef& def, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  bool all_null = false;
  ASSIGN_OR_RETURN(std::vector<ArgumentInfo> branches, ConditionalBranches(args, &all_null));
  if (all_null) return std::make_unique<AllNullsKernel>(TypeId::kNothing);
  const TypeId nested = RemoveNullable(result_type);
  ASSIGN_OR_RETURN(std::unique_ptr<ScalarKernel> inner, def.compile(def.name, branches, nested));
  std::vector<TypeId> types;
  TypeId branch_type = nested;
  for (size_t i = 0; i < args.size(); ++i) {
    types.push_back(args[i].type);
    if (IsNothing(args[i].type) && !IsCondition(i, args.size())) branch_type = branches[i].type;
  }
  return std::make_unique<ConditionalWithNullsKernel>(std::move(inner), std::move(types),
                                                      branch_type, IsNullable(result_type));
}

// --- and, or: three-valued logic ----------------------------------------------------------------

absl::StatusOr<TypeId> ResolveLogicalWithNulls(const FunctionDef& def,
                                               const std::vector<ArgumentInfo>& args) {
  std::vector<ArgumentInfo> stripped = Stripped(args);
  for (ArgumentInfo& arg : stripped) {
    if (arg.type == TypeId::kNothing) arg = {TypeId::kUInt8, std::nullopt};
  }
  ASSIGN_OR_RETURN(const TypeId result, def.resolve(def.name, stripped));
  for (const ArgumentInfo& arg : stripped) {
    if (IsDecimal(arg.type) || IsString(arg.type)) {
      return IllegalArgumentType(def.name, 0, arg.type);
    }
  }
  return MakeNullable(result);  // Nullable(UInt8), or Nullable(Bool) over Bool arguments
}

// and: false if any argument is false, else NULL if any is NULL, else true; or: the dual.
class LogicalWithNullsKernel : public ScalarKernel {
 public:
  LogicalWithNullsKernel(bool is_and, TypeId result) : is_and_(is_and), result_(result) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    auto out = std::make_shared<Column>(result_);
    out->Resize(rows);
    uint8_t* values = out->Data<uint8_t>();
    uint8_t* nulls = out->MutableNullMap();
    const bool decisive = !is_and_;  // the value that decides alone: false for and, true for or
    for (size_t row = 0; row < rows; ++row) {
      bool any_null = false;
      bool decided = false;
      for (const Operand& arg : args) {
        if (NullAt(arg, row) || arg.column->type() == TypeId::kNothing) {
          any_null = true;
        } else if (TrueAt(arg, row) == decisive) {
          decided = true;
          break;
        }
      }
      if (decided) {
        values[row] = decisive ? 1 : 0;
      } else if (any_null) {
        nulls[row] = 1;
      } else {
        values[row] = decisive ? 0 : 1;
      }
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const bool is_and_;
  const TypeId result_;  // Nullable(UInt8) or Nullable(Bool)
};

// --- CAST to and from Nullable ------------------------------------------------------------------

absl::Status CannotConvertNull() {
  return Error(ErrorCode::kCannotInsertNullInOrdinaryColumn,
               "Cannot convert NULL value to non-Nullable type");
}

absl::StatusOr<TypeId> ResolveCastWithNulls(const FunctionDef& def,
                                            const std::vector<ArgumentInfo>& args) {
  ASSIGN_OR_RETURN(TypeId target, def.resolve(def.name, args));
  if (IsNullArgument(args[0])) {
    if (!IsNullable(target)) {
      return Error(ErrorCode::kCannotConvertType,
                   absl::StrCat("Cannot convert NULL to a non-nullable type ",
                                ToAbsl(TypeName(target))));
    }
    return target;
  }
  std::vector<ArgumentInfo> stripped = Stripped(args);
  stripped[1] = {TypeId::kString, Value(std::string(TypeName(RemoveNullable(target))))};
  if (RemoveNullable(target) == TypeId::kNothing) return IllegalArgumentType(def.name, 1, target);
  RETURN_IF_ERROR(def.resolve(def.name, stripped).status());
  return target;
}

class CastWithNullsKernel : public ScalarKernel {
 public:
  CastWithNullsKernel(std::unique_ptr<ScalarKernel> inner, bool nullable)
      : inner_(std::move(inner)), nullable_(nullable) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    const Column& source = *args[0].column;
    if (source.HasNulls() && !nullable_) return CannotConvertNull();
    ASSIGN_OR_RETURN(ColumnPtr values, inner_->Execute(args, rows));
    if (!nullable_) return ValuesOf(values);
    return values->nullable() ? values : WithNullMap(values, std::vector<uint8_t>(rows, 0));
  }

 private:
  const std::unique_ptr<ScalarKernel> inner_;
  const bool nullable_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileCastWithNulls(
    const FunctionDef& def, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  if (IsNullArgument(args[0])) return std::make_unique<AllNullsKernel>(result_type);
  std::vector<ArgumentInfo> stripped = Stripped(args);
  const TypeId nested = RemoveNullable(result_type);
  stripped[1] = {TypeId::kString, Value(std::string(TypeName(nested)))};
  ASSIGN_OR_RETURN(std::unique_ptr<ScalarKernel> inner, def.compile(def.name, stripped, nested));
  // A Nullable source: NULL rows skip the conversion (their "" would not parse as a number).
  if (IsNullable(args[0].type)) {
    inner = std::make_unique<PropagateNullsKernel>(std::move(inner), nested);
  }
  return std::make_unique<CastWithNullsKernel>(std::move(inner), IsNullable(result_type));
}

// --- to<T>OrNull -------------------------------------------------------------------------------

struct OrNull {
  std::string_view name;
  TypeId type;
};
constexpr OrNull kOrNull[] = {
    {"toUInt8OrNull", TypeId::kUInt8},     {"toUInt16OrNull", TypeId::kUInt16},
    {"toUInt32OrNull", TypeId::kUInt32},   {"toUInt64OrNull", TypeId::kUInt64},
    {"toInt8OrNull", TypeId::kInt8},       {"toInt16OrNull", TypeId::kInt16},
    {"toInt32OrNull", TypeId::kInt32},     {"toInt64OrNull", TypeId::kInt64},
    {"toFloat32OrNull", TypeId::kFloat32}, {"toFloat64OrNull", TypeId::kFloat64},
    {"toDateOrNull", TypeId::kDate},       {"toDateTimeOrNull", TypeId::kDateTime},
    {"toUUIDOrNull", TypeId::kUUID},
};

absl::StatusOr<TypeId> ResolveOrNull(std::string_view name,
                                     const std::vector<ArgumentInfo>& args) {
  if (!IsString(args[0].type) && !IsNothing(args[0].type)) {
    return IllegalArgumentType(name, 0, args[0].type);
  }
  for (const OrNull& f : kOrNull) {
    if (f.name == name) return MakeNullable(f.type);
  }
  return MakeNullable(TypeId::kUInt8);
}

// The parse of each string, NULL where it does not parse (or is NULL).
class OrNullKernel : public ScalarKernel {
 public:
  explicit OrNullKernel(TypeId type) : type_(RemoveNullable(type)) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    const Operand& text = args[0];
    if (text.column->type() == TypeId::kNothing) return AllNulls(type_, rows);
    auto out = std::make_shared<Column>(MakeNullable(type_));
    out->Reserve(rows);
    for (size_t i = 0; i < rows; ++i) {
      const size_t row = text.is_constant ? 0 : i;
      const size_t before = out->size();
      if (!text.column->IsNullAt(row) &&
          ParseValueText(text.column->StringAt(row), type_, out.get()).ok() &&
          out->size() == before + 1) {
        continue;
      }
      out->Resize(before);
      out->AppendNull();
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const TypeId type_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileOrNull(std::string_view,
                                                            const std::vector<ArgumentInfo>&,
                                                            TypeId result) {
  return std::make_unique<OrNullKernel>(result);
}

// --- CASE x WHEN v THEN r ... with NULLs: multiIf(x = v, r, ..., else) -------------------------

// The multiIf arguments of caseWithExpression(x, v1, r1, ..., else): each condition is x = v_i,
// computed by `equals` (NULL when x or v_i is, which multiIf takes as false).
absl::StatusOr<std::vector<ArgumentInfo>> CaseBranches(const std::vector<ArgumentInfo>& args) {
  std::vector<ArgumentInfo> branches;
  for (size_t i = 1; i + 1 < args.size(); i += 2) {
    ASSIGN_OR_RETURN(ResolvedFunction equals, ResolveFunction("equals", {args[0], args[i]}));
    branches.push_back({equals.result_type, std::nullopt});
    branches.push_back(args[i + 1]);
  }
  branches.push_back(args.back());
  return branches;
}

class CaseWithNullsKernel : public ScalarKernel {
 public:
  CaseWithNullsKernel(std::vector<std::unique_ptr<ScalarKernel>> equals,
                      std::unique_ptr<ScalarKernel> pick)
      : equals_(std::move(equals)), pick_(std::move(pick)) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    std::vector<Operand> operands;
    for (size_t w = 0; w < equals_.size(); ++w) {
      ASSIGN_OR_RETURN(ColumnPtr condition, equals_[w]->Execute({args[0], args[1 + 2 * w]}, rows));
      operands.push_back(Operand{Materialized(Operand{condition, false}, rows), false});
      operands.push_back(args[2 + 2 * w]);
    }
    operands.push_back(args.back());
    return pick_->Execute(operands, rows);
  }

 private:
  const std::vector<std::unique_ptr<ScalarKernel>> equals_;
  const std::unique_ptr<ScalarKernel> pick_;
};

absl::StatusOr<TypeId> ResolveCaseWithNulls(const std::vector<ArgumentInfo>& args) {
  if (args.size() < 4 || args.size() % 2 != 0) {
    return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                 "CASE x WHEN needs pairs of WHEN and THEN and an ELSE");
  }
  ASSIGN_OR_RETURN(std::vector<ArgumentInfo> branches, CaseBranches(args));
  ASSIGN_OR_RETURN(ResolvedFunction pick, ResolveFunction("multiIf", branches));
  return pick.result_type;
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileCaseWithNulls(
    const std::vector<ArgumentInfo>& args) {
  ASSIGN_OR_RETURN(std::vector<ArgumentInfo> branches, CaseBranches(args));
  std::vector<std::unique_ptr<ScalarKernel>> equals;
  for (size_t i = 1; i + 1 < args.size(); i += 2) {
    ASSIGN_OR_RETURN(std::unique_ptr<ScalarKernel> kernel, CompileInner("equals", {args[0], args[i]}));
    equals.push_back(std::move(kernel));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<ScalarKernel> pick, CompileInner("multiIf", branches));
  return std::make_unique<CaseWithNullsKernel>(std::move(equals), std::move(pick));
}

// --- x [NOT] IN (...) with NULLs ---------------------------------------------------------------

// A NULL in the list matches nothing (ClickHouse's transform_null_in = 0); a NULL x gives NULL.
std::vector<size_t> InArguments(const std::vector<ArgumentInfo>& args) {
  std::vector<size_t> kept = {0};
  for (size_t i = 1; i < args.size(); ++i) {
    if (!IsNullArgument(args[i])) kept.push_back(i);
  }
  return kept;
}

std::vector<ArgumentInfo> Select(const std::vector<ArgumentInfo>& args,
                                 const std::vector<size_t>& kept) {
  std::vector<ArgumentInfo> out;
  for (size_t i : kept) out.push_back(args[i]);
  return Stripped(out);
}

absl::StatusOr<TypeId> ResolveInWithNulls(const FunctionDef& def,
                                          const std::vector<ArgumentInfo>& args) {
  if (IsNullArgument(args[0])) return MakeNullable(TypeId::kNothing);
  const std::vector<size_t> kept = InArguments(args);
  if (kept.size() > 1) RETURN_IF_ERROR(def.resolve(def.name, Select(args, kept)).status());
  return WithNullable(TypeId::kUInt8, IsNullable(args[0].type));
}

// Runs `inner` (compiled for the kept arguments) on them; an empty list is the constant answer.
class InWithNullsKernel : public ScalarKernel {
 public:
  InWithNullsKernel(std::vector<size_t> kept, std::unique_ptr<ScalarKernel> inner, bool negated)
      : kept_(std::move(kept)), inner_(std::move(inner)), negated_(negated) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    std::vector<Operand> operands;
    for (size_t i : kept_) operands.push_back(args[i]);
    if (inner_ != nullptr) return inner_->Execute(operands, rows);
    auto values = std::make_shared<Column>(TypeId::kUInt8);
    values->Resize(rows);
    if (negated_ && rows > 0) std::memset(values->Data<uint8_t>(), 1, rows);
    if (!args[0].column->nullable()) return ColumnPtr(std::move(values));
    std::vector<uint8_t> nulls(rows);
    for (size_t i = 0; i < rows; ++i) nulls[i] = NullAt(args[0], i) ? 1 : 0;
    return WithNullMap(values, nulls);
  }

 private:
  const std::vector<size_t> kept_;
  const std::unique_ptr<ScalarKernel> inner_;
  const bool negated_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileInWithNulls(
    const FunctionDef& def, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  if (IsNullArgument(args[0])) return std::make_unique<AllNullsKernel>(TypeId::kNothing);
  std::vector<size_t> kept = InArguments(args);
  std::unique_ptr<ScalarKernel> inner;
  if (kept.size() > 1) {
    ASSIGN_OR_RETURN(inner, def.compile(def.name, Select(args, kept), TypeId::kUInt8));
    if (IsNullable(args[0].type)) {
      inner = std::make_unique<PropagateNullsKernel>(std::move(inner), TypeId::kUInt8);
    }
  }
  return std::make_unique<InWithNullsKernel>(std::move(kept), std::move(inner),
                                             def.name == "notIn");
}

bool IsConditional(std::string_view name) { return name == "if" || name == "multiIf"; }
bool IsAndOr(std::string_view name) { return name == "and" || name == "or"; }

}  // namespace

ColumnPtr WithNullMap(const ColumnPtr& values, const std::vector<uint8_t>& nulls) {
  auto out = std::make_shared<Column>(*values);
  out->MakeNullable();
  const size_t rows = out->size();
  uint8_t* map = out->MutableNullMap();
  std::memcpy(map, nulls.data(), std::min(rows, nulls.size()));
  bool any = false;
  for (size_t i = 0; i < rows; ++i) any |= map[i] != 0;
  if (!any) return out;
  if (HasStringLayout(out->type())) {
    bool clean = !IsFixedString(out->type());
    for (size_t i = 0; i < rows && clean; ++i) clean = map[i] == 0 || out->StringAt(i).empty();
    if (clean) return out;
    auto rebuilt = std::make_shared<Column>(out->logical_type());
    rebuilt->Reserve(rows);
    for (size_t i = 0; i < rows; ++i) {
      if (map[i] != 0) {
        rebuilt->AppendNull();
      } else {
        rebuilt->AppendFrom(*out, i);
      }
    }
    return rebuilt;
  }
  const size_t width = ValueSize(out->type());
  char* data = out->RawData();
  for (size_t i = 0; i < rows; ++i) {
    if (map[i] != 0) std::memset(data + i * width, 0, width);
  }
  return out;
}

ColumnPtr AllNulls(TypeId type, size_t rows) {
  auto out = std::make_shared<Column>(MakeNullable(RemoveNullable(type)));
  if (HasStringLayout(out->type())) {
    for (size_t i = 0; i < rows; ++i) out->AppendNull();
    return out;
  }
  out->Resize(rows);
  if (rows > 0) std::memset(out->MutableNullMap(), 1, rows);
  return out;
}

std::vector<ArgumentInfo> MarkNullArguments(std::vector<ArgumentInfo> args) {
  for (ArgumentInfo& arg : args) {
    if (IsNothing(arg.type)) {
      arg.type = MakeNullable(TypeId::kNothing);
      arg.constant_is_null = arg.constant.has_value();
    }
  }
  return args;
}

bool NeedsNullHandling(const FunctionDef& def, const std::vector<ArgumentInfo>& args) {
  static constexpr std::string_view kSelfHandled[] = {
      "isNull", "isNotNull", "assumeNotNull", "toNullable", "coalesce", "ifNull", "nullIf",
      "toTypeName"};
  for (std::string_view name : kSelfHandled) {
    if (def.name == name) return false;
  }
  if (def.name.ends_with("OrNull") || def.handles_nulls) return false;
  if (AnyNullable(args)) return true;
  if (def.name == "CAST" && args.size() == 2 && IsString(args[1].type) && args[1].constant) {
    absl::StatusOr<TypeId> target = ParseType(ValueToText(*args[1].constant));
    return target.ok() && IsNullable(*target);
  }
  return false;
}

absl::StatusOr<TypeId> ResolveWithNulls(const FunctionDef& def,
                                        const std::vector<ArgumentInfo>& args) {
  if (def.name == "CAST") return ResolveCastWithNulls(def, args);
  if (def.name == "caseWithExpression") return ResolveCaseWithNulls(args);
  if (def.name == "in" || def.name == "notIn") return ResolveInWithNulls(def, args);
  if (IsConditional(def.name)) return ResolveConditionalWithNulls(def, args);
  if (IsAndOr(def.name)) return ResolveLogicalWithNulls(def, args);
  for (const ArgumentInfo& arg : args) {
    if (IsNothing(arg.type)) return MakeNullable(TypeId::kNothing);
  }
  ASSIGN_OR_RETURN(TypeId nested, def.resolve(def.name, Stripped(args)));
  if (IsNullable(nested)) return nested;
  return MakeNullable(nested);
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileWithNulls(
    const FunctionDef& def, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  if (def.name == "CAST") return CompileCastWithNulls(def, args, result_type);
  if (def.name == "caseWithExpression") return CompileCaseWithNulls(args);
  if (def.name == "in" || def.name == "notIn") return CompileInWithNulls(def, args, result_type);
  if (IsConditional(def.name)) return CompileConditionalWithNulls(def, args, result_type);
  if (IsAndOr(def.name)) {
    return std::make_unique<LogicalWithNullsKernel>(def.name == "and", MakeNullable(result_type));
  }
  for (const ArgumentInfo& arg : args) {
    if (IsNullArgument(arg)) return std::make_unique<AllNullsKernel>(result_type);
  }
  ASSIGN_OR_RETURN(std::unique_ptr<ScalarKernel> inner,
                   def.compile(def.name, Stripped(args), RemoveNullable(result_type)));
  return std::make_unique<PropagateNullsKernel>(std::move(inner), result_type);
}

void RegisterNullFunctions(FunctionTable& table) {
  table.Add({"isNull", 1, 1, true, ResolveNullCheck, CompileNullCheck});
  table.Add({"isNotNull", 1, 1, true, ResolveNullCheck, CompileNullCheck});
  table.Add({"assumeNotNull", 1, 1, false, ResolveAssumeNotNull, CompileNullMap});
  table.Add({"toNullable", 1, 1, false, ResolveToNullable, CompileNullMap});
  table.Add({"coalesce", 1, kVariadic, true, ResolveCoalesce, CompileCoalesce});
  table.Add({"ifNull", 2, 2, true, ResolveCoalesce, CompileCoalesce});
  table.Add({"nullIf", 2, 2, true, ResolveNullIf, CompileNullIf});
  for (const OrNull& f : kOrNull) table.Add({f.name, 1, 1, false, ResolveOrNull, CompileOrNull});
}

}  // namespace granite::core
