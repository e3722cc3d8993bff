// system.one, system.databases and system.columns: tables built from the coordinator's catalog
// alone (system_tables.h dispatches here first).
#pragma once

#include <optional>
#include <string>

#include "coordinator/cluster/catalog.h"
#include "coordinator/planner/binder.h"

namespace granite::coordinator {

// Returns system.<name> if it is one of this file's tables, else nullopt. The catalog must be
// loaded (EnsureCatalog).
std::optional<LocalTable> BuildCatalogSystemTable(const std::string& name, const Catalog& catalog);

}  // namespace granite::coordinator
