// INSERT on the cluster: parses the rows (VALUES, a text format, or a SELECT), converts them to the
// table's column types, splits them evenly across workers and sends each worker its share in two
// phases (prepare everywhere, then commit everywhere); the insert is acknowledged once every
// worker has committed. A malformed row fails the whole insert before anything is sent, and a
// worker failing to prepare aborts it on all, so nothing becomes visible.
#pragma once

#include <functional>
#include <string_view>

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"
#include "coordinator/worker_set.h"
#include "core/block.h"
#include "granite/worker/v1/worker.pb.h"

namespace granite::coordinator {

// Runs a SELECT and returns its result block (for INSERT ... SELECT and non-literal VALUES).
using SelectRunner = std::function<absl::StatusOr<core::Block>(const sql::SelectStatement&)>;

// Inserts into `schema`'s table; returns the number of rows written.
absl::StatusOr<uint64_t> ExecuteInsert(const sql::InsertStatement& insert, std::string_view input,
                                       const granite::worker::v1::TableSchema& schema,
                                       const WorkerSet& workers, const SelectRunner& run_select);

}  // namespace granite::coordinator
