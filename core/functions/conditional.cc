// Conditionals: if(c, a, b), multiIf(c1, r1, ..., cn, rn, else) and
// caseWithExpression(x, v1, r1, ..., vn, rn, else). The result type is the common supertype of
// the branches (type_rules.h). Every branch is evaluated in full and rows are selected afterwards
// (no short-circuit): the conditions are folded, last to first, into one branch index per row,
// then one gather loop copies the chosen values. if is multiIf with one condition;
// caseWithExpression turns each (x, v_k) into an equals kernel compiled up front.
// greatest and least pick, per row, the index of the largest / smallest argument the same way.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/functions/constant_column.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/functions/operand_caster.h"
#include "core/functions/type_rules.h"
#include "core/functions/vector_loops.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

using BranchIndex = uint16_t;
constexpr size_t kMaxBranches = 65535;

// Positions of the conditions and values of a call, by function.
struct BranchLayout {
  std::vector<size_t> conditions;  // multiIf: argument indices; case: indices of v_k
  std::vector<size_t> values;      // r_1 ... r_n, else
};

absl::StatusOr<BranchLayout> LayoutOf(std::string_view name, size_t count) {
  BranchLayout layout;
  const bool is_case = name == "caseWithExpression";
  if (is_case ? count % 2 != 0 : count % 2 != 1) {
    return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                 absl::StrCat("Invalid number of arguments for function ", ToAbsl(name),
                              ": ", count, is_case ? ", should be even" : ", should be odd"));
  }
  for (size_t i = is_case ? 1 : 0; i + 1 < count; i += 2) {
    layout.conditions.push_back(i);
    layout.values.push_back(i + 1);
  }
  layout.values.push_back(count - 1);
  if (layout.values.size() > kMaxBranches) {
    return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                 absl::StrCat("Too many branches in function ", ToAbsl(name)));
  }
  return layout;
}

absl::StatusOr<TypeId> ResolveConditional(std::string_view name,
                                          const std::vector<ArgumentInfo>& args) {
  ASSIGN_OR_RETURN(BranchLayout layout, LayoutOf(name, args.size()));
  for (size_t index : layout.conditions) {
    if (IsArray(args[index].type)) return IllegalArgumentType(name, index, args[index].type);
  }
  if (name == "caseWithExpression") {
    if (IsArray(args[0].type)) return IllegalArgumentType(name, 0, args[0].type);
    for (size_t index : layout.conditions) {
      auto resolved = ResolveFunction("equals", {args[0], args[index]});
      if (!resolved.ok()) return IllegalArgumentType(name, index, args[index].type);
    }
  } else {
    for (size_t index : layout.conditions) {
      if (!IsNumeric(args[index].type)) return IllegalArgumentType(name, index, args[index].type);
    }
  }
  TypeId result = args[layout.values[0]].type;
  for (size_t index : layout.values) {
    std::optional<TypeId> common = CommonSupertype(result, args[index].type);
    if (!common) return NoCommonType(name, result, args[index].type);
    result = *common;
  }
  return result;
}

// Sets choice[i] = k where condition row i is true (non-zero).
void ApplyCondition(const Operand& condition, BranchIndex k, BranchIndex* choice, size_t rows) {
  if (condition.is_constant) {
    if (IsTrue(ValueAt(*condition.column, 0))) std::fill(choice, choice + rows, k);
    return;
  }
  DispatchFixed(condition.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    const T* c = condition.column->template Data<T>();
    for (size_t i = 0; i < rows; ++i) choice[i] = c[i] != 0 ? k : choice[i];
  });
}

// Copies row i of values[choice[i]] into the result.
ColumnPtr Gather(TypeId type, const std::vector<Operand>& values, const BranchIndex* choice,
                 size_t rows) {
  if (IsArray(type)) {  // arrays row by row, from the constant's only row or the same row
    auto out = std::make_shared<Column>(type);
    for (size_t i = 0; i < rows; ++i) {
      const Operand& value = values[choice[i]];
      out->AppendFrom(*value.column, value.is_constant ? 0 : i);
    }
    return out;
  }
  if (HasStringLayout(type)) {
    auto out = std::make_shared<Column>(type);
    out->Reserve(rows);
    for (size_t i = 0; i < rows; ++i) out->AppendString(StringOf(values[choice[i]], i));
    return out;
  }
  auto out = NewColumn(type, rows);
  DispatchFixed(type, [&](auto tag) {
    using T = typename decltype(tag)::Type;
    std::vector<const T*> data(values.size());
    std::vector<size_t> stride(values.size());
    for (size_t k = 0; k < values.size(); ++k) {
      data[k] = values[k].column->template Data<T>();
      stride[k] = values[k].is_constant ? 0 : 1;
    }
    T* result = out->template Data<T>();
    if (values.size() == 2 && stride[0] == 1 && stride[1] == 1) {
      // if(c, a, b) over two columns: a select the compiler turns into blends.
      const T* a = data[0];
      const T* b = data[1];
      for (size_t i = 0; i < rows; ++i) result[i] = choice[i] == 0 ? a[i] : b[i];
      return;
    }
    for (size_t i = 0; i < rows; ++i) result[i] = data[choice[i]][i * stride[choice[i]]];
  });
  return out;
}

