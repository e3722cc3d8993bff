// Error statuses shared by the scalar functions, worded like ClickHouse's so that users see the
// messages they know: "Illegal type String of argument 2 of function plus".
#pragma once

#include <cstddef>
#include <string_view>

#include "absl/status/status.h"
#include "core/types.h"

namespace granite::core {

// Returns kIllegalTypeOfArgument for argument `index` (0-based; the message counts from 1).
absl::Status IllegalArgumentType(std::string_view function, size_t index, TypeId type);

// Returns kIllegalColumn for argument `index` (0-based) that must be a constant but is not.
absl::Status ArgumentMustBeConstant(std::string_view function, size_t index);

// Returns kIllegalTypeOfArgument for types that have no common supertype.
absl::Status NoCommonType(std::string_view function, TypeId a, TypeId b);

}  // namespace granite::core
