// SimpleFunction: a table-driven way to define the many scalar functions whose arguments convert
// to one fixed type each (Float64, Int64, UInt64, String, DateTime) and whose result type is fixed:
// exp, lowerUTF8, domain, cityHash64, addDays, ... A family file lists its functions as
// SimpleFunction rows and registers them with AddSimpleFunctions; the resolve step checks each
// argument's type against its Arg, the kernel converts the arguments once per batch
// (OperandCaster) and calls the row function, a template parameter, in its loop.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "core/functions/function_table.h"
#include "core/functions/operand_caster.h"
#include "core/functions/scalar_kernel.h"

namespace granite::core {

// What an argument accepts and what it is converted to before the row function sees it.
enum class Arg : uint8_t {
  kFloat,   // any number or Decimal (not Date/DateTime) -> Float64
  kInt,     // an integer (not Date/DateTime) -> Int64
  kUInt,    // an integer (not Date/DateTime) -> UInt64
  kUInt32,  // UInt8, UInt16 or UInt32 -> UInt64 (an IPv4 address)
  kCount,   // an integer (not Date/DateTime) -> Float64: a repeat count, so that a UInt64 past
            // Int64's range stays huge instead of wrapping negative
  kString,  // String
  kTime,    // Date or DateTime -> DateTime, a Date kept as it is (read it with Time())
  kAny,     // any type -> String (its text)
  kNumber,  // any number, Date or DateTime -> Float64
};

// Computes row `row` of the result from the converted operands and appends it to `out`. The
// operands end with one whose column is null, so optional and variadic arguments can be found.
using RowFn = void (*)(const Operand* ops, size_t row, Column* out);

struct SimpleFunction {
  std::string_view name;
  std::vector<Arg> args;  // the last one repeats for variadic functions
  int min_args;
  int max_args;           // kVariadic: no upper bound
  bool case_insensitive;
  TypeId result;
  std::unique_ptr<ScalarKernel> (*make)(OperandCaster, TypeId);  // MakeRowKernel<F>
};

// Adds every function to `table` (and keeps the rows for their resolve and compile steps).
void AddSimpleFunctions(FunctionTable& table, const std::vector<SimpleFunction>& functions);

// Reads a converted operand's row (a constant's only row).
inline double F64(const Operand& op, size_t row) {
  return op.column->Data<double>()[op.is_constant ? 0 : row];
}
inline int64_t I64(const Operand& op, size_t row) {
  return op.column->Data<int64_t>()[op.is_constant ? 0 : row];
}
inline uint64_t U64(const Operand& op, size_t row) {
  return op.column->Data<uint64_t>()[op.is_constant ? 0 : row];
}
// Reads an Arg::kTime operand as seconds since the epoch: a Date stays a Date (its midnight is
// computed here in 64 bits, so the Dates past 2106 that a DateTime cannot hold keep their day).
inline int64_t Time(const Operand& op, size_t row) {
  const size_t at = op.is_constant ? 0 : row;
  if (op.column->type() == TypeId::kDate) {
    return int64_t{op.column->Data<uint16_t>()[at]} * 86400;
  }
  return op.column->Data<uint32_t>()[at];
}
inline std::string_view Str(const Operand& op, size_t row) {
  return op.column->StringAt(op.is_constant ? 0 : row);
}

namespace internal {
// The first error a row function reported in the running batch (this thread's).
inline thread_local absl::Status row_error;
}  // namespace internal

// Records a per-row failure (a value that does not parse, an invalid argument): the row function
// appends a placeholder value and goes on; the kernel returns the first error after the loop.
inline void FailRow(absl::Status status) {
  if (internal::row_error.ok()) internal::row_error = std::move(status);
}

// Runs F over every row after converting the operands (see SimpleFunction).
// Thread-safety: immutable; Execute may run concurrently.
template <RowFn F>
class RowKernel : public ScalarKernel {
 public:
  RowKernel(OperandCaster caster, TypeId result) : caster_(std::move(caster)), result_(result) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    absl::StatusOr<std::vector<Operand>> ops = caster_.CastAll(args);
    if (!ops.ok()) return ops.status();
    auto out = std::make_shared<Column>(result_);
    out->Reserve(rows);
    ops->push_back(Operand{});  // ends the list: optional and variadic arguments stop at it
    const Operand* data = ops->data();
    internal::row_error = absl::OkStatus();
    for (size_t i = 0; i < rows; ++i) F(data, i, out.get());
    if (!internal::row_error.ok()) return std::exchange(internal::row_error, absl::OkStatus());
    return ColumnPtr(std::move(out));
  }

 private:
  const OperandCaster caster_;
  const TypeId result_;
};

template <RowFn F>
std::unique_ptr<ScalarKernel> MakeRowKernel(OperandCaster caster, TypeId result) {
  return std::make_unique<RowKernel<F>>(std::move(caster), result);
}

}  // namespace granite::core
