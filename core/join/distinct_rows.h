// The first row of each distinct value of one column (or tuple of columns): what an IN set keeps of a subquery's
// result (exec/subqueries.h keeps the values as plan constants, exec/in_joins.h as a semi join's
// build). A large subquery repeats its keys; every copy would travel and be hashed again.
#pragma once

#include <cstdint>
#include <vector>

#include "core/column.h"

namespace granite::core {

// Returns, in increasing order, the rows of `column` whose value (by row_keys.h's key encoding)
// no earlier row has; with `skip_nulls`, NULL rows are left out.
std::vector<uint32_t> FirstOfEachValue(const Column& column, bool skip_nulls);

// The same over the tuples of several columns (a tuple IN's set): the rows whose values no
// earlier row has in every column; with `skip_nulls`, rows holding a NULL are left out.
std::vector<uint32_t> FirstOfEachRow(const std::vector<const Column*>& columns, bool skip_nulls);

}  // namespace granite::core
