// ClickHouse error codes raised only by column expressions and ALTER TABLE, kept beside
// core/error.h's ErrorCode list (same enum) so that adding one recompiles only their users.
// ErrorName (error.cc) knows their names.
#pragma once

#include "core/error.h"

namespace granite::core {

inline constexpr ErrorCode kNotFoundColumnInBlock = static_cast<ErrorCode>(10);
inline constexpr ErrorCode kCyclicAliases = static_cast<ErrorCode>(174);
inline constexpr ErrorCode kAlterOfColumnIsForbidden = static_cast<ErrorCode>(524);

}  // namespace granite::core
