// ClickHouse error codes raised only by column expressions, enum types and ALTER TABLE, kept beside
// core/error.h's ErrorCode list (same enum) so that adding one recompiles only their users.
// ErrorName (error.cc) knows their names.
#pragma once

#include "core/error.h"

namespace granite::core {

inline constexpr ErrorCode kNotFoundColumnInBlock = static_cast<ErrorCode>(10);
inline constexpr ErrorCode kCyclicAliases = static_cast<ErrorCode>(174);
inline constexpr ErrorCode kAlterOfColumnIsForbidden = static_cast<ErrorCode>(524);
// Enum8 / Enum16 (core/enum_type.h): an enum without elements; a name or value it lacks.
inline constexpr ErrorCode kEmptyDataPassed = static_cast<ErrorCode>(92);
inline constexpr ErrorCode kUnknownElementOfEnum = static_cast<ErrorCode>(691);

}  // namespace granite::core
