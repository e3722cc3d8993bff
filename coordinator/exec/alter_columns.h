// ALTER TABLE t ADD / DROP / RENAME / MODIFY / COMMENT COLUMN ..., several comma-separated
// commands applied in order to the catalog's schema, with ClickHouse's checks and errors.
//
// Two ways to apply the new schema, chosen by what it changes:
// - Metadata only (defaults, comments, codecs, names, ALIAS columns: the columns parts hold keep
//   their types and order): every worker replaces its schema file atomically and reopens the
//   table (Store::AlterTableSchema); parts are not touched. A part keeps the codec it was written
//   with, and column files go by position, so a renamed column reads its old file.
// - The stored columns change (ADD or DROP of a stored column, a type change): a synchronous
//   mutation through the cluster's own statements. A new table with the new schema is created,
//   filled by INSERT ... SELECT of the old rows (the old columns by their old names, converted
//   with CAST to a new type; added columns computed from their DEFAULT, else their type's
//   default), then the tables are swapped by RENAME TABLE and the old one is dropped. A
//   conversion that fails (e.g. 'abc' to UInt32) fails the ALTER before the swap: the new
//   table is dropped and nothing changed.
// ALTER TABLE t DELETE WHERE cond and DELETE FROM t WHERE cond run as such a mutation too, whose
// INSERT ... SELECT leaves out the rows where cond is true (ClickHouse's lightweight DELETE
// masks them until a merge; the rows a query sees are the same).
// Every worker must answer first (DDL changes every worker or none). Known gaps: rows inserted
// into the table while a mutation copies it are lost; a coordinator crash during the swap can
// leave the table under its temporary name (<table>__alter_old_<token>); and a worker that
// fails in the middle of a metadata change leaves the table unusable (schemas differ) until
// the workers are brought back into agreement by hand.
#pragma once

#include <functional>

#include "absl/status/status.h"
#include "coordinator/cluster/catalog.h"
#include "coordinator/cluster/worker_set.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// Runs an INSERT (INSERT ... SELECT of the mutation) as the current query does.
using InsertRunner = std::function<absl::Status(const sql::InsertStatement&)>;

// Errors, as ClickHouse: DUPLICATE_COLUMN (ADD of an existing column, RENAME onto one),
// NOT_FOUND_COLUMN_IN_BLOCK (DROP / RENAME / MODIFY / COMMENT of a missing column, unless
// IF EXISTS), NO_SUCH_COLUMN_IN_TABLE (AFTER a missing column), ALTER_OF_COLUMN_IS_FORBIDDEN
// (DROP, RENAME or a type change of a column of the sorting, primary, partition or sharding
// key), those of the default expressions (column_defaults.h) and of the conversion of the rows.
absl::Status AlterColumns(const sql::AlterSettingsStatement& alter, const WorkerSet& workers,
                          Catalog* catalog, const InsertRunner& run_insert);

}  // namespace granite::coordinator
