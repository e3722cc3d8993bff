// DateTime64 arguments of the DateTime functions: toYear, toHour, toStartOfHour, dateDiff, ...
// take a DateTime64 as the DateTime of its whole seconds, as ClickHouse does for the functions
// whose result does not depend on the fraction (their result types are the DateTime ones). The
// registry (function_registry.cc) resolves such a call on DateTime arguments and casts the
// columns before the kernel runs, so every caller (SELECT, table key expressions) gets it.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/functions/function_registry.h"
#include "core/functions/scalar_kernel.h"

namespace granite::core {

// Returns whether argument `index` of function `name` reads a DateTime64 as its whole seconds.
bool TakesDateTime64AsDateTime(std::string_view name, size_t index);

// Replaces the DateTime64 arguments of `name` that TakesDateTime64AsDateTime with DateTime ones
// (a constant converted), and sets (*casts)[i] to the type argument i is cast to before the kernel
// (kNothing: as it is). Returns whether any argument changed.
absl::StatusOr<bool> AdaptDateTime64Arguments(std::string_view name,
                                              std::vector<ArgumentInfo>* args,
                                              std::vector<TypeId>* casts);

// Wraps `kernel`: casts argument i to casts[i] (keeping NULLs) before running it.
std::unique_ptr<ScalarKernel> CastArgumentsKernel(std::unique_ptr<ScalarKernel> kernel,
                                                  std::vector<TypeId> casts);

}  // namespace granite::core
