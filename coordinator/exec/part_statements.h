// Part maintenance statements on the cluster, each sent to every worker (a worker holds its own
// shard's parts, detached ones included; system.detached_parts shows which worker has which):
//   ALTER TABLE t ATTACH PART 'dir'         attaches detached/<dir> on every worker that has it
//   ALTER TABLE t DROP DETACHED PART 'dir'  deletes it there (SETTINGS allow_drop_detached = 1)
//   CHECK TABLE t                           verifies every part's checksums on every worker
#pragma once

#include "absl/status/statusor.h"
#include "coordinator/cluster/catalog.h"
#include "coordinator/exec/query_executor.h"
#include "coordinator/sql/ast.h"
#include "coordinator/cluster/worker_set.h"

namespace granite::coordinator {

// Runs ATTACH PART / DROP DETACHED PART on every worker; succeeds if at least one worker had the
// detached part (part names are per worker: every worker holding one of that name is affected).
// Errors: UNKNOWN_TABLE (or why the table is unusable); SUPPORT_IS_DISABLED for DROP DETACHED
// without allow_drop_detached = 1; NO_SUCH_DATA_PART when no worker has it; a worker's error
// (ATTACH of a part that fails its checksums: the part stays detached).
// `settings` are the query's with the statement's SETTINGS applied.
absl::Status AlterPart(const sql::AlterPartStatement& alter, const core::Settings& settings,
                       const WorkerSet& workers, Catalog* catalog);

// Runs CHECK TABLE: as ClickHouse with its default check_query_single_value_result = 1, one row
// `result` (UInt8: 1 if every part passed); with 0, one row per part: part_path, is_passed,
// message, and the worker holding it. Broken parts under detached/ count as failed (the table
// answers without their rows). Errors: UNKNOWN_TABLE; a worker's error.
absl::StatusOr<QueryResult> CheckTable(const sql::CheckTableStatement& check,
                                       const core::Settings& settings, const WorkerSet& workers,
                                       Catalog* catalog);

}  // namespace granite::coordinator
