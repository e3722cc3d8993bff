// ClickHouse's error code for failures of its coordination service (Keeper), which granite uses
// for etcd (coordinator/coord/etcd_client.h). Kept beside core/error.h's ErrorCode list (same
// enum) so that adding it recompiles only its users; ErrorName (error.cc) knows its name.
#pragma once

#include "core/error.h"

namespace granite::core {

inline constexpr ErrorCode kKeeperException = static_cast<ErrorCode>(999);

}  // namespace granite::core
