// ScalarKernel: the compiled form of one scalar function call, run once per block by
// core::Expression. A kernel is built by CompileFunction (function_registry.h) with everything that
// depends only on argument types and constant arguments already decided; Execute then dispatches
// on the physical types once per batch and runs a templated loop.
#pragma once

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "core/column.h"

namespace granite::core {

// Holds one evaluated argument: a column of the batch's row count, or a constant held as a
// one-row column (never broadcast).
struct Operand {
  ColumnPtr column;
  bool is_constant = false;

  TypeId type() const { return column->type(); }
};

// Evaluates one function call over a batch.
// Thread-safety: immutable after construction; Execute may run concurrently on many threads.
class ScalarKernel {
 public:
  virtual ~ScalarKernel() = default;

  // Returns a column of `rows` rows. Per-row failures (division by zero, unparsable text) are
  // collected over the batch and returned as one Status after the loop.
  // REQUIRES: args have the types and constness the kernel was compiled for; a non-constant
  // argument has `rows` rows. When every argument is constant, rows == 1 (constant folding).
  virtual absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args,
                                            size_t rows) const = 0;
};

}  // namespace granite::core
