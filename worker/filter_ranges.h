// FilterRanges: turns the WHERE filter of a fragment (a typed plan Expr over the fragment's source
// columns) into per-column value ranges of the table (storage/value_range.h) that storage prunes
// parts and granules with. Understood: and, or (per column, when every branch constrains it),
// equals, less, greater, lessOrEquals, greaterOrEquals and in between a column and a constant
// (a literal, or any constant expression such as toDate('2013-07-01'), folded here); anything else
// constrains nothing. Constants are converted to the column's type as the comparison would
// (a String compared with a Date is parsed as a Date); a Decimal column's range is in scaled
// integers, widened by one step where the constant may fall between two decimal values.
#pragma once

#include "core/plan/fragment.h"
#include "storage/table_schema.h"
#include "storage/value_range.h"

namespace granite::worker {

// Returns the ranges implied by `fragment.filter` (empty map when there is no filter), keyed by
// `schema` column index.
storage::ColumnRanges RangesFromFilter(const core::plan::Fragment& fragment,
                                       const storage::TableSchema& schema);

}  // namespace granite::worker
