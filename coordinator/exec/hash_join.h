// HashJoin: joins two materialized relations on the coordinator by equal keys, with ClickHouse's
// join kinds and strictness. The right side is the build side (a hash table of its keys); the
// left side probes it in order, so the result keeps the left side's row order, then (RIGHT and
// FULL) the right rows no left row matched. A row without a partner gets its type's default
// values (ClickHouse's join_use_nulls = 0), or NULL (join_use_nulls = 1, see core/join/gather_rows.h). A NULL
// key matches nothing. No keys (CROSS JOIN, or a comma join without an
// equality) gives every pair.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"
#include "core/block.h"

namespace granite::coordinator {

struct JoinSpec {
  sql::JoinKind kind = sql::JoinKind::kInner;
  sql::JoinStrictness strictness = sql::JoinStrictness::kAll;
  // Column indexes of the equal keys, pairwise. REQUIRES: KeysComparable for every pair.
  std::vector<size_t> left_keys;
  std::vector<size_t> right_keys;
  uint64_t max_rows = 0;  // > 0: more result rows fail with TOO_MANY_ROWS
};

// The rows of a join's result: left[i] and right[i] are the rows of the two sides that form
// result row i; -1 stands for none (default values).
struct JoinRows {
  std::vector<int64_t> left;
  std::vector<int64_t> right;
};

// Joins `left` and `right`. Errors: TOO_MANY_ROWS past spec.max_rows.
// REQUIRES: strictness SEMI / ANTI only with kind LEFT (the caller swaps sides for RIGHT).
absl::StatusOr<JoinRows> HashJoin(const core::Block& left, const core::Block& right,
                                  const JoinSpec& spec);

}  // namespace granite::coordinator
