// ClickHouse's error codes of access control that only the coordinator's access code raises.
// Kept beside core/error.h's ErrorCode list (same enum) so that adding one recompiles only its
// users; ErrorName (error.cc) knows their names.
#pragma once

#include "core/error.h"

namespace granite::core {

// SET ROLE / SET DEFAULT ROLE of a role not granted to the user.
inline constexpr ErrorCode kSetNonGrantedRole = static_cast<ErrorCode>(512);

}  // namespace granite::core
