// Turns a bound WHERE or HAVING expression into the UInt8 mask the filter steps read
// (core::FragmentPipeline for WHERE and a worker's local HAVING, the final stage for HAVING).
// Like ClickHouse, any number is a condition (true when not 0); a String is refused, so no filter
// ever reads a String column as bytes of flags.
#pragma once

#include <cstddef>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/plan/expr.h"

namespace granite::coordinator {

// Returns `bound` when it is UInt8, notEquals(bound, 0) for another numeric type, else
// ILLEGAL_TYPE_OF_ARGUMENT naming `clause` ("WHERE", "HAVING") and the type, at `position`.
absl::StatusOr<core::plan::Expr> AsFilterCondition(core::plan::Expr bound,
                                                            std::string_view clause,
                                                            size_t position);

}  // namespace granite::coordinator
