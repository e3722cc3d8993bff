// DDL on the cluster: CREATE TABLE, DROP TABLE and ALTER TABLE ... SETTING go to every worker
// (each persists its own copy of the schema), then the coordinator's catalog is updated.
//
// CREATE and DROP are all-or-nothing across workers: each first lists the tables of every worker
// and changes nothing unless all answer (the listing also refreshes the catalog). CREATE of a
// table no worker has creates it on all and, if any fails, drops it again from the others
// (compensation). They also converge a table left on some workers only (an interrupted CREATE or
// DROP, which the catalog shows as unusable, naming the workers): CREATE with the same schema
// creates it where it is missing (another schema: TABLE_ALREADY_EXISTS saying where it differs),
// and DROP removes it from every worker that has it, succeeding if any had it.
#pragma once

#include "absl/status/status.h"
#include "core/mutex.h"
#include "coordinator/cluster/catalog.h"
#include "coordinator/sql/ast.h"
#include "coordinator/cluster/worker_set.h"

namespace granite::coordinator {

// Errors: a worker's error (ALL_CONNECTION_TRIES_FAILED naming it) when not every worker answers
// (nothing is created); TABLE_ALREADY_EXISTS; the first worker's error if a create fails (the
// message says whether the table was removed again from the others).
absl::Status CreateTable(const sql::CreateTableStatement& create, const WorkerSet& workers,
                         Catalog* catalog);

// CREATE TABLE from a schema built elsewhere (a view's), with the same all-or-nothing rules.
absl::Status CreateTableWithSchema(const core::TableSchema& schema, bool or_replace,
                                   bool if_not_exists, const WorkerSet& workers, Catalog* catalog);

// Errors: as CreateTable when not every worker answers (nothing is dropped); UNKNOWN_TABLE if no
// worker has it (unless IF EXISTS).
absl::Status DropTable(const sql::DropTableStatement& drop, const WorkerSet& workers,
                       Catalog* catalog);

// ALTER TABLE t MODIFY SETTING sharding_key = 'a, b' / RESET SETTING sharding_key: re-creates the
// table's schema on every worker with the new key and shard_count = the current worker count
// (like CREATE), then updates the catalog. Allowed only while no worker holds a row of the table,
// since the key decides which worker each row lives on.
// min_bytes_for_wide_part and min_rows_for_wide_part (which decide how later parts are written)
// change in place on every worker, whatever the table holds.
// Errors: UNKNOWN_TABLE; NOT_IMPLEMENTED for any other setting; those of ParseShardingKey;
// BAD_ARGUMENTS naming the table and its row count if it holds rows (nothing is changed); a
// worker's error if it cannot be asked for its row count or refuses the new schema.
// Not atomic against a concurrent INSERT into the same table: such an INSERT may be lost.
absl::Status AlterTableSettings(const sql::AlterSettingsStatement& alter, const WorkerSet& workers,
                                Catalog* catalog);

// Serializes this coordinator's DDL (tables and databases): each lists the workers and then acts
// on what it saw, so two at once could race.
core::Mutex& DdlMutex();

// Loads the catalog from the workers (the union of their tables) if it is not loaded yet.
absl::Status EnsureCatalog(const WorkerSet& workers, Catalog* catalog);

}  // namespace granite::coordinator
