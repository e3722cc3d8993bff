// StringSizeReads: lets a scan read a String column's sizes instead of its characters when the
// fragment only ever asks how long its values are. The planner rule rewrites the fragment and
// marks those columns in Scan::string_sizes (keeping the original filter as Scan::prune_filter,
// since the rewritten one compares sizes); the worker's MorselSource then reads them with
// Part::ReadStringSizes (the length prefix of each granule, decompressed alone) as UInt64.
//
// Size-only uses of a String source column c (the only ones that qualify it):
//   length(c)                      -> c as UInt64
//   empty(c), c = '', '' = c       -> equals(c, 0)
//   notEmpty(c), c != '', '' != c  -> notEquals(c, 0)
// One other use of c (a projection, LIKE, a group key, ...) keeps it a String everywhere.
// WHERE URL <> '' ... AVG(length(URL)) then never decompresses a URL byte.
#pragma once

#include <vector>

#include "coordinator/planner/rules/rule.h"
#include "core/plan/fragment.h"

namespace granite::coordinator {

// Rewrites the filter, projections, group keys and aggregate arguments of `fragment` so that every
// String source column used only through its size reads as its sizes, and returns, per source
// column position, whether it now does. Leaves `fragment` unchanged when no column qualifies.
// The caller must still prune parts with the original filter: the rewritten one compares sizes.
std::vector<bool> ReadStringsAsSizes(core::plan::Fragment* fragment);

// The planner rule (setting optimize_functions_to_subcolumns): ReadStringsAsSizes on the plan's
// fragment, recording the result in its Scan.
bool ApplyStringSizeReads(QueryPlan* plan, const RuleContext& context);

}  // namespace granite::coordinator
