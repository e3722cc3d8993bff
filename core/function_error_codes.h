// ClickHouse error codes raised only by functions, aggregate functions and WITH FILL, kept beside
// core/error.h's ErrorCode list (same enum) so that adding one recompiles the functions rather
// than every file that includes error.h. ErrorName (error.cc) knows their names.
#pragma once

#include "core/error.h"

namespace granite::core {

inline constexpr ErrorCode kParameterOutOfBound = static_cast<ErrorCode>(12);
inline constexpr ErrorCode kCannotParseDatetime = static_cast<ErrorCode>(41);
inline constexpr ErrorCode kSizesOfArraysDontMatch = static_cast<ErrorCode>(190);
inline constexpr ErrorCode kAggregateFunctionDoesntAllowParameters = static_cast<ErrorCode>(133);
inline constexpr ErrorCode kFunctionThrowIfValueIsNonZero = static_cast<ErrorCode>(395);
inline constexpr ErrorCode kCannotParseIpv4 = static_cast<ErrorCode>(675);
inline constexpr ErrorCode kInvalidWithFillExpression = static_cast<ErrorCode>(475);

}  // namespace granite::core
