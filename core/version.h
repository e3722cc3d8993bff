// The granite release version: what SQL version() returns and what a worker reports in GetInfo
// (system.workers.version).
#pragma once

namespace granite::core {

inline constexpr char kGraniteVersion[] = "0.1.0";

}  // namespace granite::core
