// system.one, system.databases and system.columns: tables built from the coordinator's catalog
// alone (system_tables.h dispatches here first).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/cluster/catalog.h"
#include "coordinator/planner/binder.h"

namespace granite::coordinator {

// Bytes of each column of each table over the active parts of every worker, by table name then
// column position: {compressed, uncompressed}.
using ColumnBytes = std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>>;

// Returns system.<name> if it is one of this file's tables, else nullopt. The catalog must be
// loaded (EnsureCatalog). `column_bytes` fills system.columns' data_*_bytes (zeros when null).
std::optional<LocalTable> BuildCatalogSystemTable(const std::string& name, const Catalog& catalog,
                                                  const ColumnBytes* column_bytes = nullptr);

}  // namespace granite::coordinator