class SelectKernel : public ScalarKernel {
 public:
  SelectKernel(BranchLayout layout, OperandCaster caster, TypeId result,
               std::vector<std::unique_ptr<ScalarKernel>> equals)
      : layout_(std::move(layout)),
        caster_(std::move(caster)),
        result_(result),
        equals_(std::move(equals)) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    const size_t n = layout_.conditions.size();
    std::vector<BranchIndex> choice(rows, static_cast<BranchIndex>(n));
    for (size_t k = n; k-- > 0;) {
      const size_t index = layout_.conditions[k];
      if (equals_.empty()) {
        ApplyCondition(args[index], static_cast<BranchIndex>(k), choice.data(), rows);
        continue;
      }
      const size_t equals_rows = args[0].is_constant && args[index].is_constant ? 1 : rows;
      ASSIGN_OR_RETURN(ColumnPtr matches, equals_[k]->Execute({args[0], args[index]}, equals_rows));
      ApplyCondition(Operand{matches, equals_rows != rows}, static_cast<BranchIndex>(k),
                     choice.data(), rows);
    }
    std::vector<Operand> values;
    values.reserve(layout_.values.size());
    for (size_t index : layout_.values) {
      ASSIGN_OR_RETURN(Operand value, caster_.Cast(index, args[index]));
      values.push_back(std::move(value));
    }
    return Gather(result_, values, choice.data(), rows);
  }

 private:
  const BranchLayout layout_;
  const OperandCaster caster_;  // casts the value arguments to the result type
  const TypeId result_;
  const std::vector<std::unique_ptr<ScalarKernel>> equals_;  // caseWithExpression only
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileConditional(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  ASSIGN_OR_RETURN(BranchLayout layout, LayoutOf(name, args.size()));
  std::vector<TypeId> targets;
  for (const ArgumentInfo& arg : args) targets.push_back(arg.type);
  for (size_t index : layout.values) targets[index] = result_type;
  ASSIGN_OR_RETURN(OperandCaster caster, OperandCaster::Create(args, targets));
  std::vector<std::unique_ptr<ScalarKernel>> equals;
  for (size_t index : layout.conditions) {
    if (IsArray(args[index].type)) return IllegalArgumentType(name, index, args[index].type);
  }
  if (name == "caseWithExpression") {
    if (IsArray(args[0].type)) return IllegalArgumentType(name, 0, args[0].type);
    for (size_t index : layout.conditions) {
      ASSIGN_OR_RETURN(CompiledFunction compiled, CompileFunction("equals", {args[0], args[index]}));
      equals.push_back(std::move(compiled.kernel));
    }
  }
  return std::make_unique<SelectKernel>(std::move(layout), std::move(caster), result_type,
                                        std::move(equals));
}

// greatest(a, b, ...), least(a, b, ...): the common supertype of the arguments.
absl::StatusOr<TypeId> ResolveExtreme(std::string_view name, const std::vector<ArgumentInfo>& args) {
  TypeId result = args[0].type;
  for (size_t i = 1; i < args.size(); ++i) {
    std::optional<TypeId> common = CommonSupertype(result, args[i].type);
    if (!common) return NoCommonType(name, result, args[i].type);
    result = *common;
  }
  return result;
}

class ExtremeKernel : public ScalarKernel {
 public:
  ExtremeKernel(OperandCaster caster, TypeId result, bool greatest)
      : caster_(std::move(caster)), result_(result), greatest_(greatest) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    ASSIGN_OR_RETURN(std::vector<Operand> ops, caster_.CastAll(args));
    if (HasStringLayout(result_)) {
      // choice[i] = index of the winning argument of row i.
      std::vector<BranchIndex> choice(rows, 0);
      for (size_t k = 1; k < ops.size(); ++k) {
        for (size_t i = 0; i < rows; ++i) {
          const int order = StringOf(ops[k], i).compare(StringOf(ops[choice[i]], i));
          if (greatest_ ? order > 0 : order < 0) choice[i] = static_cast<BranchIndex>(k);
        }
      }
      return Gather(result_, ops, choice.data(), rows);
    }
    auto out = NewColumn(result_, rows);
    DispatchFixed(result_, [&](auto tag) {
      using T = typename decltype(tag)::Type;
      T* best = out->template Data<T>();
      for (size_t k = 0; k < ops.size(); ++k) {
        const T* x = ops[k].column->template Data<T>();
        const size_t step = ops[k].is_constant ? 0 : 1;
        if (k == 0) {
          for (size_t i = 0; i < rows; ++i) best[i] = x[i * step];
        } else if (greatest_) {
          for (size_t i = 0; i < rows; ++i) best[i] = x[i * step] > best[i] ? x[i * step] : best[i];
        } else {
          for (size_t i = 0; i < rows; ++i) best[i] = x[i * step] < best[i] ? x[i * step] : best[i];
        }
      }
    });
    return ColumnPtr(std::move(out));
  }

 private:
  const OperandCaster caster_;
  const TypeId result_;
  const bool greatest_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileExtreme(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  if (args.size() > kMaxBranches) {
    return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                 absl::StrCat("Too many arguments for function ", ToAbsl(name)));
  }
  ASSIGN_OR_RETURN(OperandCaster caster,
                   OperandCaster::Create(args, std::vector<TypeId>(args.size(), result_type)));
  return std::make_unique<ExtremeKernel>(std::move(caster), result_type, name == "greatest");
}

}  // namespace

void RegisterConditionalFunctions(FunctionTable& table) {
  // Branches may be arrays (if(c, [1], [2, 3])); conditions and case keys may not.
  table.Add({"if", 3, 3, true, ResolveConditional, CompileConditional, true});
  table.Add({"multiIf", 3, kVariadic, false, ResolveConditional, CompileConditional, true});
  table.Add({"caseWithExpression", 4, kVariadic, false, ResolveConditional, CompileConditional,
             true});
  table.Add({"greatest", 1, kVariadic, true, ResolveExtreme, CompileExtreme});
  table.Add({"least", 1, kVariadic, true, ResolveExtreme, CompileExtreme});
}

}  // namespace granite::core
