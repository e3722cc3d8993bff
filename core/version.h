// The granite release version (what a worker reports in GetInfo, system.workers.version) and the
// ClickHouse version granite answers SQL version() with: clients compare it to pick features, so
// it names the ClickHouse release whose SQL and protocol granite follows (24.3, an LTS release).
#pragma once

namespace granite::core {

inline constexpr char kGraniteVersion[] = "0.1.0";
inline constexpr char kClickHouseCompatibleVersion[] = "24.3.1.1";

}  // namespace granite::core
