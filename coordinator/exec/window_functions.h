// Window functions computed on the coordinator over a materialized result (exec/window_split.h
// makes the calls). Each call sorts the rows by its PARTITION BY and ORDER BY columns, finds the
// partitions, peer groups (equal ORDER BY values) and each row's frame, and appends its result
// column, in the table's row order.
//
// Functions: row_number, rank, dense_rank, percent_rank, cume_dist, ntile(n); lag / lead
// (x[, offset[, default]]) over the partition; lagInFrame / leadInFrame, first_value, last_value,
// nth_value(x, n) within the frame; and every aggregate (with its combinators and parameters)
// over the frame. Frames: ROWS and RANGE BETWEEN UNBOUNDED / n PRECEDING / CURRENT ROW /
// n FOLLOWING / UNBOUNDED; RANGE with an offset needs one numeric ORDER BY column. Without a frame,
// ClickHouse's default: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW with an ORDER BY, the
// whole partition without. Rows outside a partition or frame give the type's default value (or
// the default argument), as ClickHouse.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "coordinator/exec/window_split.h"
#include "coordinator/planner/binder.h"

namespace granite::coordinator {

// Appends one column per call to `table` (named call.column), computed from its columns.
// Errors: UNKNOWN_AGGREGATE_FUNCTION (63), NUMBER_OF_ARGUMENTS_DOESNT_MATCH (42),
// BAD_ARGUMENTS (36) for a bad constant argument, NOT_IMPLEMENTED (48) for a RANGE offset over a
// non-numeric column, and those of the aggregates.
absl::Status AppendWindowColumns(const std::vector<WindowCall>& calls, LocalTable* table);

}  // namespace granite::coordinator
