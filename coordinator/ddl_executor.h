// DDL on the cluster: CREATE TABLE and DROP TABLE go to every worker (each persists its own copy
// of the schema), then the coordinator's catalog is updated.
#pragma once

#include "absl/status/status.h"
#include "coordinator/catalog.h"
#include "coordinator/sql/ast.h"
#include "coordinator/worker_set.h"

namespace granite::coordinator {

absl::Status CreateTable(const sql::CreateTableStatement& create, const WorkerSet& workers,
                         Catalog* catalog);

absl::Status DropTable(const sql::DropTableStatement& drop, const WorkerSet& workers,
                       Catalog* catalog);

// Loads the catalog from the workers (the union of their tables) if it is not loaded yet.
absl::Status EnsureCatalog(const WorkerSet& workers, Catalog* catalog);

}  // namespace granite::coordinator
