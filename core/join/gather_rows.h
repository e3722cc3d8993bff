// GatherRows: a column built from rows of another by index, -1 standing for a missing row — what
// a hash join's result is made of (core/join/join_table.h, coordinator/exec/hash_join.h).
#pragma once

#include <cstdint>
#include <vector>

#include "core/column.h"

namespace granite::core {

// Returns `column`'s rows in the order of `rows`; -1 gives the type's default value, or NULL
// when the column is Nullable or `make_nullable` (join_use_nulls = 1: the result is Nullable).
ColumnPtr GatherRows(const Column& column, const std::vector<int64_t>& rows,
                     bool make_nullable = false);

}  // namespace granite::core
