// DDL on the cluster: CREATE TABLE, DROP TABLE and ALTER TABLE ... SETTING go to every worker
// (each persists its own copy of the schema), then the coordinator's catalog is updated.
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

// ALTER TABLE t MODIFY SETTING sharding_key = 'a, b' / RESET SETTING sharding_key: re-creates the
// table's schema on every worker with the new key and shard_count = the current worker count
// (like CREATE), then updates the catalog. Allowed only while no worker holds a row of the table,
// since the key decides which worker each row lives on.
// Errors: UNKNOWN_TABLE; NOT_IMPLEMENTED for any other setting; those of ParseShardingKey;
// BAD_ARGUMENTS naming the table and its row count if it holds rows (nothing is changed); a
// worker's error if it cannot be asked for its row count or refuses the new schema.
// Not atomic against a concurrent INSERT into the same table: such an INSERT may be lost.
absl::Status AlterTableSettings(const sql::AlterSettingsStatement& alter, const WorkerSet& workers,
                                Catalog* catalog);

// Loads the catalog from the workers (the union of their tables) if it is not loaded yet.
absl::Status EnsureCatalog(const WorkerSet& workers, Catalog* catalog);

}  // namespace granite::coordinator
