// OperandCaster: brings the arguments of a call to the types its loop works on. Constant
// arguments are converted once when the kernel is compiled; column arguments once per batch
// (CastColumn returns the column itself when it already has the type).
#pragma once

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "core/column.h"
#include "core/functions/function_registry.h"
#include "core/functions/scalar_kernel.h"

namespace granite::core {

// Converts operand i to targets[i].
// Thread-safety: immutable after Create; Cast may run concurrently.
class OperandCaster {
 public:
  OperandCaster() = default;

  // Prepares casts of `args` to `targets` (same length); converts constant arguments now.
  // Errors: the conversion error of a constant (kCannotParseText, ...).
  static absl::StatusOr<OperandCaster> Create(const std::vector<ArgumentInfo>& args,
                                              const std::vector<TypeId>& targets);

  // Returns operand i converted; a constant argument yields the pre-converted constant.
  absl::StatusOr<Operand> Cast(size_t i, const Operand& operand) const;
  absl::StatusOr<std::vector<Operand>> CastAll(const std::vector<Operand>& operands) const;

  TypeId target(size_t i) const { return targets_[i]; }
  // Returns the converted constant i, or null when argument i is not constant.
  const ColumnPtr& constant(size_t i) const { return constants_[i]; }

 private:
  std::vector<TypeId> targets_;
  std::vector<ColumnPtr> constants_;
};

// Returns a one-row column holding the constant of `arg` converted to `to` (CAST semantics).
// REQUIRES: arg.constant is set.
absl::StatusOr<ColumnPtr> ConstantAs(const ArgumentInfo& arg, TypeId to);

}  // namespace granite::core
