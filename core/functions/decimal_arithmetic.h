// Decimal arithmetic and comparison rules: the branch arithmetic.cc and comparison.cc take when
// an argument is a Decimal. Result types follow ClickHouse:
//   Decimal op Decimal / integer (an integer is a Decimal of scale 0, 32 bits wide up to 32-bit
//   integers, 64 bits for 64-bit ones): the wider of the two widths, at that width's maximum
//   precision (9, 18, 38); scale max(s1, s2) for plus and minus, s1 + s2 for multiply, the
//   dividend's scale for divide (an integer dividend takes the divisor's scale).
//   Decimal op Float32/Float64: Float64.
//   negate, abs: the argument's type.
// Arithmetic is exact on 128-bit scaled integers; a result that does not fit its width is
// DECIMAL_OVERFLOW, a division by zero ILLEGAL_DIVISION. Comparisons of decimals with decimals
// and integers are exact (both sides brought to one scale); with floats they compare as Float64.
#pragma once

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/functions/function_registry.h"
#include "core/functions/scalar_kernel.h"

namespace granite::core {

bool AnyDecimalArgument(const std::vector<ArgumentInfo>& args);

// plus, minus, multiply, divide, negate, abs with a Decimal argument.
absl::StatusOr<TypeId> ResolveDecimalArithmetic(std::string_view name,
                                                const std::vector<ArgumentInfo>& args);
absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileDecimalArithmetic(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result_type);

// Returns the types both sides of a comparison with a Decimal side are converted to.
absl::StatusOr<std::pair<TypeId, TypeId>> DecimalComparisonTypes(
    std::string_view name, const std::vector<ArgumentInfo>& args);

}  // namespace granite::core
