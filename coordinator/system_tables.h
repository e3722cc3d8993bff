// system.* tables, built on demand from the catalog and the workers: tables, parts, workers.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "coordinator/binder.h"
#include "coordinator/catalog.h"
#include "coordinator/worker_set.h"

namespace granite::coordinator {

// Builds system.<name>; UNKNOWN_TABLE for names granite does not have.
absl::StatusOr<LocalTable> BuildSystemTable(const std::string& name, const WorkerSet& workers,
                                            const Catalog& catalog);

}  // namespace granite::coordinator
