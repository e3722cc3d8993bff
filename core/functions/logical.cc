// Logical functions: and, or, xor (n-ary), not -> UInt8, or Bool when an argument is Bool (as
// ClickHouse types true AND x). Arguments are numbers; non-zero is true.
// Constant arguments are applied once per batch (and(x, 0) fills zeros) instead of per row.
#include <cstring>
#include <memory>

#include "core/functions/constant_column.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/functions/vector_loops.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

enum class LogicalOp { kAnd, kOr, kXor };

absl::StatusOr<TypeId> ResolveLogical(std::string_view name, const std::vector<ArgumentInfo>& args) {
  bool any_bool = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!IsNumeric(args[i].type)) return IllegalArgumentType(name, i, args[i].type);
    any_bool |= IsBool(args[i].type);
  }
  return any_bool ? TypeId::kBool : TypeId::kUInt8;
}

// Folds each argument's truth into `out` with one loop per argument.
class LogicalKernel : public ScalarKernel {
 public:
  LogicalKernel(LogicalOp op, TypeId result) : op_(op), result_(result) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    auto out = NewColumn(result_, rows);
    if (rows == 0) return out;  // its data pointer may be null
    uint8_t* result = out->Data<uint8_t>();
    std::memset(result, op_ == LogicalOp::kAnd ? 1 : 0, rows);
    for (const Operand& arg : args) {
      if (arg.is_constant) {
        const bool truth = IsTrue(ValueAt(*arg.column, 0));
        if (op_ == LogicalOp::kAnd && !truth) std::memset(result, 0, rows);
        if (op_ == LogicalOp::kOr && truth) std::memset(result, 1, rows);
        if (op_ == LogicalOp::kXor && truth) {
          for (size_t i = 0; i < rows; ++i) result[i] ^= 1;
        }
        continue;
      }
      DispatchFixed(arg.type(), [&](auto tag) {
        using T = typename decltype(tag)::Type;
        const T* x = arg.column->template Data<T>();
        switch (op_) {
          case LogicalOp::kAnd:
            for (size_t i = 0; i < rows; ++i) result[i] &= x[i] != 0;
            break;
          case LogicalOp::kOr:
            for (size_t i = 0; i < rows; ++i) result[i] |= x[i] != 0;
            break;
          case LogicalOp::kXor:
            for (size_t i = 0; i < rows; ++i) result[i] ^= x[i] != 0;
            break;
        }
      });
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const LogicalOp op_;
  const TypeId result_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileLogical(std::string_view name,
                                                             const std::vector<ArgumentInfo>& args,
                                                             TypeId result_type) {
  LogicalOp op = name == "and" ? LogicalOp::kAnd : (name == "or" ? LogicalOp::kOr : LogicalOp::kXor);
  return std::make_unique<LogicalKernel>(op, result_type);
}

class NotKernel : public ScalarKernel {
 public:
  explicit NotKernel(TypeId result) : result_(result) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    auto out = NewColumn(result_, rows);
    DispatchFixed(args[0].type(), [&](auto tag) {
      using T = typename decltype(tag)::Type;
      UnaryLoop(args[0].column->template Data<T>(), out->Data<uint8_t>(), rows,
                [](T v) -> uint8_t { return v == 0; });
    });
    return ColumnPtr(std::move(out));
  }

 private:
  const TypeId result_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileNot(std::string_view name,
                                                         const std::vector<ArgumentInfo>& args,
                                                         TypeId result_type) {
  return std::make_unique<NotKernel>(result_type);
}

}  // namespace

void RegisterLogicalFunctions(FunctionTable& table) {
  table.Add({"and", 2, kVariadic, true, ResolveLogical, CompileLogical});
  table.Add({"or", 2, kVariadic, true, ResolveLogical, CompileLogical});
  table.Add({"xor", 2, kVariadic, true, ResolveLogical, CompileLogical});
  table.Add({"not", 1, 1, true, ResolveLogical, CompileNot});
}

}  // namespace granite::core
